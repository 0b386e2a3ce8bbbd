import GRDB

/// Reads from one store snapshot; valid only inside ``TrackerStore/read(_:)``.
public struct StoreReader {
    let db: Database
    /// The store's UUID.
    public let storeID: String

    /// SQLite's limit on bound parameters is 32,766 here; stay well below it.
    static let chunkSize = 500
    /// Items a streaming read (``forEachItem(inRuns:batch:_:)``) hands over at a time, unless told otherwise:
    /// enough to make the hand-over cheap, little memory.
    public static let streamBatch = 500

    public func project(id: String) throws -> Project? {
        try Project.fetchOne(db, sql: "SELECT \(Project.columns) FROM projects WHERE id = ?", arguments: [id])
    }

    /// Links to items of this store that are gone (their target was deleted), by linking item and kind.
    public func danglingLinks() throws -> [(itemID: String, kind: String, targetID: String)] {
        guard try db.tableExists("links") else { return [] }
        return try Row.fetchAll(
            db,
            sql: """
                SELECT item_id, kind, target_item FROM links
                WHERE target_store = '' AND NOT EXISTS (SELECT 1 FROM items WHERE items.id = links.target_item)
                ORDER BY item_id, kind, target_item
                """
        ).map { ($0[0], $0[1], $0[2]) }
    }

    /// The known duplicate groups around `ids`: for each of them that has one, the items the store's `duplicate-of`
    /// links join it to (either way, through any number of links within this store), itself included. Links from or
    /// to an item of `ignoring` are left out. A group is followed to `limit` items at most.
    public func duplicateGroups(
        around ids: some Collection<String>, ignoring: Set<String> = [], limit: Int = 1_000
    ) throws -> [String: Set<String>] {
        guard try db.tableExists("links") else { return [:] }
        var parent: [String: String] = [:]
        func root(_ id: String) -> String {
            var id = id
            while let up = parent[id], up != id { id = up }
            return id
        }
        var seen = Set(ids)
        var frontier = seen.subtracting(ignoring)
        while !frontier.isEmpty, seen.count < limit {
            var next = Set<String>()
            for chunk in Array(frontier).chunked(Self.chunkSize / 2) {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let statement = try db.cachedStatement(
                    sql: """
                        SELECT item_id, target_item FROM links WHERE kind = 'duplicate-of' AND target_store = ''
                        AND (item_id IN (\(marks)) OR target_item IN (\(marks)))
                        """)
                for row in try Row.fetchAll(statement, arguments: StatementArguments(Array(chunk) + Array(chunk))) {
                    let (from, to): (String, String) = (row[0], row[1])
                    guard from != to, !ignoring.contains(from), !ignoring.contains(to) else { continue }
                    let (a, b) = (root(from), root(to))
                    if a != b { parent[a] = b }
                    parent[from] = parent[from] ?? from
                    parent[to] = parent[to] ?? to
                    for id in [from, to] where seen.insert(id).inserted { next.insert(id) }
                }
            }
            frontier = next
        }
        var members: [String: Set<String>] = [:]
        for id in parent.keys { members[root(id), default: []].insert(id) }
        var groups: [String: Set<String>] = [:]
        for id in ids { if parent[id] != nil, let group = members[root(id)] { groups[id] = group } }
        return groups
    }

    /// The ids of every item.
    public func itemIDs() throws -> Set<String> { Set(try String.fetchAll(db, sql: "SELECT id FROM items")) }

    public func item(id: String) throws -> Item? {
        try Item.fetchOne(db, sql: "SELECT \(Item.columns) FROM items WHERE id = ?", arguments: [id])
    }

