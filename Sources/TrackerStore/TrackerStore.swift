import Foundation
import GRDB

/// The tracker store: an SQLite database (WAL) of projects and items whose every change is logged.
///
/// The store is the source of truth; the search index is derived from it. Safe to use from several
/// threads and processes: writes are serialised by SQLite with a busy timeout, reads see snapshots.
///
/// ```swift
/// let store = try TrackerStore.create(at: path)
/// let project = try store.addProject(title: "Home renovation")
/// let item = try store.addItem(projectID: project.id, title: "Fix the leaking tap", priority: 3)
/// ```
public final class TrackerStore: Sendable {
    /// The path of the SQLite file.
    public let path: String
    /// The store's UUID, made at creation and kept in `store_info`.
    public let uuid: String
    /// Whether the store was opened read-only (a file or directory the user cannot write, a read-only mount):
    /// reads work, writes throw ``StoreError/Code-swift.struct/readOnly``.
    public let isReadOnly: Bool
    let pool: any DatabaseWriter
    /// The reads every search makes, on connections of their own (``SearchReads``).
    let searchReads: SearchReads
    /// How the store's connections wait for another process's lock.
    let busyWait: BusyWait

    /// `location`: where SQLite opened the store (`path`, or the `file:` URI of an immutable open).
    private init(
        path: String, pool: any DatabaseWriter, uuid: String, busyWait: BusyWait, isReadOnly: Bool = false,
        location: String? = nil
    ) {
        self.path = path
        self.pool = pool
        self.busyWait = busyWait
        self.uuid = uuid
        self.isReadOnly = isReadOnly
        searchReads = SearchReads(location: location ?? path, isURI: location != nil, queue: pool as? DatabaseQueue)
    }

    /// How long a statement waits for another process's lock before failing with
    /// ``StoreError/Code-swift.struct/busy``.
    public static let busyTimeout: TimeInterval = 10

