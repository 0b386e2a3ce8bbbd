import Foundation
import Indexer
import TrackerStore

/// A JSON value with keys in the order given, so output is stable for tools and golden tests. The answers written
/// most (a page of hits, a row) are written by a ``JSONWriter`` instead, and held here as what it wrote.
public enum JSON: Sendable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
    case array([JSON])
    case object([(String, JSON)])
    /// Compact JSON text a ``JSONWriter`` wrote: one value, kept as its bytes.
    case written([UInt8])

    /// The value as compact JSON text.
    public var text: String {
        if case .written(let bytes) = self { return String(decoding: bytes, as: UTF8.self) }
        return String(decoding: line(ending: ""), as: UTF8.self)
    }

    /// The value's compact JSON text as UTF-8 bytes, then `ending` (a server's body, a line of JSON Lines).
    public func line(ending: String = "\n") -> [UInt8] {
        var capacity = JSONWriter.defaultCapacity
        if case .written(let bytes) = self { capacity = bytes.count + ending.utf8.count }
        var writer = JSONWriter(capacity: capacity)
        write(to: &writer)
        return writer.line(ending: ending)
    }

    /// The value written by `writer`, as one value where it stands.
    public func write(to writer: inout JSONWriter) {
        switch self {
        case .string(let value): writer.string(value)
        case .int(let value): writer.int(value)
        case .double(let value): writer.double(value)
        case .bool(let value): writer.bool(value)
        case .null: writer.null()
        case .array(let values): writer.array { for value in values { value.write(to: &$0) } }
        case .object(let pairs):
            writer.object {
                for (key, value) in pairs {
                    $0.key(escaping: key)
                    value.write(to: &$0)
                }
            }
        case .written(let bytes): writer.written(bytes)
        }
    }

    /// What `body` writes, as a value of a tree.
    public static func writing(capacity: Int = JSONWriter.defaultCapacity, _ body: (inout JSONWriter) -> Void) -> JSON {
        var writer = JSONWriter(capacity: capacity)
        body(&writer)
        return .written(writer.bytes)
    }
}

/// The JSON form of store rows, shared by `search` and `resolve` (and the server's items, projects and resolve).
public enum EntityJSON {
    /// `{"uri": …, "title": …}` of an item's project, in `resolve` and `search` output alike.
    static func projectReference(_ project: Project, storeID: String, to out: inout JSONWriter) {
        reference(.project, project.id, title: project.title, storeID: storeID, to: &out)
    }

    /// `{"uri": …, "title": …}` of a message's item; `null` for a message of its project.
    static func itemReference(_ item: Item?, storeID: String, to out: inout JSONWriter) {
        guard let item else { return out.null() }
        reference(.item, item.id, title: item.title, storeID: storeID, to: &out)
    }

    static func reference(
        _ kind: TrackerURI.Kind, _ id: String, title: String, storeID: String, to out: inout JSONWriter
    ) {
        out.object {
            $0.field("uri", uri: TrackerURI(storeID: storeID, kind: kind, entityID: id))
            $0.field("title", title)
        }
    }

    /// An item's state, the last fields of its `resolve` and `search` objects alike.
    static func state(of item: Item, to out: inout JSONWriter) {
        out.field("priority", item.priority)
        out.field("completed", item.isCompleted)
        out.field("created", item.createdAt)
        out.field("modified", item.modifiedAt)
    }

    /// An item's tracker fields. `whole`: every one (a row's object); else only those set (a search hit's, which
    /// stays as short as before for a store that uses none).
    static func tracking(of item: Item, storeID: String, whole: Bool, to out: inout JSONWriter) {
        let t = item.tracking
        if whole || !t.author.isEmpty { out.field("author", t.author) }
        if whole || !t.assignees.isEmpty { out.field("assignees", strings: t.assignees) }
        if whole || !t.tags.isEmpty { out.field("tags", strings: t.tags) }
        if whole || !t.resolution.isEmpty { out.field("resolution", t.resolution) }
        if whole || t.closedAt != nil { out.field("closed_at", t.closedAt) }
        if whole || !t.links.isEmpty {
            out.key("links")
            out.array {
                for link in t.links {
                    $0.object {
                        $0.field("kind", link.kind.rawValue)
                        $0.field("uri", uri: link.target(in: storeID))
                    }
                }
            }
        }
        if whole || !t.sourceURL.isEmpty { out.field("url", t.sourceURL) }
        if whole || !t.sourceKey.isEmpty { out.field("key", t.sourceKey) }
        if whole || !item.commenters.isEmpty { out.field("commenters", strings: item.commenters) }
    }

    /// `store` and `alsoIn`: for a row found among named stores, the store's name and the other stores holding it.
    public static func json(_ entity: StoreEntity, uri: TrackerURI, store: String? = nil, alsoIn: [String] = []) -> JSON
    {
        .writing { write(entity, uri: uri, store: store, alsoIn: alsoIn, to: &$0) }
    }

    static func write(
        _ entity: StoreEntity, uri: TrackerURI, store: String?, alsoIn: [String], to out: inout JSONWriter
    ) {
        out.object { out in
            out.field("uri", uri: uri)
            if let store {
                out.field("store", store)
                out.field("also_in", strings: alsoIn)
            }
            switch entity {
            case .item(let item, let project):
                out.field("kind", "item")
                out.field("id", item.id)
                out.field("title", item.title)
                out.field("detail", item.detail)
                out.key("project")
                projectReference(project, storeID: uri.storeID, to: &out)
                state(of: item, to: &out)
                tracking(of: item, storeID: uri.storeID, whole: true, to: &out)
            case .message(let message, let project, let item):
                out.field("kind", "message")
                out.field("id", message.id)
                out.field("author", message.author)
                out.field("text", message.text)
                out.key("project")
                projectReference(project, storeID: uri.storeID, to: &out)
                out.key("item")
                itemReference(item, storeID: uri.storeID, to: &out)
                out.field("created", message.createdAt)
                out.field("modified", message.modifiedAt)
            case .project(let project):
                out.field("kind", "project")
                out.field("id", project.id)
                out.field("title", project.title)
                out.field("detail", project.detail)
                out.field("color", project.color)
                out.field("closed", project.isClosed)
                out.field("created", project.createdAt)
                out.field("modified", project.modifiedAt)
            }
        }
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