    /// The projects with these ids that exist, keyed by id.
    public func projects<S: Sequence>(ids: S) throws -> [String: Project] where S.Element == String {
        let found = try rows(Project.self, Self.projectsByID, ids)
        return Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The items with these ids that exist, keyed by id.
    public func items<S: Sequence>(ids: S) throws -> [String: Item] where S.Element == String {
        let found = try rows(Item.self, "SELECT \(Item.columns) FROM items WHERE id IN", ids)
        return Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Projects by id, in the columns of Project.columns, ending in `… IN`.
    static let projectsByID = "SELECT \(Project.columns) FROM projects WHERE id IN"

    /// The join that finds items with their projects (``ItemInProject``), ending in `… IN`.
    static let itemsInProjects =
        "SELECT \(ItemInProject.columns) FROM items JOIN projects ON projects.id = items.project_id WHERE items.id IN"

    /// Every item of these projects (in insertion order within each 500 projects).
    public func items<S: Sequence>(inProjects projectIDs: S) throws -> [Item] where S.Element == String {
        try rows(Item.self, "SELECT \(Item.columns) FROM items WHERE project_id IN", projectIDs, then: "ORDER BY rowid")
    }

    /// The rows `select` (ending in `… IN`) finds for the distinct `values`: one query per 500 values, each
    /// statement cached per number of values — a search resolves its page this way, and preparing the SQL
    /// each time was most of the cost.
    private func rows<R: FetchableRecord, S: Sequence>(
        _ type: R.Type, _ select: String, _ values: S, then tail: String = ""
    ) throws -> [R] where S.Element == String {
        var result: [R] = []
        for chunk in Array(Set(values)).chunked(Self.chunkSize) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let statement = try db.cachedStatement(sql: "\(select) (\(marks)) \(tail)")
            result += try R.fetchAll(statement, arguments: StatementArguments(chunk))
        }
        return result
    }

    /// Projects whose title equals `title`, ignoring case and surrounding spaces.
    public func projects(titled title: String) throws -> [Project] {
        try Project.fetchAll(
            db,
            sql:
                "SELECT \(Project.columns) FROM projects WHERE lower(trim(title)) = lower(trim(?)) ORDER BY created_at, id",
            arguments: [title])
    }

    /// The titles of the first `limit` projects, in insertion order.
    public func allProjectTitles(limit: Int) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT title FROM projects ORDER BY rowid LIMIT ?", arguments: [limit])
    }

    /// Every project, in insertion order.
    public func allProjects() throws -> [Project] {
        try Project.fetchAll(db, sql: "SELECT \(Project.columns) FROM projects ORDER BY rowid")
    }

    /// Calls `body` for every item, in insertion order, without loading them all at once.
    public func forEachItem(_ body: (Item) throws -> Void) throws {
        try forEachItem(inRuns: 1, batch: Self.streamBatch) { _, items in
            for item in items { try body(item) }
        }
    }

    /// Every item in insertion order, cut into `runs` consecutive runs of about equal length that are read side
    /// by side: `body` gets up to `batch` items of run 0, then of run 1, and so on round, each run in order.
    /// For builders that each take one run and whose results are joined in run order.
    public func forEachItem(inRuns runs: Int, batch: Int, _ body: (_ run: Int, _ items: [Item]) throws -> Void) throws {
        // Run k starts at the rowid of the (k·count/runs)-th item; one run needs no count.
        var starts: [Int64] = [Int64.min]
        if runs > 1 {
            let count = try itemCount()
            let runs = min(runs, max(1, count))
            for run in 1..<runs {
                let start = try Int64.fetchOne(
                    db, sql: "SELECT rowid FROM items ORDER BY rowid LIMIT 1 OFFSET ?", arguments: [run * count / runs])
                starts.append(start ?? .max)
            }
        }
        let cursors = try starts.indices.map { run in
            run + 1 < starts.count
                ? try Item.fetchCursor(
                    db, sql: "SELECT \(Item.columns) FROM items WHERE rowid >= ? AND rowid < ? ORDER BY rowid",
                    arguments: [starts[run], starts[run + 1]])
                : try Item.fetchCursor(
                    db, sql: "SELECT \(Item.columns) FROM items WHERE rowid >= ? ORDER BY rowid",
                    arguments: [starts[run]])
        }
        var open = Array(cursors.indices)
        var items: [Item] = []
        items.reserveCapacity(batch)
        while !open.isEmpty {
            for run in open {
                while items.count < batch, let item = try cursors[run].next() { items.append(item) }
                if items.count < batch { open.removeAll { $0 == run } }
                if !items.isEmpty { try body(run, items) }
                items.removeAll(keepingCapacity: true)
            }
        }
    }

