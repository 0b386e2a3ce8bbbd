import Foundation
import GRDB

/// A change to some fields of an item; nil fields stay as they are.
public struct ItemChanges: Sendable {
    public var title: String?
    public var detail: String?
    public var priority: Int?
    public var isCompleted: Bool?
    public var projectID: String?
    /// Changes the item's tracker fields, given them as stored (after the change of ``isCompleted``, if any).
    public var tracking: (@Sendable (inout ItemTracking) -> Void)?

    public init(
        title: String? = nil, detail: String? = nil, priority: Int? = nil, isCompleted: Bool? = nil,
        projectID: String? = nil, tracking: (@Sendable (inout ItemTracking) -> Void)? = nil
    ) {
        self.title = title
        self.detail = detail
        self.priority = priority
        self.isCompleted = isCompleted
        self.projectID = projectID
        self.tracking = tracking
    }
}

/// A change to some fields of a project; nil fields stay as they are.
public struct ProjectChanges: Sendable {
    public var title: String?
    public var detail: String?
    public var isClosed: Bool?

    public init(title: String? = nil, detail: String? = nil, isClosed: Bool? = nil) {
        self.title = title
        self.detail = detail
        self.isClosed = isClosed
    }
}

/// Checks on what callers write; the schema's CHECKs back them up for writers that skip this code.
enum Validation {
    static func title(_ title: String, of what: String) throws(StoreError) -> String {
        try text(title, field: "title")
        let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { throw StoreError(.invalidInput, "the \(what) title is empty; give it a few words") }
        return trimmed
    }

    static func priority(_ priority: Int) throws(StoreError) {
        if !Item.priorities.contains(priority) {
            throw StoreError(.invalidInput, "priority \(priority) is out of range; use 1 (low), 2 (medium) or 3 (high)")
        }
    }

    static func message(text: String, author: String) throws(StoreError) {
        try Validation.text(text, field: "message")
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw StoreError(.invalidInput, "the message is empty; say something")
        }
        if text.utf8.count > Message.maximumTextBytes {
            throw StoreError(
                .invalidInput,
                "the message is \(text.utf8.count) bytes, over the limit of \(Message.maximumTextBytes); shorten it")
        }
        _ = try line(author, field: "author's name", maximumBytes: Message.maximumAuthorBytes)
    }

    /// A one-line field (a name, a tag, a resolution, a key), trimmed: shown on one line everywhere (search,
    /// messages, the pages), it holds no line break, no escape sequence, nothing that reorders the text after it.
    static func line(_ value: String, field: String, maximumBytes: Int) throws(StoreError) -> String {
        try text(value, field: field)
        if value.utf8.count > maximumBytes {
            throw StoreError(.invalidInput, "the \(field) is over \(maximumBytes) bytes; shorten it")
        }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        if let control = trimmed.unicodeScalars.first(where: { VisibleText.isControl($0) }) {
            throw StoreError(
                .invalidInput,
                "the \(field) holds the control character \(VisibleText.escaped(String(control))); "
                    + (field.hasSuffix("name") ? "give a name of printable characters" : "use printable characters"))
        }
        return trimmed
    }

    /// The tracker fields as the store keeps them (trimmed, each tag, name and link once, in order), or an error
    /// naming the first field that cannot be stored.
    static func tracking(_ tracking: ItemTracking) throws(StoreError) -> ItemTracking {
        var result = ItemTracking()
        let nameBytes = Message.maximumAuthorBytes
        result.author = try line(tracking.author, field: "author's name", maximumBytes: nameBytes)
        var assignees: [String] = []
        for name in tracking.assignees {
            let name = try line(name, field: "assignee's name", maximumBytes: nameBytes)
            if name.isEmpty { throw StoreError(.invalidInput, "an assignee's name is empty; give a name") }
            assignees.append(name)
        }
        result.assignees = ItemTracking.canonicalNames(assignees)
        try count(result.assignees.count, "assignees", ItemTracking.maximumAssignees)
        var tags: [String] = []
        for tag in tracking.tags {
            let tag = try line(tag, field: "tag", maximumBytes: ItemTracking.maximumTagBytes)
            if tag.isEmpty { throw StoreError(.invalidInput, "a tag is empty; give it a word") }
            tags.append(tag)
        }
        result.tags = ItemTracking.canonicalTags(tags)
        try count(result.tags.count, "tags", ItemTracking.maximumTags)
        result.resolution = try line(
            tracking.resolution, field: "resolution", maximumBytes: ItemTracking.maximumTagBytes)
        if let closed = tracking.closedAt {
            guard let normalized = Timestamp.normalize(closed) else {
                throw StoreError(
                    .invalidInput,
                    "the closing time '\(closed)' is not a real time; use ISO 8601 like 2024-05-01T09:30:00Z")
            }
            result.closedAt = normalized
        }
        for link in tracking.links {
            if let problem = TrackerURI.uuidProblem(link.itemID) ?? link.storeID.flatMap(TrackerURI.uuidProblem) {
                throw StoreError(.invalidInput, "a link's target \(problem)")
            }
        }
        result.links = ItemTracking.canonicalLinks(tracking.links)
        try count(result.links.count, "links", ItemTracking.maximumLinks)
        result.sourceKey = try line(tracking.sourceKey, field: "source key", maximumBytes: ItemTracking.maximumTagBytes)
        if result.sourceKey.contains(where: \.isWhitespace) {
            throw StoreError(
                .invalidInput, "the source key '\(result.sourceKey)' holds a space; give one word like HADOOP-1234")
        }
        let url = try line(tracking.sourceURL, field: "source URL", maximumBytes: ItemTracking.maximumURLBytes)
        if !url.isEmpty {
            let lower = url.lowercased()
            guard lower.hasPrefix("https://") || lower.hasPrefix("http://"), url.count > 8,
                !url.contains(where: \.isWhitespace)
            else {
                throw StoreError(
                    .invalidInput, "the source URL '\(url)' is not an http(s) address; give one like https://host/path")
            }
        }
        result.sourceURL = url
        return result
    }

    private static func count(_ count: Int, _ what: String, _ maximum: Int) throws(StoreError) {
        if count > maximum {
            throw StoreError(.invalidInput, "an item has \(count) \(what), over the limit of \(maximum)")
        }
    }

    static func text(_ text: String, field: String) throws(StoreError) {
        if text.utf8.contains(0) {
            throw StoreError(.invalidInput, "the \(field) contains a NUL character; remove it")
        }
    }
}

