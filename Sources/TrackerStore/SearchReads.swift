import Foundation
import GRDB
import GRDBSQLite

/// The two reads every search makes — the store's last change (is the index current?) and the rows of a page of hits
/// (items with their projects, and projects) — on SQLite connections of their own, with their statements prepared
/// once.
///
/// Through GRDB each read takes its pool's lock and semaphore, a hop onto the connection's dispatch queue, and its
/// record decoding, which cost more than the statement itself in a rare phrase's search
/// (docs/decisions/0007-search-tried-and-left.md has the measurements).
///
/// Each read is one statement outside any transaction, so SQLite reads it in a transaction of its own, as
/// ``TrackerStore/read(_:)`` would; a page of items and projects is two, in one transaction. Connections are read-only,
/// opened as the store's own were (the same path, or the same immutable URI), kept in a small pool and safe to use from
/// several threads (one connection per read at a time). Any failure (one SQLite reports, or a connection that cannot be
/// opened) gives nil, and the caller reads through GRDB instead, which reports it: these reads are only ever a faster
/// way to the same answer.
///
/// A store opened as one serialized connection (a command's read-only ``DatabaseQueue``) lends that connection instead,
/// used inside its queue: a connection of our own would open the file and parse the schema a second time in a
/// one-shot `spotlite search`, as much time as the reads save.
final class SearchReads: @unchecked Sendable {
    private let location: String
    private let isURI: Bool
    private let queue: DatabaseQueue?
    private let lock = NSLock()
    // Guarded by `lock`:
    private var idle: [Connection] = []
    private var isDisabled = false
    // Used only inside `queue`: its connection, with our statements prepared on it.
    private var borrowed: Connection?

    /// Connections kept open between reads; more readers at once open more, closed when they are done.
    private static let keptConnections = 4

    /// `location`: the store's path, or with `isURI` the `file:` URI it was opened by; `queue`: the store's one
    /// connection, to borrow rather than open others.
    init(location: String, isURI: Bool = false, queue: DatabaseQueue? = nil) {
        self.location = location
        self.isURI = isURI
        self.queue = queue
    }

    deinit {
        // Our statements are finalized before the queue closes its connection.
        queue?.inDatabase { _ in borrowed = nil }
    }

    /// The sequence number of the last change logged (``StoreReader/lastChangeSequence()``), or nil if it could not be
    /// read here.
    func lastChangeSequence() -> Int64? {
        withConnection { try $0.lastChangeSequence() }
    }

    /// The items with these ids that exist, each with its project, and the projects with these ids that exist, as
    /// ``StoreReader/entities(items:projects:messages:)`` reads a page of hits without messages; nil if they could
    /// not be read here. At most ``StoreReader/chunkSize`` ids in all. Both kinds are read in one transaction, so a
    /// page holding both is one snapshot of the store, as through GRDB.
    /// `details`: the part of each detail to keep (``DetailPart``), or nil for whole details.
    func entities(items itemIDs: [String], projects projectIDs: [String], details: DetailPart? = nil)
        -> [TrackerURI.Kind: [String: StoreEntity]]?
    {
        withConnection { connection in
            let read = {
                [
                    .item: try connection.itemsWithProjects(itemIDs, details: details),
                    .project: try connection.projects(projectIDs, details: details), .message: [:],
                ] as [TrackerURI.Kind: [String: StoreEntity]]
            }
            return itemIDs.isEmpty || projectIDs.isEmpty ? try read() : try connection.inTransaction(read)
        }
    }

