import Foundation
import Indexer
import TrackerStore

/// A JSON value with keys in the order given, so output is stable for tools and golden tests.
public enum JSON: Sendable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
    case array([JSON])
    case object([(String, JSON)])

    /// The value as compact JSON text.
    public var text: String { String(decoding: line(ending: ""), as: UTF8.self) }

    /// The value's compact JSON text as UTF-8 bytes, then `ending` (a server's body, a line of JSON Lines): no
    /// String made, no copy to append the ending.
    public func line(ending: String = "\n") -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1_024)
        write(to: &out)
        out.append(contentsOf: ending.utf8)
        return out
    }

    /// A number as `%.6g` writes it (C's formatting, without Foundation's string formatting per score); `null` for
    /// what JSON cannot hold.
    static func write(_ value: Double, to out: inout [UInt8]) {
        guard value.isFinite else {
            out.append(contentsOf: "null".utf8)
            return
        }
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 32) { buffer in
            let written = withVaList([value]) { vsnprintf(buffer.baseAddress, buffer.count, "%.6g", $0) }
            let count = Int(max(0, min(written, Int32(buffer.count - 1))))
            out.append(contentsOf: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
        }
    }

    /// The value's compact JSON text appended to UTF-8 bytes: one buffer for a whole answer, rather than a string
    /// per value joined at each level.
    public func write(to out: inout [UInt8]) {
        switch self {
        case .string(let value): JSONLines.appendQuoted(value, to: &out)
        case .int(let value): out.append(contentsOf: String(value).utf8)
        case .double(let value): Self.write(value, to: &out)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let pairs):
            out.append(UInt8(ascii: "{"))
            for (index, (key, value)) in pairs.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONLines.appendQuoted(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}

/// The JSON form of store rows, shared by `search` and `resolve` (and the server's items, projects and resolve).
public enum EntityJSON {
    /// `{"uri": …, "title": …}` of an item's project, in `resolve` and `search` output alike.
    public static func projectReference(_ project: Project, storeID: String) -> JSON {
        reference(.project, project.id, title: project.title, storeID: storeID)
    }

    /// `{"uri": …, "title": …}` of a message's item.
    public static func itemReference(_ item: Item, storeID: String) -> JSON {
        reference(.item, item.id, title: item.title, storeID: storeID)
    }

    static func reference(_ kind: TrackerURI.Kind, _ id: String, title: String, storeID: String) -> JSON {
        .object([
            ("uri", .string(TrackerURI(storeID: storeID, kind: kind, entityID: id).description)),
            ("title", .string(title)),
        ])
    }

    /// An item's state, the last fields of its `resolve` and `search` objects alike.
    static func state(of item: Item) -> [(String, JSON)] {
        [
            ("priority", .int(item.priority)),
            ("completed", .bool(item.isCompleted)),
            ("created", .string(item.createdAt)),
            ("modified", .string(item.modifiedAt)),
        ]
    }

    /// An item's tracker fields. `whole`: every one (a row's object); else only those set (a search hit's, which
    /// stays as short as before for a store that uses none).
    public static func tracking(of item: Item, storeID: String, whole: Bool) -> [(String, JSON)] {
        let t = item.tracking
        var pairs: [(String, JSON)] = []
        func add(_ key: String, _ value: JSON, set: Bool) { if whole || set { pairs.append((key, value)) } }
        add("author", .string(t.author), set: !t.author.isEmpty)
        add("assignees", .array(t.assignees.map { .string($0) }), set: !t.assignees.isEmpty)
        add("tags", .array(t.tags.map { .string($0) }), set: !t.tags.isEmpty)
        add("resolution", .string(t.resolution), set: !t.resolution.isEmpty)
        add("closed_at", t.closedAt.map { .string($0) } ?? .null, set: t.closedAt != nil)
        let links = t.links.map { link in
            JSON.object([
                ("kind", .string(link.kind.rawValue)), ("uri", .string(link.target(in: storeID).description)),
            ])
        }
        add("links", .array(links), set: !links.isEmpty)
        add("url", .string(t.sourceURL), set: !t.sourceURL.isEmpty)
        add("key", .string(t.sourceKey), set: !t.sourceKey.isEmpty)
        add("commenters", .array(item.commenters.map { .string($0) }), set: !item.commenters.isEmpty)
        return pairs
    }

    /// `store` and `alsoIn`: for a row found among named stores, the store's name and the other stores holding it.
    public static func json(_ entity: StoreEntity, uri: TrackerURI, store: String? = nil, alsoIn: [String] = []) -> JSON
    {
        var pairs: [(String, JSON)] = [("uri", .string(uri.description))]
        if let store { pairs += [("store", .string(store)), ("also_in", .array(alsoIn.map { .string($0) }))] }
        switch entity {
        case .item(let item, let project):
            pairs +=
                [
                    ("kind", .string("item")),
                    ("id", .string(item.id)),
                    ("title", .string(item.title)),
                    ("detail", .string(item.detail)),
                    ("project", projectReference(project, storeID: uri.storeID)),
                ] + state(of: item) + tracking(of: item, storeID: uri.storeID, whole: true)
        case .message(let message, let project, let item):
            pairs += [
                ("kind", .string("message")),
                ("id", .string(message.id)),
                ("author", .string(message.author)),
                ("text", .string(message.text)),
                ("project", projectReference(project, storeID: uri.storeID)),
                ("item", item.map { itemReference($0, storeID: uri.storeID) } ?? .null),
                ("created", .string(message.createdAt)),
                ("modified", .string(message.modifiedAt)),
            ]
        case .project(let project):
            pairs += [
                ("kind", .string("project")),
                ("id", .string(project.id)),
                ("title", .string(project.title)),
                ("detail", .string(project.detail)),
                ("color", .string(project.color)),
                ("closed", .bool(project.isClosed)),
                ("created", .string(project.createdAt)),
                ("modified", .string(project.modifiedAt)),
            ]
        }
        return .object(pairs)
    }
}

extension EntityJSON {
    /// The row of one of `POST /v1/resolve`'s results, as ``json(_:uri:store:alsoIn:)`` wrote it: its URI and row,
    /// or nil for what is not a row of that shape (a result that is an error is not a row). What the reference of
    /// a project or an item does not carry (a project's detail, color and dates; an item's detail) is left empty.
    public static func decode(_ value: JSONValue) -> (uri: TrackerURI, entity: StoreEntity)? {
        guard case .object(let fields) = value, let uri = uriField(fields["uri"]),
            case .string(let kind)? = fields["kind"],
            let id = string(fields["id"]), id == uri.entityID
        else { return nil }
        switch kind {
        case "item":
            guard uri.kind == .item, let project = projectReference(fields["project"], storeID: uri.storeID),
                let title = string(fields["title"]), let detail = string(fields["detail"]),
                case .number(let priority)? = fields["priority"], let priorityValue = Int(exactly: priority),
                case .bool(let completed)? = fields["completed"], let created = string(fields["created"]),
                let modified = string(fields["modified"])
            else { return nil }
            guard let tracking = tracking(fields, storeID: uri.storeID), let commenters = texts(fields["commenters"])
            else { return nil }
            let item = Item(
                id: id, projectID: project.id, title: title, detail: detail, priority: priorityValue,
                isCompleted: completed, createdAt: created, modifiedAt: modified, tracking: tracking,
                commenters: commenters)
            return (uri, .item(item, project: project))
        case "message":
            guard uri.kind == .message, let project = projectReference(fields["project"], storeID: uri.storeID),
                let author = string(fields["author"]), let text = string(fields["text"]),
                let created = string(fields["created"]), let modified = string(fields["modified"])
            else { return nil }
            var item: Item?
            switch fields["item"] {
            case nil, .null?: item = nil
            case let reference?:
                guard let (itemURI, title) = self.reference(reference, kind: .item, storeID: uri.storeID) else {
                    return nil
                }
                item = Item(
                    id: itemURI.entityID, projectID: project.id, title: title, createdAt: "", modifiedAt: "")
            }
            let parent: Message.Parent = item.map { .item(id: $0.id) } ?? .project(id: project.id)
            let message = Message(
                id: id, parent: parent, author: author, text: text, createdAt: created, modifiedAt: modified)
            return (uri, .message(message, project: project, item: item))
        case "project":
            guard uri.kind == .project, let title = string(fields["title"]), let detail = string(fields["detail"]),
                let color = string(fields["color"]), case .bool(let closed)? = fields["closed"],
                let created = string(fields["created"]), let modified = string(fields["modified"])
            else { return nil }
            return (
                uri,
                .project(
                    Project(
                        id: id, title: title, detail: detail, color: color, isClosed: closed, createdAt: created,
                        modifiedAt: modified))
            )
        default:
            return nil
        }
    }

    /// The tracker fields of an item's object, as ``tracking(of:storeID:whole:)`` wrote them (those missing are
    /// empty, as from a Spotlite before them); nil for a field of another shape.
    private static func tracking(_ fields: [String: JSONValue], storeID: String) -> ItemTracking? {
        func text(_ key: String) -> String?? {
            switch fields[key] {
            case nil, .null?: return .some(nil)
            case .string(let value)?: return .some(value)
            default: return nil
            }
        }
        guard let author = text("author"), let resolution = text("resolution"), let closed = text("closed_at"),
            let url = text("url"), let key = text("key"), let assignees = texts(fields["assignees"]),
            let tags = texts(fields["tags"])
        else { return nil }
        var links: [ItemLink] = []
        if case .array(let values)? = fields["links"] {
            for value in values {
                guard case .object(let link) = value, case .string(let kindName)? = link["kind"],
                    let kind = ItemLink.Kind(rawValue: kindName), let target = uriField(link["uri"]),
                    target.kind == .item
                else { return nil }
                links.append(
                    ItemLink(
                        kind: kind, itemID: target.entityID, storeID: target.storeID == storeID ? nil : target.storeID))
            }
        }
        return ItemTracking(
            author: author ?? "", assignees: assignees, resolution: resolution ?? "", closedAt: closed, tags: tags,
            links: links, sourceURL: url ?? "", sourceKey: key ?? "")
    }

    /// An array of strings; empty when missing (a Spotlite before the field), nil for another shape.
    private static func texts(_ value: JSONValue?) -> [String]? {
        switch value {
        case nil: return []
        case .array(let values)?:
            let strings = values.compactMap { string($0) }
            return strings.count == values.count ? strings : nil
        default: return nil
        }
    }

    private static func string(_ value: JSONValue?) -> String? {
        if case .string(let text)? = value { return text }
        return nil
    }

    private static func uriField(_ value: JSONValue?) -> TrackerURI? {
        string(value).flatMap { try? TrackerURI(parsing: $0) }
    }

    /// A `{"uri": …, "title": …}` reference to a row of `kind` in the store `storeID`.
    private static func reference(_ value: JSONValue, kind: TrackerURI.Kind, storeID: String) -> (TrackerURI, String)? {
        guard case .object(let fields) = value, let uri = uriField(fields["uri"]), uri.kind == kind,
            uri.storeID == storeID, let title = string(fields["title"])
        else { return nil }
        return (uri, title)
    }

    private static func projectReference(_ value: JSONValue?, storeID: String) -> Project? {
        guard let value, let (uri, title) = reference(value, kind: .project, storeID: storeID) else { return nil }
        return Project(id: uri.entityID, title: title, createdAt: "", modifiedAt: "")
    }
}
