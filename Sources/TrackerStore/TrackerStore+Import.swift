import Foundation
import GRDB

/// What an import did.
public struct ImportSummary: Sendable, Equatable {
    public var projectsAdded = 0
    public var projectsUpdated = 0
    public var itemsAdded = 0
    public var itemsUpdated = 0
    public var messagesAdded = 0
    public var messagesUpdated = 0
    public var unchanged = 0
}

/// How far an import has come, for a progress line.
public struct ImportProgress: Sendable, Equatable {
    public enum Stage: Sendable, Equatable {
        /// Reading and checking lines: `done` bytes of `total` (a file's size), or `done` lines when the size is
        /// unknown (standard input, a pipe).
        case reading
        /// Writing records in the import's one transaction: `done` of `total`.
        case writing
    }

    public var stage: Stage
    public var done: Int
    public var total: Int?
}

extension TrackerStore {
    /// Imports a JSON Lines file (see ``JSONLines``): all of it in one transaction, or nothing.
    ///
    /// A record whose id exists is updated (only if something differs); a new id is inserted. An item's
    /// project must be in the file or already in the store. Throws ``StoreError/Code-swift.struct/invalidInput``
    /// with `line N: …` for the first bad line, and the store is left as it was.
    public func importJSONLines(_ data: Data) throws(StoreError) -> ImportSummary {
        let records: [(line: Int, record: JSONLinesRecord)]
        do {
            records = try JSONLines.parse(data, now: Timestamp.string(from: Date()))
        } catch {
            throw StoreError(.invalidInput, error.description)
        }
        return try importRecords(records)
    }

