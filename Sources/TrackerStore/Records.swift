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