    private func withConnection<T>(_ body: (Connection) throws -> T) -> T? {
        if let queue {
            return queue.inDatabase { db -> T? in
                guard let handle = db.sqliteConnection else { return nil }
                let connection = borrowed ?? Connection(borrowing: handle)
                let result = try? body(connection)
                // The queue's connection must not stay inside our transaction (a failed rollback): GRDB's reads
                // would see its snapshot. Our statements go, and the transaction is rolled back once more.
                if !connection.isOutsideTransaction {
                    borrowed = nil
                    sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
                } else {
                    borrowed = connection
                }
                return result
            }
        }
        lock.lock()
        if isDisabled {
            lock.unlock()
            return nil
        }
        let kept = idle.popLast()
        lock.unlock()
        guard let connection = kept ?? open() else { return nil }
        let result = try? body(connection)
        // One left inside a transaction (a failed rollback) would read an old snapshot from then on: closed instead.
        guard connection.isOutsideTransaction else { return result }
        lock.lock()
        if idle.count < Self.keptConnections { idle.append(connection) }
        lock.unlock()
        return result
    }

    /// A new connection, or nil (and no more tries) if SQLite cannot open one.
    private func open() -> Connection? {
        if let connection = Connection(location: location, isURI: isURI) { return connection }
        lock.lock()
        isDisabled = true
        lock.unlock()
        return nil
    }

    /// One read-only SQLite connection and its statements. Used by one thread at a time.
    final class Connection {
        private let handle: OpaquePointer
        /// Whether the handle is ours to close (else borrowed from the store's queue).
        private let owned: Bool
        private var lastChange: OpaquePointer?
        /// The join of items with their projects, and the read of projects, by the number of ids each takes.
        private var itemStatements: [Int: OpaquePointer] = [:]
        private var projectStatements: [Int: OpaquePointer] = [:]
        private var begin: OpaquePointer?
        private var commit: OpaquePointer?
        private var rollback: OpaquePointer?

        init?(location: String, isURI: Bool) {
            var handle: OpaquePointer?
            let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | (isURI ? SQLITE_OPEN_URI : 0)
            guard sqlite3_open_v2(location, &handle, flags, nil) == SQLITE_OK, let handle else {
                sqlite3_close_v2(handle)
                return nil
            }
            self.handle = handle
            owned = true
            sqlite3_busy_timeout(handle, Int32(TrackerStore.busyTimeout * 1_000))
        }

        /// The store's own connection, waiting for locks as the store set it to; never closed here.
        init(borrowing handle: OpaquePointer) {
            self.handle = handle
            owned = false
        }

        deinit {
            for statement in [lastChange, begin, commit, rollback] { sqlite3_finalize(statement) }
            for statement in itemStatements.values { sqlite3_finalize(statement) }
            for statement in projectStatements.values { sqlite3_finalize(statement) }
            if owned { sqlite3_close_v2(handle) }
        }

        var isOutsideTransaction: Bool { sqlite3_get_autocommit(handle) != 0 }

        /// `body` in one read transaction: its statements read one snapshot of the store.
        func inTransaction<T>(_ body: () throws -> T) throws -> T {
            if begin == nil {
                begin = try prepare("BEGIN")
                commit = try prepare("COMMIT")
                rollback = try prepare("ROLLBACK")
            }
            try run(begin)
            do {
                let result = try body()
                try run(commit)
                return result
            } catch {
                try? run(rollback)
                throw error
            }
        }

        private func run(_ statement: OpaquePointer?) throws {
            guard let statement else { throw Failure() }
            defer { sqlite3_reset(statement) }
            guard sqlite3_step(statement) == SQLITE_DONE else { throw Failure() }
        }