    /// About `count` items spread over the whole store: `runs` runs of consecutive items (in insertion order), their
    /// starts evenly spaced over the rowids; every item when there are no more than `count`. Reads only the rows it
    /// returns (a seek per run), not the table. For choosing what an index of the store should treat as common.
    public func sampleItems(count: Int, runs: Int = 40) throws -> [Item] {
        guard count > 0 else { return [] }
        let bounds = try Row.fetchOne(db, sql: "SELECT min(rowid), max(rowid) FROM items")
        guard let low: Int64 = bounds?[0], let high: Int64 = bounds?[1] else { return [] }
        let runs = max(1, min(runs, count))
        let perRun = max(1, count / runs)
        let statement = try db.cachedStatement(
            sql: "SELECT \(Item.columns), rowid FROM items WHERE rowid >= ? ORDER BY rowid LIMIT ?")
        var items: [Item] = []
        var next = low  // runs never overlap: one that ends past the next run's start moves that start on
        for run in 0..<runs {
            // In floating point: rowids are anything a sqlite3 shell wrote, and their span may not fit an Int64.
            let target = Double(low) + (Double(high) - Double(low)) * Double(run) / Double(runs)
            let start = max(next, target >= Double(Int64.max) ? high : Int64(target))
            guard start <= high else { break }
            let rows = try Row.fetchAll(statement, arguments: [start, perRun])
            items += rows.map(Item.init(row:))
            guard let last: Int64 = rows.last?[Item.columnCount], last < Int64.max else { break }
            next = last + 1
        }
        return items
    }

    // MARK: Messages (none in a store without the table: one written before v4, opened read-only)

    /// Whether the store has the messages table.
    public func hasMessages() throws -> Bool { try db.tableExists("messages") }

    public func message(id: String) throws -> Message? {
        guard try hasMessages() else { return nil }
        return try Message.fetchOne(db, sql: "SELECT \(Message.columns) FROM messages WHERE id = ?", arguments: [id])
    }

