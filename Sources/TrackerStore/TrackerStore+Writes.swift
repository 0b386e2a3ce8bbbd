import GRDB

/// A change to some fields of an item; nil fields stay as they are.
public struct ItemChanges: Sendable {
    public var title: String?
    public var detail: String?
    public var priority: Int?
    public var isCompleted: Bool?
    public var projectID: String?

    public init(
        title: String? = nil, detail: String? = nil, priority: Int? = nil, isCompleted: Bool? = nil,
        projectID: String? = nil
    ) {
        self.title = title
        self.detail = detail
        self.priority = priority
        self.isCompleted = isCompleted
        self.projectID = projectID
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
        try Validation.text(author, field: "author")
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw StoreError(.invalidInput, "the message is empty; say something")
        }
        if text.utf8.count > Message.maximumTextBytes {
            throw StoreError(
                .invalidInput,
                "the message is \(text.utf8.count) bytes, over the limit of \(Message.maximumTextBytes); shorten it")
        }
        if author.utf8.count > Message.maximumAuthorBytes {
            throw StoreError(.invalidInput, "the author's name is over \(Message.maximumAuthorBytes) bytes; shorten it")
        }
        // A name is shown on one line everywhere (search, messages, the pages): it holds no line break, no escape
        // sequence, nothing that reorders the text after it. (Spaces around it are trimmed when it is stored.)
        let name = author.trimmingCharacters(in: .whitespacesAndNewlines)
        if let control = name.unicodeScalars.first(where: { VisibleText.isControl($0) }) {
            throw StoreError(
                .invalidInput,
                "the author's name holds the control character \(VisibleText.escaped(String(control))); "
                    + "give a name of printable characters")
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
        projectID: String, title: String, detail: String = "", priority: Int = 2, isCompleted: Bool = false
    ) throws(StoreError) -> Item {
        let title = try Validation.title(title, of: "item")
        try Validation.text(detail, field: "detail")
        try Validation.priority(priority)
        return try write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM projects WHERE id = ?", arguments: [projectID]) != nil
            else {
                throw StoreError(.notFound, "no project \(uri(.project, projectID)) in this store")
            }
            return try Item.fetchOne(
                db,
                sql: """
                    INSERT INTO items (project_id, title, detail, priority, completed) VALUES (?, ?, ?, ?, ?)
                    RETURNING \(Item.columns)
                    """,
                arguments: [projectID, title, detail, priority, isCompleted])!
        }
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
        arguments += [id]
        return try write { db in
            guard try self.fetchItem(db, id) != nil else {
                throw StoreError(.notFound, "no item \(uri(.item, id)) in this store (deleted?)")
            }
            if !sets.isEmpty {
                try db.execute(
                    sql: "UPDATE items SET \(sets.joined(separator: ", ")) WHERE id = ?", arguments: arguments)
            }
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

    private func fetchItem(_ db: Database, _ id: String) throws -> Item? {
        try Item.fetchOne(db, sql: "SELECT \(Item.columns) FROM items WHERE id = ?", arguments: [id])
    }

    private func fetchProject(_ db: Database, _ id: String) throws -> Project? {
        try Project.fetchOne(db, sql: "SELECT \(Project.columns) FROM projects WHERE id = ?", arguments: [id])
    }
}