        /// The rows `select` (ending in `… IN`) finds for the distinct `ids`, each given to `row`: one statement,
        /// prepared once per number of ids and kept in `cache`. At most ``StoreReader/chunkSize`` distinct ids.
        private func rows(
            _ select: String, _ ids: [String], cache: inout [Int: OpaquePointer], _ row: (OpaquePointer) -> Void
        ) throws {
            let ids = Array(Set(ids))
            guard !ids.isEmpty else { return }
            guard ids.count <= StoreReader.chunkSize else { throw Failure() }
            let statement: OpaquePointer
            if let prepared = cache[ids.count] {
                statement = prepared
            } else {
                let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
                statement = try prepare("\(select) (\(marks))")
                cache[ids.count] = statement
            }
            defer {
                sqlite3_reset(statement)
                sqlite3_clear_bindings(statement)
            }
            for (index, id) in ids.enumerated() {
                // SQLITE_TRANSIENT: SQLite copies the text, which lives only during this call.
                let bound = sqlite3_bind_text(
                    statement, Int32(index + 1), id, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                guard bound == SQLITE_OK else { throw Failure() }
            }
            while true {
                switch sqlite3_step(statement) {
                case SQLITE_ROW: row(statement)
                case SQLITE_DONE: return
                default: throw Failure()
                }
            }
        }

        struct Failure: Error {}

        private func prepare(_ sql: String) throws -> OpaquePointer {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
                let statement
            else { throw Failure() }
            return statement
        }

        func lastChangeSequence() throws -> Int64 {
            if lastChange == nil {
                lastChange = try prepare("SELECT seq FROM sqlite_sequence WHERE name = 'change_log'")
            }
            guard let statement = lastChange else { throw Failure() }
            defer { sqlite3_reset(statement) }
            switch sqlite3_step(statement) {
            case SQLITE_ROW: return sqlite3_column_int64(statement, 0)
            case SQLITE_DONE: return 0
            default: throw Failure()
            }
        }

        func itemsWithProjects(_ ids: [String], details: DetailPart?) throws -> [String: StoreEntity] {
            var found: [String: StoreEntity] = [:]
            try rows(StoreReader.itemsInProjects, ids, cache: &itemStatements) { statement in
                // The columns of ItemInProject.columns: the item's, then the project's.
                let item = Item(
                    id: text(statement, 0), projectID: text(statement, 1), title: text(statement, 2),
                    detail: text(statement, 3, part: details), priority: Int(sqlite3_column_int64(statement, 4)),
                    isCompleted: sqlite3_column_int64(statement, 5) != 0, createdAt: text(statement, 6),
                    modifiedAt: text(statement, 7),
                    tracking: ItemTracking(
                        author: text(statement, 8), assignees: ItemTracking.decode(names: text(statement, 9)),
                        resolution: text(statement, 10),
                        closedAt: sqlite3_column_type(statement, 11) == SQLITE_NULL ? nil : text(statement, 11),
                        tags: ItemTracking.decode(tags: text(statement, 14)),
                        links: ItemTracking.decode(links: text(statement, 15)), sourceURL: text(statement, 12),
                        sourceKey: text(statement, 13)),
                    commenters: ItemTracking.decode(names: text(statement, 16)))
                found[item.id] = .item(
                    item, project: project(statement, at: Int32(Item.columnCount), details: details))
            }
            return found
        }

        func projects(_ ids: [String], details: DetailPart?) throws -> [String: StoreEntity] {
            var found: [String: StoreEntity] = [:]
            try rows(StoreReader.projectsByID, ids, cache: &projectStatements) { statement in
                let project = project(statement, at: 0, details: details)
                found[project.id] = .project(project)
            }
            return found
        }

        /// The project in the columns of Project.columns from `start` on.
        private func project(_ statement: OpaquePointer, at start: Int32, details: DetailPart?) -> Project {
            Project(
                id: text(statement, start), title: text(statement, start + 1),
                detail: text(statement, start + 2, part: details),
                color: text(statement, start + 3), isClosed: sqlite3_column_int64(statement, start + 4) != 0,
                createdAt: text(statement, start + 5), modifiedAt: text(statement, start + 6))
        }

        /// The column's text, or the `part` of its bytes (clamped to them) decoded alone.
        private func text(_ statement: OpaquePointer, _ column: Int32, part: DetailPart? = nil) -> String {
            guard let bytes = sqlite3_column_text(statement, column) else { return "" }
            let all = UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, column)))
            guard let part else { return String(decoding: all, as: UTF8.self) }
            return String(
                decoding: UnsafeBufferPointer(rebasing: all[part(all).clamped(to: all.indices)]), as: UTF8.self)
        }
    }
}