    private static func configuration(readOnly: Bool = false, busyWait: BusyWait) -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .callback { tries in busyWait.retry(after: tries) }
        configuration.foreignKeysEnabled = true
        configuration.readonly = readOnly
        configuration.label = "TrackerStore"
        return configuration
    }

    /// Creates a new store at `path` (and its directory), with a fresh UUID. An empty file there (0 bytes, as
    /// `touch` leaves) is made a store too: it holds nothing to lose.
    ///
    /// Throws ``StoreError/Code-swift.struct/invalidInput`` if a file with content already exists there.
    public static func create(at path: String) throws(StoreError) -> TrackerStore {
        switch try StoreFile.inspect(path) {
        case .missing, .empty: break
        case .directory: throw StoreFile.directoryError(path)
        case .other:
            throw StoreError(.invalidInput, "a file already exists at \(path); use it, or choose another --store path")
        }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw StoreError(.database, "cannot create the directory \(directory): \(error.localizedDescription)")
            }
        }
        do {
            let busyWait = BusyWait()
            let pool = try DatabasePool(path: path, configuration: configuration(busyWait: busyWait))
            try Schema.migrator.migrate(pool)
            let uuid = UUID().uuidString.lowercased()
            try pool.write { db in
                try db.execute(sql: "INSERT INTO store_info (uuid) VALUES (?)", arguments: [uuid])
            }
            return TrackerStore(path: path, pool: pool, uuid: uuid, busyWait: busyWait)
        } catch {
            throw StoreError.wrap(error, path: path)
        }
    }

    /// Opens the existing store at `path`, applying pending migrations.
    ///
    /// A store the user cannot write (the file or its directory, or a read-only mount) is opened read-only:
    /// searching, resolving and exporting work; writes throw ``StoreError/Code-swift.struct/readOnly``.
    ///
    /// Throws ``StoreError/Code-swift.struct/missingStore`` if there is no file or an empty one (say how to make
    /// one), and ``StoreError/Code-swift.struct/notAStore`` if the file is not a Spotlite store (a directory, or
    /// another kind of file, which is left untouched).
    ///
    /// With `readOnly`, the store is opened read-only even when the user could write it (a public store: nothing,
    /// not even a migration, is written to it).
    ///
    /// With `forReading` (a command that only reads: search, resolve, status), a store whose schema is this
    /// Spotlite's is opened read-only too, so that the command writes nothing to it; one with any migration to apply
    /// is opened as without it, and migrated (its triggers then log what other programs write).
    ///
    /// Opened for writing, a store is written to even when nothing changes: GRDB commits a transaction to create
    /// the write-ahead log when there is none, which SQLite checkpoints and deletes again when the last connection
    /// closes: a search would change the file (its header) and sync it three times, a large part of its process's
    /// time (docs/decisions/0008-process-start.md).
    public static func open(at path: String, readOnly: Bool = false, forReading: Bool = false) throws(StoreError)
        -> TrackerStore
    {
        switch try StoreFile.inspect(path) {
        case .missing:
            throw StoreError(.missingStore, "no store at \(path); create one with `spotlite init` (or pass --store)")
        case .empty:
            throw StoreError(.missingStore, "the store file \(path) is empty; make it a store with `spotlite init`")
        case .directory:
            throw StoreFile.directoryError(path)
        case .other(let header):
            // Checked before SQLite touches the file: opening a non-database in WAL mode would otherwise create
            // -wal/-shm files beside someone else's file.
            if header != Data("SQLite format 3\u{0}".utf8) {
                throw StoreError(.notAStore, "\(path) is not a Spotlite store (not an SQLite database)")
            }
        }
        if readOnly || !StoreFile.isWritable(path) { return try openReadOnly(at: path) }
        // Any failure here (a migration to apply first) is left to the opening for writing, which reports it.
        if forReading {
            do {
                return try openReadOnly(at: path, current: true)
            } catch  where error.code == .busy {
                throw error  // opening it for writing would wait for the same lock a second time
            } catch {
                // A migration to apply (or anything else): the opening for writing below applies or reports it.
            }
        }
        do {
            let busyWait = BusyWait()
            let pool = try DatabasePool(path: path, configuration: configuration(busyWait: busyWait))
            let uuid = try identify(pool, path: path, readOnly: false)
            try Schema.migrator.migrate(pool)
            return TrackerStore(path: path, pool: pool, uuid: uuid, busyWait: busyWait)
        } catch {
            throw StoreError.wrap(error, path: path)
        }
    }

    /// This store again, read-only: nothing done through it can change the store (a server's readers). The file is
    /// known to be this store, so neither its header nor its UUID is read again.
    public func readOnlyHandle() throws(StoreError) -> TrackerStore {
        do {
            let configuration = Self.configuration(readOnly: true, busyWait: busyWait)
            let pool = try DatabasePool(path: path, configuration: configuration)
            return TrackerStore(path: path, pool: pool, uuid: uuid, busyWait: busyWait, isReadOnly: true)
        } catch {
            throw StoreError.wrap(error, path: path)
        }
    }

    /// Opens a store the user cannot write, or with `current` one whose schema has no migration to apply (else
    /// throws). SQLite needs the `-shm` file of a WAL database; where it cannot be made (a read-only directory or
    /// mount) and no writer can be running, the file is opened as immutable (not with `current`: the user can
    /// write the store, so a writer may be running).
    private static func openReadOnly(at path: String, current: Bool = false) throws(StoreError) -> TrackerStore {
        do {
            var queue: DatabaseQueue
            var location: String?  // the immutable URI, when the file is opened as one
            let busyWait = BusyWait()
            do {
                queue = try DatabaseQueue(path: path, configuration: configuration(readOnly: true, busyWait: busyWait))
                _ = try queue.read { db in try db.tableExists("store_info") }
            } catch let error as DatabaseError where !current && StoreFile.needsImmutableOpen(error) {
                let uri = "file:" + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path)
                location = uri + "?immutable=1"
                queue = try DatabaseQueue(
                    path: uri + "?immutable=1", configuration: configuration(readOnly: true, busyWait: busyWait))
            }
            let uuid = try identify(queue, path: path, readOnly: true, current: current)
            return TrackerStore(
                path: path, pool: queue, uuid: uuid, busyWait: busyWait, isReadOnly: true, location: location)
        } catch {
            throw StoreError.wrap(error, path: path)
        }
    }

    /// The store's UUID, after checking that the file is a Spotlite store and its schema: no migration newer than
    /// this Spotlite's; for `readOnly`, none a reader needs applied; for `current`, none to apply at all.
    private static func identify(_ database: any DatabaseReader, path: String, readOnly: Bool, current: Bool = false)
        throws -> String
    {
        let migrator = Schema.migrator
        let uuid: String? = try database.read { db in
            guard try db.tableExists("store_info") else { return nil }
            let applied = try migrator.appliedIdentifiers(db)
            if !applied.isSubset(of: Set(migrator.migrations)) {
                throw StoreError(
                    .unsupportedVersion, "\(path) was written by a newer Spotlite; upgrade spotlite to use it")
            }
            if current, !Set(migrator.migrations).isSubset(of: applied) {
                throw StoreError(.readOnly, "\(path) has migrations to apply")
            }
            let pending = Set(migrator.migrations).subtracting(applied).subtracting(Schema.readCompatibleMigrations)
            if readOnly, !pending.isEmpty {
                throw StoreError(
                    .readOnly,
                    "\(path) needs an upgrade to this Spotlite's schema, and it is read-only to you; "
                        + "open it once with write access (any spotlite command does it)")
            }
            return try String.fetchOne(db, sql: "SELECT uuid FROM store_info")
        }
        guard let uuid else {
            throw StoreError(.notAStore, "\(path) is an SQLite database but not a Spotlite store")
        }
        return uuid
    }

    /// Runs `body` with the store's waits for another process's lock ending `seconds` from now at the latest
    /// (``busyTimeout`` still bounds each wait): what a search across stores gives each store, so that a locked
    /// store costs it that bound once, not once per read.
    public func withBusyDeadline<T>(_ seconds: Double, _ body: () throws -> T) rethrows -> T {
        try busyWait.withDeadline(seconds, body)
    }

    /// Runs `body` in one read transaction (a consistent snapshot).
    public func read<T>(_ body: (StoreReader) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.read { db in try body(StoreReader(db: db, storeID: uuid)) }
        } catch {
            throw StoreError.wrap(error, path: path)
        }
    }

    /// Runs `body`, which reads with one statement, outside any transaction: SQLite runs a single statement in a read
    /// transaction of its own, so the answer is as consistent as ``read(_:)``'s, without its `BEGIN` and `COMMIT`.
    private func readStatement<T>(_ body: (StoreReader) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.unsafeRead { db in try body(StoreReader(db: db, storeID: uuid)) }
        } catch {
            throw StoreError.wrap(error, path: path)
        }
    }

    /// The sequence number of the last change logged (``StoreReader/lastChangeSequence()``), read by one statement
    /// (``readStatement(_:)``): a search asks at every start whether its index is current.
    public func lastChangeSequence() throws(StoreError) -> Int64 {
        if let sequence = searchReads.lastChangeSequence() { return sequence }
        return try readStatement { try $0.lastChangeSequence() }
    }

    /// The rows behind a page of search hits (``StoreReader/entities(items:projects:messages:)``). A page of at
    /// most 500 items and projects and no messages is read on the search connections (``SearchReads``: a statement
    /// per kind, both in one transaction); anything else, or if those cannot read it, through GRDB in one
    /// transaction (a page of items alone: one statement, ``readStatement(_:)``).
    ///
    /// `details`: the part of each item's and project's detail the caller uses (a snippet's window of a changelog
    /// entry of 100 KB), which the search connections make the detail instead of decoding all of it; the other
    /// reads give whole details. Nil: whole details.
    public func entities(
        items itemIDs: [String], projects projectIDs: [String], messages messageIDs: [String],
        details: DetailPart? = nil
    ) throws(StoreError) -> [TrackerURI.Kind: [String: StoreEntity]] {
        let small = messageIDs.isEmpty && itemIDs.count + projectIDs.count <= StoreReader.chunkSize
        if small, let found = searchReads.entities(items: itemIDs, projects: projectIDs, details: details) {
            return found
        }
        guard small, projectIDs.isEmpty else {
            return try read { try $0.entities(items: itemIDs, projects: projectIDs, messages: messageIDs) }
        }
        return try readStatement { try $0.entities(items: itemIDs, projects: [], messages: []) }
    }

    /// Runs `body` in one write transaction; everything or nothing is stored.
    func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        try checkWritable()
        do {
            return try pool.write(body)
        } catch {
            throw StoreError.wrap(error, path: path)
        }
    }

    /// Throws ``StoreError/Code-swift.struct/readOnly`` if the store was opened read-only.
    public func checkWritable() throws(StoreError) {
        guard isReadOnly else { return }
        throw StoreError(
            .readOnly,
            "the store \(path) is read-only to you (the file, its directory or its mount); "
                + "searching and exporting work, changes need write access")
    }

    /// Makes a URI for a row of this store.
    public func uri(_ kind: TrackerURI.Kind, _ id: String) -> TrackerURI {
        TrackerURI(storeID: uuid, kind: kind, entityID: id)
    }

    /// Checks that `uri` belongs to this store, or throws ``StoreError/Code-swift.struct/foreignStore``.
    public func checkOwnership(_ uri: TrackerURI) throws(StoreError) {
        if uri.storeID != uuid {
            throw StoreError(
                .foreignStore, "\(uri) belongs to another store (\(uri.storeID)); this store is \(uuid)")
        }
    }
}

