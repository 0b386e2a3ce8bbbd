/// A project: a container of items, and a domain in the search index.
public struct Project: Hashable, Sendable {
    public var id: String
    public var title: String
    public var detail: String
    public var color: String
    public var isClosed: Bool
    /// ISO 8601 UTC, second precision: `2024-05-01T09:30:00Z`.
    public var createdAt: String
    public var modifiedAt: String

    public init(
        id: String, title: String, detail: String = "", color: String = "", isClosed: Bool = false,
        createdAt: String, modifiedAt: String
    ) {
        self.id = id
        self.title = title
        self.detail = detail
        self.color = color
        self.isClosed = isClosed
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
    }
}

/// An item (a task) in a project.
public struct Item: Hashable, Sendable {
    public var id: String
    public var projectID: String
    public var title: String
    public var detail: String
    /// 1 (low) … 3 (high).
    public var priority: Int
    public var isCompleted: Bool
    public var createdAt: String
    public var modifiedAt: String

    public init(
        id: String, projectID: String, title: String, detail: String = "", priority: Int = 2,
        isCompleted: Bool = false, createdAt: String, modifiedAt: String
    ) {
        self.id = id
        self.projectID = projectID
        self.title = title
        self.detail = detail
        self.priority = priority
        self.isCompleted = isCompleted
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
    }

    /// The valid priorities.
    public static let priorities = 1...3
}

/// A chat message on a project or on an item: who wrote it, what it says.
public struct Message: Hashable, Sendable {
    /// What a message is on.
    public enum Parent: Hashable, Sendable {
        case project(id: String)
        case item(id: String)
    }

    public var id: String
    public var parent: Parent
    /// Who wrote it, as they want to be called (may be empty).
    public var author: String
    public var text: String
    public var createdAt: String
    public var modifiedAt: String

    public init(id: String, parent: Parent, author: String = "", text: String, createdAt: String, modifiedAt: String) {
        self.id = id
        self.parent = parent
        self.author = author
        self.text = text
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
    }

    /// The project id when the message is on a project.
    public var projectID: String? {
        if case .project(let id) = parent { return id }
        return nil
    }

    /// The item id when the message is on an item.
    public var itemID: String? {
        if case .item(let id) = parent { return id }
        return nil
    }

    /// A message's text is at most this many bytes (UTF-8): chat, not documents.
    public static let maximumTextBytes = 64 * 1024
    /// An author's name is at most this many bytes.
    public static let maximumAuthorBytes = 200
}