extension TrackerStore {
    /// Adds a project.
    @discardableResult
    public func addProject(title: String, detail: String = "", color: String = "") throws(StoreError) -> Project {
        let title = try Validation.title(title, of: "project")
        try Validation.text(detail, field: "detail")
        return try write { db in
            try Project.fetchOne(
                db,
                sql: "INSERT INTO projects (title, detail, color) VALUES (?, ?, ?) RETURNING \(Project.columns)",
                arguments: [title, detail, color])!
        }
    }

    /// Adds an item to a project. Throws ``StoreError/Code-swift.struct/notFound`` if the project is gone.
    @discardableResult
    public func addItem(
        projectID: String, title: String, detail: String = "", priority: Int = 2, isCompleted: Bool = false,
        tracking: ItemTracking = ItemTracking()
    ) throws(StoreError) -> Item {
        let title = try Validation.title(title, of: "item")
        try Validation.text(detail, field: "detail")
        try Validation.priority(priority)
        var tracking = try Validation.tracking(tracking)
        if isCompleted, tracking.closedAt == nil { tracking.closedAt = Timestamp.string(from: Date()) }
        return try write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM projects WHERE id = ?", arguments: [projectID]) != nil
            else {
                throw StoreError(.notFound, "no project \(uri(.project, projectID)) in this store")
            }
            let columns = Self.trackingColumns(from: ItemTracking(), to: tracking)
            let names = (["project_id", "title", "detail", "priority", "completed"] + columns.map(\.column))
            let id = try String.fetchOne(
                db,
                sql: """
                    INSERT INTO items (\(names.joined(separator: ", ")))
                    VALUES (\(names.map { _ in "?" }.joined(separator: ", "))) RETURNING id
                    """,
                arguments: StatementArguments([projectID, title, detail, priority, isCompleted] + columns.map(\.value)))!
            var columnsWritten = tracking
            (columnsWritten.tags, columnsWritten.links) = ([], [])
            try self.writeTracking(db, itemID: id, from: columnsWritten, to: tracking)
            return try self.fetchItem(db, id)!
        }
    }

    /// Writes an item's tracker fields where they differ from `old` (what is stored): its columns in one update, and
    /// only the tags and links added or removed. Links to this store's items need their target to be there. Returns
    /// whether anything was written.
    @discardableResult
    func writeTracking(_ db: Database, itemID: String, from old: ItemTracking, to new: ItemTracking) throws -> Bool {
        var changed = false
        let differing = Self.trackingColumns(from: old, to: new)
        if !differing.isEmpty {
            try db.execute(
                sql: "UPDATE items SET \(differing.map { "\($0.column) = ?" }.joined(separator: ", ")) WHERE id = ?",
                arguments: StatementArguments(differing.map(\.value) + [itemID]))
            changed = true
        }
        return try writeTagsAndLinks(db, itemID: itemID, from: old, to: new) || changed
    }

    /// The items table's columns of the tracker fields that differ from `old` to `new`, with their new values.
    static func trackingColumns(from old: ItemTracking, to new: ItemTracking) -> [(
        column: String, value: (any DatabaseValueConvertible)?
    )] {
        let columns: [(String, (ItemTracking) -> (any DatabaseValueConvertible)?)] = [
            ("author", { $0.author }), ("assignees", { ItemTracking.encode(names: $0.assignees) }),
            ("resolution", { $0.resolution }), ("closed_at", { $0.closedAt }), ("source_url", { $0.sourceURL }),
            ("source_key", { $0.sourceKey }),
        ]
        return columns.compactMap { column, value in
            value(old)?.databaseValue == value(new)?.databaseValue ? nil : (column, value(new))
        }
    }

    /// Adds and removes tags and links from `old`'s to `new`'s; returns whether anything was written.
    private func writeTagsAndLinks(_ db: Database, itemID: String, from old: ItemTracking, to new: ItemTracking) throws
        -> Bool
    {
        var changed = false
        let oldTags = Set(old.tags)
        let newTags = Set(new.tags)
        for tag in oldTags.subtracting(newTags) {
            try db.execute(sql: "DELETE FROM tags WHERE item_id = ? AND title = ?", arguments: [itemID, tag])
            changed = true
        }
        for tag in new.tags where !oldTags.contains(tag) {
            try db.execute(sql: "INSERT INTO tags (item_id, title) VALUES (?, ?)", arguments: [itemID, tag])
            changed = true
        }
        let oldLinks = Set(old.links)
        let newLinks = Set(new.links.map(local))
        for link in oldLinks.subtracting(newLinks) {
            try db.execute(
                sql: "DELETE FROM links WHERE item_id = ? AND kind = ? AND target_item = ? AND target_store = ?",
                arguments: [itemID, link.kind.rawValue, link.itemID, link.storeID ?? ""])
            changed = true
        }
        for link in newLinks.subtracting(oldLinks).sorted() {
            if link.storeID == nil {
                if link.itemID == itemID {
                    throw StoreError(.invalidInput, "an item cannot link to itself (\(uri(.item, itemID)))")
                }
                if try Bool.fetchOne(db, sql: "SELECT 1 FROM items WHERE id = ?", arguments: [link.itemID]) == nil {
                    throw StoreError(
                        .notFound,
                        "no item \(uri(.item, link.itemID)) in this store to link to as \(link.kind.rawValue)")
                }
            }
            try db.execute(
                sql: "INSERT INTO links (item_id, kind, target_item, target_store) VALUES (?, ?, ?, ?)",
                arguments: [itemID, link.kind.rawValue, link.itemID, link.storeID ?? ""])
            changed = true
        }
        return changed
    }

    /// Changes an item; returns it as stored. Throws ``StoreError/Code-swift.struct/notFound`` if it is gone.
    @discardableResult
    public func updateItem(id: String, _ changes: ItemChanges) throws(StoreError) -> Item {
        var sets: [String] = []
        var arguments: StatementArguments = []
        if let title = changes.title {
            sets.append("title = ?")
            arguments += [try Validation.title(title, of: "item")]
        }
        if let detail = changes.detail {
            try Validation.text(detail, field: "detail")
            sets.append("detail = ?")
            arguments += [detail]
        }
        if let priority = changes.priority {
            try Validation.priority(priority)
            sets.append("priority = ?")
            arguments += [priority]
        }
        if let completed = changes.isCompleted {
            sets.append("completed = ?")
            arguments += [completed]
        }
        if let projectID = changes.projectID {
            sets.append("project_id = ?")
            arguments += [projectID]
        }
        let now = Timestamp.string(from: Date())
        return try write { db in
            guard let stored = try self.fetchItem(db, id) else {
                throw StoreError(.notFound, "no item \(uri(.item, id)) in this store (deleted?)")
            }
            var tracking = stored.tracking
            // Closing an item records when; opening it again forgets when and how it was closed.
            if let completed = changes.isCompleted, completed != stored.isCompleted {
                tracking.closedAt = completed ? (tracking.closedAt ?? now) : nil
                if !completed { tracking.resolution = "" }
            }
            changes.tracking?(&tracking)
            tracking = try Validation.tracking(tracking)
            // One UPDATE for the row's columns, so that one edit is one change.
            var sets = sets
            var arguments = arguments
            for (column, value) in Self.trackingColumns(from: stored.tracking, to: tracking) {
                sets.append("\(column) = ?")
                arguments += [value]
            }
            if !sets.isEmpty {
                try db.execute(
                    sql: "UPDATE items SET \(sets.joined(separator: ", ")) WHERE id = ?", arguments: arguments + [id])
            }
            var columnsWritten = tracking
            (columnsWritten.tags, columnsWritten.links) = (stored.tracking.tags, stored.tracking.links)
            try self.writeTracking(db, itemID: id, from: columnsWritten, to: tracking)
            return try self.fetchItem(db, id)!
        }
    }

    /// Changes a project; returns it as stored.
    @discardableResult
    public func updateProject(id: String, _ changes: ProjectChanges) throws(StoreError) -> Project {
        var sets: [String] = []
        var arguments: StatementArguments = []
        if let title = changes.title {
            sets.append("title = ?")
            arguments += [try Validation.title(title, of: "project")]
        }
        if let detail = changes.detail {
            try Validation.text(detail, field: "detail")
            sets.append("detail = ?")
            arguments += [detail]
        }
        if let closed = changes.isClosed {
            sets.append("closed = ?")
            arguments += [closed]
        }
        arguments += [id]
        return try write { db in
            guard try self.fetchProject(db, id) != nil else {
                throw StoreError(.notFound, "no project \(uri(.project, id)) in this store (deleted?)")
            }
            if !sets.isEmpty {
                try db.execute(
                    sql: "UPDATE projects SET \(sets.joined(separator: ", ")) WHERE id = ?", arguments: arguments)
            }
            return try self.fetchProject(db, id)!
        }
    }

    /// Deletes an item. Throws ``StoreError/Code-swift.struct/notFound`` if it is already gone.
    public func deleteItem(id: String) throws(StoreError) {
        try write { db in
            try db.execute(sql: "DELETE FROM items WHERE id = ?", arguments: [id])
            if db.changesCount == 0 {
                throw StoreError(.notFound, "no item \(uri(.item, id)) in this store (deleted?)")
            }
        }
    }

    /// Deletes a project and, through the store's trigger, all its items. Returns how many items went.
    @discardableResult
    public func deleteProject(id: String) throws(StoreError) -> Int {
        try write { db in
            let items =
                try Int.fetchOne(db, sql: "SELECT count(*) FROM items WHERE project_id = ?", arguments: [id]) ?? 0
            try db.execute(sql: "DELETE FROM projects WHERE id = ?", arguments: [id])
            if db.changesCount == 0 {
                throw StoreError(.notFound, "no project \(uri(.project, id)) in this store (deleted?)")
            }
            return items
        }
    }

    /// Adds a message on a project or an item. Throws ``StoreError/Code-swift.struct/notFound`` if that is gone,
    /// ``StoreError/Code-swift.struct/invalidInput`` for an empty or oversized text.
    @discardableResult
    public func addMessage(on parent: Message.Parent, author: String = "", text: String) throws(StoreError) -> Message {
        try Validation.message(text: text, author: author)
        let author = author.trimmingCharacters(in: .whitespacesAndNewlines)
        return try write { db in
            guard try db.tableExists("messages") else {
                throw StoreError(.readOnly, "this store predates messages; open it writable once to upgrade it")
            }
            let (column, id, table, kind): (String, String, String, TrackerURI.Kind) =
                switch parent {
                case .project(let id): ("project_id", id, "projects", .project)
                case .item(let id): ("item_id", id, "items", .item)
                }
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM \(table) WHERE id = ?", arguments: [id]) != nil else {
                throw StoreError(.notFound, "no \(kind.rawValue) \(uri(kind, id)) in this store (deleted?)")
            }
            return try Message.fetchOne(
                db,
                sql: "INSERT INTO messages (\(column), author, text) VALUES (?, ?, ?) RETURNING \(Message.columns)",
                arguments: [id, author, text])!
        }
    }

    /// Deletes a message. Throws ``StoreError/Code-swift.struct/notFound`` if it is already gone.
    public func deleteMessage(id: String) throws(StoreError) {
        try write { db in
            guard try db.tableExists("messages") else {
                throw StoreError(.notFound, "no message \(uri(.message, id)) in this store")
            }
            try db.execute(sql: "DELETE FROM messages WHERE id = ?", arguments: [id])
            if db.changesCount == 0 {
                throw StoreError(.notFound, "no message \(uri(.message, id)) in this store (deleted?)")
            }
        }
    }

    func fetchItem(_ db: Database, _ id: String) throws -> Item? {
        try Item.fetchOne(db, sql: "SELECT \(Item.columns) FROM items WHERE id = ?", arguments: [id])
    }

    private func fetchProject(_ db: Database, _ id: String) throws -> Project? {
        try Project.fetchOne(db, sql: "SELECT \(Project.columns) FROM projects WHERE id = ?", arguments: [id])
    }
}

extension TrackerStore {
    /// The link as the store keeps it: a target in this store names no store.
    public func local(_ link: ItemLink) -> ItemLink {
        var link = link
        if link.storeID == uuid { link.storeID = nil }
        return link
    }
}