extension StoreError {
    /// Turns SQLite and GRDB errors into store errors with sentences people can act on.
    static func wrap(_ error: any Error, path: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let gap = error as? ChangeFeedGap { return StoreError(.changeLogGap, gap.description, cause: gap) }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB:
                return StoreError(.notAStore, "\(path) is not a Spotlite store (not an SQLite database)", cause: error)
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return StoreError(
                    .busy,
                    "the store \(path) stayed locked by another process for \(Int(TrackerStore.busyTimeout)) s; "
                        + "try again",
                    cause: error)
            case .SQLITE_CORRUPT:
                return StoreError(.notAStore, "\(path) is damaged (SQLite reports corruption)", cause: error)
            case .SQLITE_CONSTRAINT:
                return StoreError(.invalidInput, error.message ?? "a constraint failed", cause: error)
            case .SQLITE_FULL:
                return StoreError(
                    .database, "\(path): the disk is full; free some space and try again (nothing was changed)",
                    cause: error)
            case .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM:
                return StoreError(
                    .database, "cannot open \(path) for writing: \(error.message ?? "\(error)")", cause: error)
            default:
                return StoreError(.database, "\(path): \(error.message ?? "\(error)")", cause: error)
            }
        }
        return StoreError(.database, "\(path): \(error)")
    }
}