    /// Imports JSON Lines read from `source` (a file or standard input, line by line, within its bounds): all of
    /// it in one transaction, or nothing, as ``importJSONLines(_:)``.
    ///
    /// `progress` is told how far it has come: every 1,000 lines read, then every 1,000 records written.
    public func importJSONLines(from source: ImportSource, progress: ((ImportProgress) -> Void)? = nil)
        throws(StoreError) -> ImportSummary
    {
        try checkWritable()  // before reading anything
        let now = Timestamp.string(from: Date())
        var records: [(line: Int, record: JSONLinesRecord)] = []
        do {
            try source.forEachLine { number, line in
                if let record = try JSONLines.parse(line: line, number: number, now: now) {
                    records.append((number, record))
                }
                if let progress, number % Self.progressStep == 0 {
                    let size = source.size
                    progress(
                        ImportProgress(stage: .reading, done: size == nil ? number : source.bytesRead, total: size))
                }
            }
        } catch let error as ImportLineError {
            throw StoreError(.invalidInput, error.description)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.invalidInput, "cannot read \(source.name): \(error)")
        }
        return try importRecords(records, progress: progress)
    }

    /// How many lines or records an import reads or writes between two progress reports.
    static let progressStep = 1_000

    private func importRecords(
        _ records: [(line: Int, record: JSONLinesRecord)], progress: ((ImportProgress) -> Void)? = nil
    ) throws(StoreError) -> ImportSummary {
        var firstLine: [String: Int] = [:]
        var fileProjects = Set<String>()
        var fileItems = Set<String>()
        for (line, record) in records {
            let id: String
            switch record {
            case .project(let project):
                id = project.id
                fileProjects.insert(id)
            case .item(let item):
                id = item.id
                fileItems.insert(id)
            case .message(let message): id = message.id
            }
            if let earlier = firstLine[id] {
                throw StoreError(.invalidInput, "line \(line): id \(id) was already used on line \(earlier)")
            }
            firstLine[id] = line
        }
        return try write { db in
            var summary = ImportSummary()
            let knownProjects = try Set(String.fetchAll(db, sql: "SELECT id FROM projects")).union(fileProjects)
            let knownItems = try Set(String.fetchAll(db, sql: "SELECT id FROM items")).union(fileItems)
            let hasMessages = try db.tableExists("messages")
            for (line, record) in records {
                switch record {
                case .item(let item) where !knownProjects.contains(item.projectID):
                    throw StoreError(
                        .invalidInput, "line \(line): project \(item.projectID) is neither in the file nor in the store"
                    )
                case .message where !hasMessages:
                    throw StoreError(
                        .readOnly, "line \(line): this store predates messages; open it writable once to upgrade it")
                case .message(let message):
                    switch message.parent {
                    case .project(let id) where !knownProjects.contains(id),
                        .item(let id) where !knownItems.contains(id):
                        throw StoreError(
                            .invalidInput,
                            "line \(line): the message's \(message.projectID != nil ? "project" : "item") \(id) is neither in the file nor in the store"
                        )
                    default: break
                    }
                default: break
                }
            }
            let upsertProject = try db.cachedStatement(
                sql: """
                    INSERT INTO projects (id, title, detail, color, closed, created_at, modified_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET
                        title = excluded.title, detail = excluded.detail, color = excluded.color,
                        closed = excluded.closed, created_at = excluded.created_at
                    WHERE title IS NOT excluded.title OR detail IS NOT excluded.detail OR color IS NOT excluded.color
                        OR closed IS NOT excluded.closed OR created_at IS NOT excluded.created_at
                    """)
            let upsertItem = try db.cachedStatement(
                sql: """
                    INSERT INTO items (id, project_id, title, detail, priority, completed, created_at, modified_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET
                        project_id = excluded.project_id, title = excluded.title, detail = excluded.detail,
                        priority = excluded.priority, completed = excluded.completed, created_at = excluded.created_at
                    WHERE project_id IS NOT excluded.project_id OR title IS NOT excluded.title
                        OR detail IS NOT excluded.detail OR priority IS NOT excluded.priority
                        OR completed IS NOT excluded.completed OR created_at IS NOT excluded.created_at
                    """)
            let existingItems = try Set(String.fetchAll(db, sql: "SELECT id FROM items"))
            let existingProjects = try Set(String.fetchAll(db, sql: "SELECT id FROM projects"))
            var written = 0
            func wrote() {
                written += 1
                if written % Self.progressStep == 0 || written == records.count {
                    progress?(ImportProgress(stage: .writing, done: written, total: records.count))
                }
            }
            // Projects first, so that an item may precede its project in the file.
            for case (_, .project(let p)) in records {
                try upsertProject.execute(arguments: [
                    p.id, p.title, p.detail, p.color, p.isClosed, p.createdAt, p.modifiedAt,
                ])
                count(
                    db.changesCount, existed: existingProjects.contains(p.id),
                    added: &summary.projectsAdded, updated: &summary.projectsUpdated, unchanged: &summary.unchanged)
                wrote()
            }
            for case (_, .item(let i)) in records {
                try upsertItem.execute(arguments: [
                    i.id, i.projectID, i.title, i.detail, i.priority, i.isCompleted, i.createdAt, i.modifiedAt,
                ])
                count(
                    db.changesCount, existed: existingItems.contains(i.id),
                    added: &summary.itemsAdded, updated: &summary.itemsUpdated, unchanged: &summary.unchanged)
                wrote()
            }
            guard hasMessages else { return summary }
            // Messages last: what they are on is in place by now.
            let upsertMessage = try db.cachedStatement(
                sql: """
                    INSERT INTO messages (id, project_id, item_id, author, text, created_at, modified_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET
                        project_id = excluded.project_id, item_id = excluded.item_id, author = excluded.author,
                        text = excluded.text, created_at = excluded.created_at
                    WHERE project_id IS NOT excluded.project_id OR item_id IS NOT excluded.item_id
                        OR author IS NOT excluded.author OR text IS NOT excluded.text
                        OR created_at IS NOT excluded.created_at
                    """)
            let existingMessages = try Set(String.fetchAll(db, sql: "SELECT id FROM messages"))
            for case (_, .message(let m)) in records {
                try upsertMessage.execute(arguments: [
                    m.id, m.projectID, m.itemID, m.author, m.text, m.createdAt, m.modifiedAt,
                ])
                count(
                    db.changesCount, existed: existingMessages.contains(m.id),
                    added: &summary.messagesAdded, updated: &summary.messagesUpdated, unchanged: &summary.unchanged)
                wrote()
            }
            return summary
        }
    }

    private func count(_ changes: Int, existed: Bool, added: inout Int, updated: inout Int, unchanged: inout Int) {
        if !existed {
            added += 1
        } else if changes > 0 {
            updated += 1
        } else {
            unchanged += 1
        }
    }

    /// Writes every project, each followed by its items and then the messages on it and on its items, as JSON
    /// Lines; `importJSONLines` of the result into an empty store gives an identical export.
    ///
    /// Rethrows what `write` throws, unchanged (and stops there); store failures are ``StoreError``s.
    public func exportJSONLines(_ write: (String) throws -> Void) throws {
        var writeFailure: (any Error)?
        func emit(_ line: String) throws {
            do {
                try write(line)
            } catch {
                writeFailure = error
                throw error
            }
        }
        do {
            try read { reader in
                let projects = try reader.allProjects()
                var itemsByProject: [String: [Item]] = [:]
                var itemProject: [String: String] = [:]
                try reader.forEachItem {
                    itemsByProject[$0.projectID, default: []].append($0)
                    itemProject[$0.id] = $0.projectID
                }
                var messagesByProject: [String: [Message]] = [:]
                try reader.forEachMessage { messages in
                    for message in messages {
                        let project = message.projectID ?? itemProject[message.itemID ?? ""] ?? ""
                        messagesByProject[project, default: []].append(message)
                    }
                }
                for project in projects {
                    try emit(JSONLines.line(for: .project(project)))
                    for item in itemsByProject[project.id] ?? [] {
                        try emit(JSONLines.line(for: .item(item)))
                    }
                    for message in messagesByProject[project.id] ?? [] {
                        try emit(JSONLines.line(for: .message(message)))
                    }
                }
            }
        } catch {
            throw writeFailure ?? error
        }
    }
}
