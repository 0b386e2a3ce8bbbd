import ArgumentParser
import TrackerStore

/// `add item` and `edit`'s options for an item's tracker fields (``ItemTracking``).
struct TrackingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Who opened the item.", valueName: "name"))
    var author: String?

    @Option(help: ArgumentHelp("Assign the item to this person (repeat for more).", valueName: "name"))
    var assignee: [String] = []

    @Option(help: ArgumentHelp("Tag the item (repeat for more).", valueName: "tag"))
    var tag: [String] = []

    @Option(
        help: ArgumentHelp("How the item was closed: fixed, duplicate, wontfix, … (\"\" clears it).", valueName: "word")
    )
    var resolution: String?

    @Option(help: ArgumentHelp("When the item was closed (ISO 8601, \"\" clears it).", valueName: "time"))
    var closedAt: String?

    @Option(
        help: ArgumentHelp(
            "Link to another item: duplicate-of, blocks or relates-to, then = and its URI (repeat for more).",
            valueName: "kind=uri"))
    var link: [LinkArgument] = []

    @Option(help: ArgumentHelp("The item's page in the tracker it came from (http or https).", valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("The item's key in the tracker it came from, like HADOOP-1234.", valueName: "key"))
    var key: String?

    var isEmpty: Bool {
        author == nil && assignee.isEmpty && tag.isEmpty && resolution == nil && closedAt == nil && link.isEmpty
            && url == nil && key == nil
    }

    /// What the options given change.
    var edit: TrackingEdit {
        TrackingEdit(
            author: author, assignees: assignee, tags: tag, resolution: resolution, closedAt: closedAt,
            links: link.map(\.link), url: url, key: key)
    }
}

/// A change of an item's tracker fields, from the command line: fields set, and assignees, tags and links added or
/// removed.
struct TrackingEdit: Sendable {
    var author: String?
    var assignees: [String] = []
    var tags: [String] = []
    var resolution: String?
    var closedAt: String?
    var links: [ItemLink] = []
    var url: String?
    var key: String?
    var unassign: Set<String> = []
    var untag: Set<String> = []
    var unlink: Set<ItemLink> = []

    /// Removes what is to be removed, then sets the fields given and adds the assignees, tags and links given.
    func apply(to tracking: inout ItemTracking) {
        tracking.assignees.removeAll(where: unassign.contains)
        tracking.tags.removeAll(where: untag.contains)
        tracking.links.removeAll(where: unlink.contains)
        if let author { tracking.author = author }
        tracking.assignees += assignees
        tracking.tags += tags
        if let resolution { tracking.resolution = resolution }
        if let closedAt { tracking.closedAt = closedAt.isEmpty ? nil : closedAt }
        tracking.links += links
        if let url { tracking.sourceURL = url }
        if let key { tracking.sourceKey = key }
    }
}

/// `KIND=URI`: a link to an item.
struct LinkArgument: ExpressibleByArgument, Sendable {
    var link: ItemLink

    init?(argument: String) {
        guard let equals = argument.firstIndex(of: "="),
            let kind = ItemLink.Kind(rawValue: String(argument[..<equals])),
            let uri = try? TrackerURI(parsing: String(argument[argument.index(after: equals)...])), uri.kind == .item
        else { return nil }
        link = ItemLink(kind: kind, itemID: uri.entityID, storeID: uri.storeID)
    }

    static var allValueStrings: [String] { ItemLink.Kind.allCases.map { "\($0.rawValue)=tracker://…/item/…" } }
}
