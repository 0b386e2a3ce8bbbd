import Foundation
import Indexer
import TrackerStore

/// A JSON value with keys in the order given, so output is stable for tools and golden tests.
public indirect enum JSON: Sendable {
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
                ] + state(of: item)
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
