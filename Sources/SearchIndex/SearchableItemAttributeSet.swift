/// The searchable attributes of an item, after Core Spotlight's `CSSearchableItemAttributeSet`.
public struct SearchableItemAttributeSet: Sendable, Equatable {
    /// What a document stands for.
    public enum Kind: String, Sendable, CaseIterable {
        case item
        case project
        /// A chat message on a project or an item (no title; its text is the content).
        case message
    }

    /// Indexed as free text with the title prefix, weighted above the content.
    public var title: String
    /// Indexed as free text (the item's detail).
    public var contentDescription: String
    public var kind: Kind
    /// The title of the container (the project). A container's own document (kind `project`, in its own domain) holds
    /// it as a boolean term, which a `project:` filter finds, and then every document of the container's domain; on
    /// the others it is part of the fingerprint only.
    public var containerTitle: String
    /// 1…3 for items; nil for projects.
    public var priority: Int?
    /// Completed (items) or closed (projects).
    public var isCompleted: Bool
    /// Seconds since 1970.
    public var createdAt: Int64
    public var modifiedAt: Int64
    /// Who wrote it (messages) or opened it (items): boolean terms for `author:` and `involves:` filters.
    public var authorNames: [String] = []
    /// Who it is assigned to (items): terms for `assignee:` and `involves:`.
    public var assigneeNames: [String] = []
    /// Who wrote messages on it (items): terms for `involves:`.
    public var commenterNames: [String] = []
    /// Its tags (items): terms for `tag:`, matched in any case.
    public var tags: [String] = []
    /// How it was closed (`fixed`, `duplicate`, …), or empty: a term for `resolution:`.
    public var resolution: String = ""
    /// When it was closed, seconds since 1970: a value for `closed:` ranges.
    public var closedAt: Int64?
    /// Its links to other items: a term per kind (`linked:`), and per duplicate's target item (`duplicates:`).
    public var links: [Link] = []
    /// Its key in the tracker it came from (`HADOOP-1234`): a term for `key:` and for the key typed as a word.
    public var sourceKey: String = ""

    /// A link, as a filter sees it: its kind (`duplicate-of`, `blocks`, `relates-to`) and the target item's UUID.
    public struct Link: Sendable, Equatable {
        public var kind: String
        public var targetItemID: String

        public init(kind: String, targetItemID: String) {
            self.kind = kind
            self.targetItemID = targetItemID
        }
    }

    public init(
        title: String, contentDescription: String = "", kind: Kind = .item, containerTitle: String = "",
        priority: Int? = nil, isCompleted: Bool = false, createdAt: Int64 = 0, modifiedAt: Int64 = 0
    ) {
        self.title = title
        self.contentDescription = contentDescription
        self.kind = kind
        self.containerTitle = containerTitle
        self.priority = priority
        self.isCompleted = isCompleted
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
    }

    /// The status word used by `is:` filters; empty for a message, which has none.
    public var status: String {
        switch (kind, isCompleted) {
        case (.message, _): return ""
        case (.item, true): return "completed"
        case (.project, true): return "closed"
        case (_, false): return "open"
        }
    }
}

/// One document of the index, after Core Spotlight's `CSSearchableItem`.
public struct SearchableItem: Sendable, Equatable {
    /// Unique across the index (Spotlite uses the item's `tracker://` URI).
    public var uniqueIdentifier: String
    /// The group the item belongs to (its project's URI); deleting the domain deletes the group.
    public var domainIdentifier: String
    public var attributeSet: SearchableItemAttributeSet

    public init(uniqueIdentifier: String, domainIdentifier: String, attributeSet: SearchableItemAttributeSet) {
        self.uniqueIdentifier = uniqueIdentifier
        self.domainIdentifier = domainIdentifier
        self.attributeSet = attributeSet
    }

    /// A stable hash of everything indexed for this item; stored with the document so that a verifier can
    /// tell a stale document from a current one without re-reading its terms.
    public var fingerprint: String { Fingerprint.hex(fingerprintHash) }

    /// The hash behind ``fingerprint`` (kept in the index as its 8 bytes).
    var fingerprintHash: UInt64 {
        let a = attributeSet
        return Fingerprint.fnv1a([
            SearchIndexLayout.version, uniqueIdentifier, domainIdentifier, a.kind.rawValue, a.title,
            a.contentDescription, a.containerTitle, a.priority.map(String.init) ?? "-", a.isCompleted ? "1" : "0",
            String(a.createdAt), String(a.modifiedAt), a.authorNames.joined(separator: "\u{1F}"),
            a.assigneeNames.joined(separator: "\u{1F}"), a.commenterNames.joined(separator: "\u{1F}"),
            a.tags.joined(separator: "\u{1F}"), a.resolution,
            a.closedAt.map(String.init) ?? "-",
            a.links.map { $0.kind + " " + $0.targetItemID }.joined(separator: "\u{1F}"),
            a.sourceKey,
        ])
    }
}
