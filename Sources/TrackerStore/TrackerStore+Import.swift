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
            records = try JSONLines.parse(data, now: Self.unstatedTime)
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
        var records: [(line: Int, record: JSONLinesRecord)] = []
        do {
            try source.forEachLine { number, line in
                if let record = try JSONLines.parse(line: line, number: number, now: Self.unstatedTime) {
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

    /// The `created` (and `modified`) time of a record whose file gives none, until the import fills it in: the time
    /// already stored for its id, or the import's own time for a new record. So importing a file without times again
    /// changes nothing.
    static let unstatedTime = ""

    /// Fills in the ``unstatedTime``s of `records`: the stored `created_at` of an existing row, `now` for a new one;
    /// an unstated `modified` time is the created time.
    private static func fillUnstatedTimes(_ db: Database, _ records: inout [(line: Int, record: JSONLinesRecord)])
        throws
    {
        let now = Timestamp.string(from: Date())
        let hasMessages = try db.tableExists("messages")
        func fill(_ created: inout String, _ modified: inout String, _ table: String, _ id: String) throws {
            if created == unstatedTime {
                let stored =
                    table == "messages" && !hasMessages
                    ? nil
                    : try String.fetchOne(
                        db.cachedStatement(sql: "SELECT created_at FROM \(table) WHERE id = ?"), arguments: [id])
                created = stored ?? now
            }
            if modified == unstatedTime { modified = created }
        }
        for index in records.indices {
            switch records[index].record {
            case .project(var p):
                try fill(&p.createdAt, &p.modifiedAt, "projects", p.id)
                records[index].record = .project(p)
            case .item(var i):
                try fill(&i.createdAt, &i.modifiedAt, "items", i.id)
                records[index].record = .item(i)
            case .message(var m):
                try fill(&m.createdAt, &m.modifiedAt, "messages", m.id)
                records[index].record = .message(m)
            }
        }
    }

    /// `place` names a record's line number in errors: `line N` for JSON Lines, the record's place in a tracker's
    /// export (`record 3 (12)`) for those.
    private func importRecords(
        _ records: [(line: Int, record: JSONLinesRecord)], progress: ((ImportProgress) -> Void)? = nil,
        place: (Int) -> String = { "line \($0)" }
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
                throw StoreError(.invalidInput, "\(place(line)): id \(id) was already used on \(place(earlier))")
            }
            firstLine[id] = line
        }
        return try write { db in
            var records = records
            try Self.fillUnstatedTimes(db, &records)
            var summary = ImportSummary()
            // What the store holds before the import writes anything: read once, for the checks and the counts.
            let existingItems = try Set(String.fetchAll(db, sql: "SELECT id FROM items"))
            let existingProjects = try Set(String.fetchAll(db, sql: "SELECT id FROM projects"))
            let knownProjects = existingProjects.union(fileProjects)
            let knownItems = existingItems.union(fileItems)
            let hasMessages = try db.tableExists("messages")
            for (line, record) in records {
                switch record {
                case .item(let item) where !knownProjects.contains(item.projectID):
                    throw StoreError(
                        .invalidInput,
                        "\(place(line)): project \(item.projectID) is neither in the file nor in the store"
                    )
                case .item(let item):
                    for link in item.tracking.links.map(local) where link.storeID == nil {
                        if !knownItems.contains(link.itemID) {
                            throw StoreError(
                                .invalidInput,
                                "\(place(line)): the \(link.kind.rawValue) link's item \(link.itemID) is neither in the "
                                    + "file nor in the store")
                        }
                        if link.itemID == item.id {
                            throw StoreError(.invalidInput, "\(place(line)): an item cannot link to itself")
                        }
                    }
                case .message where !hasMessages:
                    throw StoreError(
                        .readOnly, "\(place(line)): this store predates messages; open it writable once to upgrade it")
                case .message(let message):
                    switch message.parent {
                    case .project(let id) where !knownProjects.contains(id),
                        .item(let id) where !knownItems.contains(id):
                        throw StoreError(
                            .invalidInput,
                            "\(place(line)): the message's \(message.projectID != nil ? "project" : "item") \(id) is neither in the file nor in the store"
                        )
                    default: break
                    }
                default: break
                }
            }
            let upsertProject = try db.cachedStatement(
                sql: Self.upsertSQL("projects", ["title", "detail", "color", "closed", "created_at"]))
            let upsertItem = try db.cachedStatement(
                sql: Self.upsertSQL(
                    "items",
                    [
                        "project_id", "title", "detail", "priority", "completed", "created_at", "author", "assignees",
                        "resolution", "closed_at", "source_url", "source_key",
                    ]))
            var written = 0
            /// Writes one record with `statement`, counts it as added (it did not exist), updated or unchanged, and
            /// reports progress.
            func upsert(
                _ statement: Statement, _ arguments: StatementArguments, existed: Bool,
                added: WritableKeyPath<ImportSummary, Int>, updated: WritableKeyPath<ImportSummary, Int>
            ) throws {
                try statement.execute(arguments: arguments)
                if !existed {
                    summary[keyPath: added] += 1
                } else if db.changesCount > 0 {
                    summary[keyPath: updated] += 1
                } else {
                    summary.unchanged += 1
                }
                written += 1
                if written % Self.progressStep == 0 || written == records.count {
                    progress?(ImportProgress(stage: .writing, done: written, total: records.count))
                }
            }
            // Projects first, so that an item may precede its project in the file.
            for case (_, .project(let p)) in records {
                try upsert(
                    upsertProject, [p.id, p.title, p.detail, p.color, p.isClosed, p.createdAt, p.modifiedAt],
                    existed: existingProjects.contains(p.id), added: \.projectsAdded, updated: \.projectsUpdated)
            }
            // Items, then their tags, then their links (whose targets may come later in the file): an item counts
            // as updated when its row or any of these changed.
            var stored: [String: ItemTracking] = [:]
            var changedItems = Set<String>()
            for case (_, .item(let i)) in records {
                let t = i.tracking
                let existed = existingItems.contains(i.id)
                if existed, let item = try self.fetchItem(db, i.id) { stored[i.id] = item.tracking }
                try upsertItem.execute(arguments: [
                    i.id, i.projectID, i.title, i.detail, i.priority, i.isCompleted, i.createdAt, t.author,
                    ItemTracking.encode(names: t.assignees), t.resolution, t.closedAt, t.sourceURL, t.sourceKey,
                    i.modifiedAt,
                ])
                if existed, db.changesCount > 0 { changedItems.insert(i.id) }
                var before = t
                (before.tags, before.links) = (stored[i.id]?.tags ?? [], stored[i.id]?.links ?? [])
                var after = before
                after.tags = t.tags
                if try writeTracking(db, itemID: i.id, from: before, to: after) { changedItems.insert(i.id) }
            }
            for case (_, .item(let i)) in records {
                var before = i.tracking
                before.links = stored[i.id]?.links ?? []
                if try writeTracking(db, itemID: i.id, from: before, to: i.tracking) { changedItems.insert(i.id) }
                if existingItems.contains(i.id) {
                    if changedItems.contains(i.id) { summary.itemsUpdated += 1 } else { summary.unchanged += 1 }
                } else {
                    summary.itemsAdded += 1
                }
                written += 1
                if written % Self.progressStep == 0 || written == records.count {
                    progress?(ImportProgress(stage: .writing, done: written, total: records.count))
                }
            }
            guard hasMessages else { return summary }
            // Messages last: what they are on is in place by now.
            let upsertMessage = try db.cachedStatement(
                sql: Self.upsertSQL("messages", ["project_id", "item_id", "author", "text", "created_at"]))
            let existingMessages = try Set(String.fetchAll(db, sql: "SELECT id FROM messages"))
            for case (_, .message(let m)) in records {
                try upsert(
                    upsertMessage, [m.id, m.projectID, m.itemID, m.author, m.text, m.createdAt, m.modifiedAt],
                    existed: existingMessages.contains(m.id), added: \.messagesAdded, updated: \.messagesUpdated)
            }
            return summary
        }
    }

    /// `INSERT … ON CONFLICT (id) DO UPDATE` of a row of `table`: `id`, `columns`, then `modified_at`, bound in that
    /// order. An existing row is changed only where a column differs, so that a row imported again unchanged is
    /// counted unchanged and logs no change; its `modified_at` is the store's own (the update trigger sets it).
    static func upsertSQL(_ table: String, _ columns: [String]) -> String {
        let all = ["id"] + columns + ["modified_at"]
        return """
            INSERT INTO \(table) (\(all.joined(separator: ", "))) VALUES (\(all.map { _ in "?" }.joined(separator: ", ")))
            ON CONFLICT (id) DO UPDATE SET \(columns.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
            WHERE \(columns.map { "\($0) IS NOT excluded.\($0)" }.joined(separator: " OR "))
            """
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

extension TrackerStore {
    /// Imports a tracker's export (``ImportFormat``, not ``ImportFormat/spotlite``): all of it in one transaction, or
    /// nothing, as ``importJSONLines(_:)``. Every record gets a stable id (``StableID``) from its tracker's id, so
    /// importing an updated export changes only what changed. Links to issues neither in the export nor in the
    /// store, and links of an issue to itself, are left out, and counted in the notes.
    ///
    /// `trackerURL` is the tracker's address (``trackerAddress(_:)``), for exports that give no issue's page
    /// (Bugzilla's, Jira's CSV): an issue without one gets its page there.
    ///
    /// Throws ``StoreError/Code-swift.struct/invalidInput`` naming the record that cannot be read (`record 3 (12):
    /// …`, `line 4: …`).
    public func importExport(
        _ data: Data, format: ImportFormat, fileName: String = "", includePullRequests: Bool = false,
        trackerURL: String? = nil, progress: ((ImportProgress) -> Void)? = nil
    ) throws(StoreError) -> (summary: ImportSummary, notes: ExternalImportNotes) {
        try checkWritable()
        let base = try trackerURL.map(Self.trackerAddress)
        var notes = ExternalImportNotes()
        var issues: [ExternalIssue]
        do {
            switch format {
            case .github:
                issues = try TrackerExports.github(data, includePullRequests: includePullRequests, notes: &notes)
            case .jira: issues = try TrackerExports.jira(data)
            case .bugzilla: issues = try TrackerExports.bugzilla(data)
            case .jiraCSV, .bugzillaCSV: issues = try TrackerExports.csv(data, format: format, fileName: fileName)
            case .spotlite:
                throw TrackerExports.Failure(
                    place: "the input", reason: "is Spotlite's JSON Lines: import it without --from")
            }
        } catch let error as TrackerExports.Failure {
            throw StoreError(.invalidInput, error.message)
        } catch {
            throw StoreError(.invalidInput, "cannot read the \(format.rawValue) export: \(error)")
        }
        if let base {
            for index in issues.indices where issues[index].tracking.sourceURL.isEmpty {
                issues[index].tracking.sourceURL = issues[index].page(on: base) ?? ""
            }
        }
        var records = try ExternalIssue.records(issues, now: Self.unstatedTime, notes: &notes)
        let inFile = Set(issues.map(\.itemID))
        let stored = try read { reader in try reader.itemIDs() }
        for index in records.indices {
            guard case .item(var item) = records[index].record else { continue }
            // (A link to itself, which trackers allow, is left out too: the store refuses it.)
            let kept = item.tracking.links.filter {
                $0.itemID != item.id && (inFile.contains($0.itemID) || stored.contains($0.itemID))
            }
            notes.linksLeftOut += item.tracking.links.count - kept.count
            item.tracking.links = kept
            records[index].record = .item(item)
        }
        let places = issues.map { "\($0.place) (\($0.id))" }
        let place = { (line: Int) in places.indices.contains(line - 1) ? places[line - 1] : "record \(line)" }
        return (try importRecords(records, progress: progress, place: place), notes)
    }
}