    /// The messages with these ids that exist, keyed by id.
    public func messages<S: Sequence>(ids: S) throws -> [String: Message] where S.Element == String {
        guard try hasMessages() else { return [:] }
        let found = try rows(Message.self, "SELECT \(Message.columns) FROM messages WHERE id IN", ids)
        return Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The messages on these projects (not on their items), oldest first.
    public func messages<S: Sequence>(onProjects ids: S) throws -> [Message] where S.Element == String {
        guard try hasMessages() else { return [] }
        return try rows(
            Message.self, "SELECT \(Message.columns) FROM messages WHERE project_id IN", ids,
            then: "ORDER BY created_at, rowid")
    }

    /// The messages on these items, oldest first.
    public func messages<S: Sequence>(onItems ids: S) throws -> [Message] where S.Element == String {
        guard try hasMessages() else { return [] }
        return try rows(
            Message.self, "SELECT \(Message.columns) FROM messages WHERE item_id IN", ids,
            then: "ORDER BY created_at, rowid")
    }

    /// Every message on these projects or on their items: what a project's change re-indexes (its title is in
    /// their documents, and its domain is theirs).
    public func messages<S: Sequence>(inProjects ids: S) throws -> [Message] where S.Element == String {
        guard try hasMessages() else { return [] }
        let projects = Array(ids)
        return try messages(onProjects: projects) + messages(onItems: items(inProjects: projects).map(\.id))
    }

    /// Calls `body` with every message, in insertion order, up to `batch` at a time.
    public func forEachMessage(batch: Int = streamBatch, _ body: ([Message]) throws -> Void) throws {
        guard try hasMessages() else { return }
        let cursor = try Message.fetchCursor(db, sql: "SELECT \(Message.columns) FROM messages ORDER BY rowid")
        var messages: [Message] = []
        while let message = try cursor.next() {
            messages.append(message)
            if messages.count == batch {
                try body(messages)
                messages.removeAll(keepingCapacity: true)
            }
        }
        if !messages.isEmpty { try body(messages) }
    }

    public func messageCount() throws -> Int {
        guard try hasMessages() else { return 0 }
        return try Int.fetchOne(db, sql: "SELECT count(*) FROM messages") ?? 0
    }

    /// The rows behind entity ids of each kind, keyed by kind and id (a page of search hits: one query per kind and
    /// 500 ids, the items joined with their projects when there are no messages); ids whose rows are gone are left
    /// out.
    public func entities(items itemIDs: [String], projects projectIDs: [String], messages messageIDs: [String])
        throws -> [TrackerURI.Kind: [String: StoreEntity]]
    {
        if messageIDs.isEmpty {
            // Items and projects (most pages of hits): the items each with its project, in one statement.
            var found: [TrackerURI.Kind: [String: StoreEntity]] = [.item: [:], .project: [:], .message: [:]]
            for row in try rows(ItemInProject.self, Self.itemsInProjects, itemIDs) {
                found[.item]![row.item.id] = .item(row.item, project: row.project)
            }
            for (id, project) in try projects(ids: projectIDs) { found[.project]![id] = .project(project) }
            return found
        }
        let messages = try self.messages(ids: messageIDs)
        let items = try self.items(ids: itemIDs + messages.values.compactMap(\.itemID))
        let projects = try self.projects(
            ids: Set(projectIDs).union(items.values.map(\.projectID)).union(messages.values.compactMap(\.projectID)))
        var found: [TrackerURI.Kind: [String: StoreEntity]] = [.item: [:], .project: [:], .message: [:]]
        for id in itemIDs {
            if let item = items[id], let project = projects[item.projectID] {
                found[.item]![id] = .item(item, project: project)
            }
        }
        for id in projectIDs {
            if let project = projects[id] { found[.project]![id] = .project(project) }
        }
        for (id, message) in messages {
            switch message.parent {
            case .project(let projectID):
                if let project = projects[projectID] {
                    found[.message]![id] = .message(message, project: project, item: nil)
                }
            case .item(let itemID):
                if let item = items[itemID], let project = projects[item.projectID] {
                    found[.message]![id] = .message(message, project: project, item: item)
                }
            }
        }
        return found
    }

    /// A message with its project and item, nil if they are gone.
    public func entity(of message: Message) throws -> StoreEntity? {
        switch message.parent {
        case .project(let id):
            return try project(id: id).map { .message(message, project: $0, item: nil) }
        case .item(let id):
            guard let item = try item(id: id), let project = try project(id: item.projectID) else { return nil }
            return .message(message, project: project, item: item)
        }
    }

    /// The project a message belongs to: its own, or its item's.
    public func projectID(of message: Message) throws -> String? {
        switch message.parent {
        case .project(let id): return id
        case .item(let id): return try item(id: id)?.projectID
        }
    }

    public func projectCount() throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM projects") ?? 0
    }

    public func itemCount() throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM items") ?? 0
    }

    /// The sequence number of the newest change ever logged (0 for none), even if pruned since.
    public func lastChangeSequence() throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT seq FROM sqlite_sequence WHERE name = 'change_log'")) ?? 0
    }

    /// Changes with `seq <= this` have been pruned from the log.
    public func logPrunedThrough() throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT log_pruned_through FROM store_info")) ?? 0
    }

    /// How many logged changes come after `sequence` (and not after `last`, when given).
    public func changeCount(after sequence: Int64, through last: Int64? = nil) throws -> Int {
        let statement = try db.cachedStatement(sql: "SELECT count(*) FROM change_log WHERE seq > ? AND seq <= ?")
        return try Int.fetchOne(statement, arguments: [sequence, last ?? Int64.max]) ?? 0
    }

    /// When the first change after `sequence` was logged (seconds since 1970), or nil if there is none.
    public func firstChangeTime(after sequence: Int64) throws -> Int64? {
        let text = try String.fetchOne(
            db, sql: "SELECT changed_at FROM change_log WHERE seq > ? ORDER BY seq LIMIT 1", arguments: [sequence])
        return text.flatMap(Timestamp.seconds)
    }
}

extension Array {
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
