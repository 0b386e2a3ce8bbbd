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
    let pool: DatabasePool

    private init(path: String, pool: DatabasePool, uuid: String) {
        self.path = path
        self.pool = pool
        self.uuid = uuid
    }

    /// How long a writer waits for another before failing with ``StoreError/Code-swift.struct/busy``.
    public static let busyTimeout: TimeInterval = 10

    private static func configuration(readOnly: Bool = false) -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.foreignKeysEnabled = true
        configuration.label = "TrackerStore"
        return configuration
    }

    /// Creates a new store at `path` (and its directory), with a fresh UUID.
    ///
    /// Throws ``StoreError/Code-swift.struct/invalidInput`` if a file already exists there.
    public static func create(at path: String) throws(StoreError) -> TrackerStore {
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: path) {
            throw StoreError(.invalidInput, "a file already exists at \(path); use it, or choose another --store path")
        }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try fileManager.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw StoreError(.database, "cannot create the directory \(directory): \(error.localizedDescription)")
            }
        }
        do {
            let pool = try DatabasePool(path: path, configuration: configuration())
            try Schema.migrator.migrate(pool)
            let uuid = UUID().uuidString.lowercased()
            try pool.write { db in
                try db.execute(sql: "INSERT INTO store_info (uuid) VALUES (?)", arguments: [uuid])
            }
            return TrackerStore(path: path, pool: pool, uuid: uuid)
        } catch {
            throw StoreError.wrap(error, path: path)
        }
    }

    /// Opens the existing store at `path`, applying pending migrations.
    ///
    /// Throws ``StoreError/Code-swift.struct/missingStore`` if there is no file (say how to make one), and
    /// ``StoreError/Code-swift.struct/notAStore`` if the file is not a Spotlite store.
    public static func open(at path: String) throws(StoreError) -> TrackerStore {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError(.missingStore, "no store at \(path); create one with `spotlite init` (or pass --store)")
        }
        do {
            // Check the header before SQLite touches the file: opening a non-database in WAL mode
            // would otherwise create -wal/-shm files beside someone else's file.
            if let handle = FileHandle(forReadingAtPath: path) {
                let header = handle.readData(ofLength: 16)
                try? handle.close()
                if !header.isEmpty && header != Data("SQLite format 3\u{0}".utf8) {
                    throw StoreError(.notAStore, "\(path) is not a Spotlite store (not an SQLite database)")
                }
            }
            let pool = try DatabasePool(path: path, configuration: configuration())
            let migrator = Schema.migrator
            let uuid: String? = try pool.read { db in
                guard try db.tableExists("store_info") else { return nil }
                let applied = try migrator.appliedIdentifiers(db)
                let known = Set(migrator.migrations)
                if !applied.isSubset(of: known) {
                    throw StoreError(
                        .unsupportedVersion, "\(path) was written by a newer Spotlite; upgrade spotlite to use it")
                }
                return try String.fetchOne(db, sql: "SELECT uuid FROM store_info")
            }
            guard let uuid else {
                throw StoreError(.notAStore, "\(path) is an SQLite database but not a Spotlite store")
            }
            try migrator.migrate(pool)
            return TrackerStore(path: path, pool: pool, uuid: uuid)
        } catch {
            throw StoreError.wrap(error, path: path)
        }
    }

    /// Runs `body` in one read transaction (a consistent snapshot).
    public func read<T>(_ body: (StoreReader) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.read { db in try body(StoreReader(db: db, storeID: uuid)) }
        } catch {
            throw StoreError.wrap(error, path: path)
        }
    }

    /// Runs `body` in one write transaction; everything or nothing is stored.
    func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.write(body)
        } catch {
            throw StoreError.wrap(error, path: path)
        }
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
                    .busy, "the store \(path) stayed locked by another writer for \(Int(TrackerStore.busyTimeout)) s; try again",
                    cause: error)
            case .SQLITE_CORRUPT:
                return StoreError(.notAStore, "\(path) is damaged (SQLite reports corruption)", cause: error)
            case .SQLITE_CONSTRAINT:
                return StoreError(.invalidInput, error.message ?? "a constraint failed", cause: error)
            case .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM:
                return StoreError(.database, "cannot open \(path) for writing: \(error.message ?? "\(error)")", cause: error)
            default:
                return StoreError(.database, "\(path): \(error.message ?? "\(error)")", cause: error)
            }
        }
        return StoreError(.database, "\(path): \(error)")
    }
}
