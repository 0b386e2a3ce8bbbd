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
    /// What a tracker knows of it besides: people, resolution, tags, links, where it came from.
    public var tracking: ItemTracking
    /// Who wrote its messages (their non-empty authors), each once, sorted by their bytes. Read from the store with
    /// the item, never written: an item is written without it, and a message changes it.
    public var commenters: [String]

    public init(
        id: String, projectID: String, title: String, detail: String = "", priority: Int = 2,
        isCompleted: Bool = false, createdAt: String, modifiedAt: String, tracking: ItemTracking = ItemTracking(),
        commenters: [String] = []
    ) {
        self.id = id
        self.projectID = projectID
        self.title = title
        self.detail = detail
        self.priority = priority
        self.isCompleted = isCompleted
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        self.tracking = tracking
        self.commenters = commenters
    }

    /// The valid priorities.
    public static let priorities = 1...3
}

/// An item's tracker fields, as issue trackers hold them (GitHub's labels and assignees, Jira's resolution and issue
/// links, Bugzilla's keywords and `dupe_of`). All empty for an item that uses none of them.
public struct ItemTracking: Hashable, Sendable {
    /// Who opened it (may be empty).
    public var author: String
    /// Who it is assigned to, each once, in the order given.
    public var assignees: [String]
    /// How it was closed, as the source says (`fixed`, `duplicate`, `wontfix`, …), or empty.
    public var resolution: String
    /// When it was closed (UTC seconds, as ``Item/createdAt``), or nil.
    public var closedAt: String?
    /// Its tags (labels, keywords), each once, sorted by their UTF-8 bytes.
    public var tags: [String]
    /// Links to other items, sorted by kind, then store, then item.
    public var links: [ItemLink]
    /// Where it came from: the original tracker's page (`https://github.com/o/r/issues/12`) and key (`HADOOP-1234`).
    public var sourceURL: String
    public var sourceKey: String

    public init(
        author: String = "", assignees: [String] = [], resolution: String = "", closedAt: String? = nil,
        tags: [String] = [], links: [ItemLink] = [], sourceURL: String = "", sourceKey: String = ""
    ) {
        self.author = author
        self.assignees = assignees
        self.resolution = resolution
        self.closedAt = closedAt
        self.tags = tags
        self.links = links
        self.sourceURL = sourceURL
        self.sourceKey = sourceKey
    }

    /// Tags as the store keeps them: each once, sorted by UTF-8 bytes (so an export always writes them alike).
    public static func canonicalTags(_ tags: [String]) -> [String] {
        Array(Set(tags)).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Links as the store keeps them: each once, sorted.
    public static func canonicalLinks(_ links: [ItemLink]) -> [ItemLink] { Array(Set(links)).sorted() }

    /// Names each once, in the order first given.
    public static func canonicalNames(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    /// At most this many tags, assignees and links on one item.
    public static let maximumTags = 100
    public static let maximumAssignees = 50
    public static let maximumLinks = 500
    /// A tag is at most this many bytes (UTF-8); a resolution and a source key too.
    public static let maximumTagBytes = 100
    /// A source URL is at most this many bytes.
    public static let maximumURLBytes = 2_048
}

/// A link from one item to another, in this store or another.
public struct ItemLink: Hashable, Sendable, Comparable {
    public enum Kind: String, Sendable, CaseIterable, Comparable {
        /// This item repeats the target (Bugzilla's `dupe_of`, Jira's "duplicates").
        case duplicateOf = "duplicate-of"
        /// This item blocks the target.
        case blocks
        /// Related, no more said.
        case relatesTo = "relates-to"

        public static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
    }

    public var kind: Kind
    /// The target item's id.
    public var itemID: String
    /// The target's store, or nil for this store.
    public var storeID: String?

    public init(kind: Kind, itemID: String, storeID: String? = nil) {
        self.kind = kind
        self.itemID = itemID
        self.storeID = storeID
    }

    /// The target's URI, given this store's id.
    public func target(in store: String) -> TrackerURI {
        TrackerURI(storeID: storeID ?? store, kind: .item, entityID: itemID)
    }

    public static func < (a: ItemLink, b: ItemLink) -> Bool {
        (a.kind.rawValue, a.storeID ?? "", a.itemID) < (b.kind.rawValue, b.storeID ?? "", b.itemID)
    }
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
