import Foundation

/// One record of the JSON Lines import/export format (see docs/import.md).
///
/// ```
/// {"kind":"project","id":"<uuid>","title":"…","detail":"…","created":"2020-06-18T20:27:49Z"}
/// {"kind":"item","id":"<uuid>","project":"<project uuid>","title":"…","detail":"…","priority":2,"completed":true,"created":"…"}
/// {"kind":"message","id":"<uuid>","item":"<item uuid>","author":"…","text":"…","created":"…"}
/// ```
public enum JSONLinesRecord: Sendable, Equatable {
    case project(Project)
    case item(Item)
    /// On a project (`"project"`) or an item (`"item"`): one of the two.
    case message(Message)
}

/// A line that cannot be imported: its 1-based number and what is wrong with it.
public struct ImportLineError: Error, Sendable, CustomStringConvertible {
    public var line: Int
    public var reason: String
    public var description: String { "line \(line): \(reason)" }
}

/// Parses and prints the JSON Lines format.
public enum JSONLines {
    static let projectFields: Set<String> = ["kind", "id", "title", "detail", "color", "closed", "created", "modified"]
    static let itemFields: Set<String> = [
        "kind", "id", "project", "title", "detail", "priority", "completed", "created", "modified", "author",
        "assignees", "resolution", "closed_at", "tags", "links", "url", "key",
    ]
    static let messageFields: Set<String> = ["kind", "id", "project", "item", "author", "text", "created", "modified"]

    /// Parses a whole file; the first bad line fails it (nothing is half-read).
    ///
    /// `now` stands in for missing `created` times and `makeID` for missing ids (injected for tests).
    public static func parse(
        _ data: Data, now: String, makeID: () -> String = { UUID().uuidString.lowercased() }
    ) throws(ImportLineError) -> [(line: Int, record: JSONLinesRecord)] {
        var records: [(line: Int, record: JSONLinesRecord)] = []
        var lineNumber = 0
        let bytes = [UInt8](data)
        var start = 0
        while start < bytes.count {
            lineNumber += 1
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            var line = bytes[start..<end]
            start = end + 1
            if line.last == 0x0D { line = line.dropLast() }
            if let record = try parse(line: line, number: lineNumber, now: now, makeID: makeID) {
                records.append((lineNumber, record))
            }
        }
        return records
    }

    /// Parses one line (without its newline); nil for a blank one.
    public static func parse(
        line: ArraySlice<UInt8>, number: Int, now: String, makeID: () -> String = { UUID().uuidString.lowercased() }
    ) throws(ImportLineError) -> JSONLinesRecord? {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return nil }
        do {
            return try parseLine(line, now: now, makeID: makeID)
        } catch let reason {
            throw ImportLineError(line: number, reason: reason.text)
        }
    }

    struct Reason: Error { var text: String }

    static func parseLine(_ line: ArraySlice<UInt8>, now: String, makeID: () -> String) throws(Reason)
        -> JSONLinesRecord
    {
        if let nul = line.firstIndex(of: 0) {
            throw Reason(text: "contains a NUL byte (at byte \(nul - line.startIndex + 1))")
        }
        guard String(validating: line, as: UTF8.self) != nil else { throw Reason(text: "is not valid UTF-8") }
        let value: JSONValue
        do {
            value = try StrictJSON.parse(Array(line))
        } catch {
            throw Reason(text: error.text)
        }
        guard case .object(let object) = value else { throw Reason(text: "expected a JSON object {…}") }
        let fields = Fields(object: object)
        let kind = try fields.string("kind", required: true)!
        switch kind {
        case "project":
            try fields.rejectUnknown(projectFields, kind: kind)
            let created = try fields.timestamp("created") ?? now
            return .project(
                Project(
                    id: try fields.uuid("id") ?? makeID(),
                    title: try fields.title(),
                    detail: try fields.string("detail") ?? "",
                    color: try fields.string("color") ?? "",
                    isClosed: try fields.bool("closed") ?? false,
                    createdAt: created,
                    modifiedAt: try fields.timestamp("modified") ?? created))
        case "item":
            try fields.rejectUnknown(itemFields, kind: kind)
            let created = try fields.timestamp("created") ?? now
            guard let project = try fields.uuid("project") else {
                throw Reason(text: "field \"project\" is missing (the id of the item's project)")
            }
            let priority = try fields.integer("priority") ?? 2
            if !Item.priorities.contains(priority) {
                throw Reason(text: "field \"priority\" is \(priority); use 1 (low), 2 (medium) or 3 (high)")
            }
            return .item(
                Item(
                    id: try fields.uuid("id") ?? makeID(),
                    projectID: project,
                    title: try fields.title(),
                    detail: try fields.string("detail") ?? "",
                    priority: priority,
                    isCompleted: try fields.bool("completed") ?? false,
                    createdAt: created,
                    modifiedAt: try fields.timestamp("modified") ?? created,
                    tracking: try fields.tracking()))
        case "message":
            try fields.rejectUnknown(messageFields, kind: kind)
            let created = try fields.timestamp("created") ?? now
            let parent: Message.Parent
            switch (try fields.uuid("project"), try fields.uuid("item")) {
            case (let project?, nil): parent = .project(id: project)
            case (nil, let item?): parent = .item(id: item)
            case (.some, .some):
                throw Reason(text: "a message is on a project or on an item: give \"project\" or \"item\", not both")
            case (nil, nil):
                throw Reason(text: "field \"project\" or \"item\" is missing (the id of what the message is on)")
            }
            let text = try fields.string("text", required: true)!
            let author = try fields.string("author") ?? ""
            do {
                try Validation.message(text: text, author: author)
            } catch {
                throw Reason(text: error.message)
            }
            return .message(
                Message(
                    id: try fields.uuid("id") ?? makeID(), parent: parent,
                    author: author.trimmingCharacters(in: .whitespacesAndNewlines), text: text, createdAt: created,
                    modifiedAt: try fields.timestamp("modified") ?? created))
        default:
            throw Reason(text: "field \"kind\" is \(quote(kind)); use \"project\", \"item\" or \"message\"")
        }
    }

    /// Typed access to one line's fields, with errors that name the field.
    struct Fields {
        var object: [String: JSONValue]

        func rejectUnknown(_ known: Set<String>, kind: String) throws(Reason) {
            if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
                throw Reason(
                    text:
                        "unknown field \(quote(unknown)) for a \(kind); known fields: \(known.sorted().joined(separator: ", "))"
                )
            }
        }

        func string(_ key: String, required: Bool = false) throws(Reason) -> String? {
            guard let value = object[key], value != .null else {
                if required { throw Reason(text: "field \"\(key)\" is missing") }
                return nil
            }
            guard case .string(let text) = value else { throw Reason(text: "field \"\(key)\" must be a string") }
            if text.utf8.contains(0) { throw Reason(text: "field \"\(key)\" contains a NUL character") }
            return text
        }

        func title() throws(Reason) -> String {
            let title = try string("title", required: true)!
            let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { throw Reason(text: "field \"title\" is empty") }
            return trimmed
        }

        func uuid(_ key: String) throws(Reason) -> String? {
            guard let text = try string(key) else { return nil }
            if let problem = TrackerURI.uuidProblem(text) { throw Reason(text: "field \"\(key)\": \(problem)") }
            return text
        }

        func timestamp(_ key: String) throws(Reason) -> String? {
            guard let text = try string(key) else { return nil }
            guard let normalized = Timestamp.normalize(text) else {
                throw Reason(
                    text: "field \"\(key)\" is \(quote(text)), not a real time; use ISO 8601 like 2024-05-01T09:30:00Z "
                        + "(years 0001–9999)")
            }
            return normalized
        }

        func strings(_ key: String) throws(Reason) -> [String] {
            guard let value = object[key], value != .null else { return [] }
            guard case .array(let values) = value else {
                throw Reason(text: "field \"\(key)\" must be an array of strings")
            }
            var result: [String] = []
            for value in values {
                guard case .string(let text) = value, !text.utf8.contains(0) else {
                    throw Reason(text: "field \"\(key)\" must be an array of strings (without NUL characters)")
                }
                result.append(text)
            }
            return result
        }

        /// `"links": [{"kind": "duplicate-of", "item": "<uuid>"}, {"kind": "blocks", "uri": "tracker://…"}]`: an item
        /// of this store by its id, of another by its URI.
        func links() throws(Reason) -> [ItemLink] {
            guard let value = object["links"], value != .null else { return [] }
            let shape =
                "field \"links\" must be an array of {\"kind\": …, \"item\": <uuid>} or {\"kind\": …, \"uri\": …}"
            guard case .array(let values) = value else { throw Reason(text: shape) }
            var links: [ItemLink] = []
            for value in values {
                guard case .object(let object) = value, object.count == 2,
                    case .string(let kindName)? = object["kind"]
                else { throw Reason(text: shape) }
                guard let kind = ItemLink.Kind(rawValue: kindName) else {
                    let kinds = ItemLink.Kind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                    throw Reason(text: "a link's kind is \(quote(kindName)); use \(kinds)")
                }
                switch (object["item"], object["uri"]) {
                case (.string(let id)?, nil):
                    if let problem = TrackerURI.uuidProblem(id) { throw Reason(text: "a link's item \(problem)") }
                    links.append(ItemLink(kind: kind, itemID: id))
                case (nil, .string(let text)?):
                    let uri: TrackerURI
                    do {
                        uri = try TrackerURI(parsing: text)
                    } catch {
                        throw Reason(text: "a link's uri: \(error.message)")
                    }
                    guard uri.kind == .item else {
                        throw Reason(text: "a link's uri must name an item, not a \(uri.kind)")
                    }
                    links.append(ItemLink(kind: kind, itemID: uri.entityID, storeID: uri.storeID))
                default:
                    throw Reason(text: shape)
                }
            }
            return links
        }

        /// An item's tracker fields, checked as the store checks them.
        func tracking() throws(Reason) -> ItemTracking {
            let tracking = ItemTracking(
                author: try string("author") ?? "", assignees: try strings("assignees"),
                resolution: try string("resolution") ?? "", closedAt: try timestamp("closed_at"),
                tags: try strings("tags"),
                links: try links(), sourceURL: try string("url") ?? "", sourceKey: try string("key") ?? "")
            do {
                return try Validation.tracking(tracking)
            } catch {
                throw Reason(text: error.message)
            }
        }

        func bool(_ key: String) throws(Reason) -> Bool? {
            guard let value = object[key], value != .null else { return nil }
            if case .bool(let flag) = value { return flag }
            throw Reason(text: "field \"\(key)\" must be true or false")
        }

        func integer(_ key: String) throws(Reason) -> Int? {
            guard let value = object[key], value != .null else { return nil }
            if case .number(let number) = value, let exact = Int(exactly: number) { return exact }
            throw Reason(text: "field \"\(key)\" must be a whole number")
        }
    }

    /// One line of the format for a record (no newline).
    public static func line(for record: JSONLinesRecord) -> String {
        var out = "{"
        func field(_ key: String, _ value: String, first: Bool = false) {
            if !first { out += "," }
            out += "\"\(key)\":\(value)"
        }
        switch record {
        case .project(let project):
            field("kind", quote("project"), first: true)
            field("id", quote(project.id))
            field("title", quote(project.title))
            field("detail", quote(project.detail))
            field("color", quote(project.color))
            field("closed", project.isClosed ? "true" : "false")
            field("created", quote(project.createdAt))
            field("modified", quote(project.modifiedAt))
        case .item(let item):
            field("kind", quote("item"), first: true)
            field("id", quote(item.id))
            field("project", quote(item.projectID))
            field("title", quote(item.title))
            field("detail", quote(item.detail))
            field("priority", String(item.priority))
            field("completed", item.isCompleted ? "true" : "false")
            field("created", quote(item.createdAt))
            field("modified", quote(item.modifiedAt))
            // Tracker fields only where set: an export of a store that uses none reads as before.
            let tracking = item.tracking
            func list(_ values: [String]) -> String { "[" + values.map(quote).joined(separator: ",") + "]" }
            if !tracking.author.isEmpty { field("author", quote(tracking.author)) }
            if !tracking.assignees.isEmpty { field("assignees", list(tracking.assignees)) }
            if !tracking.resolution.isEmpty { field("resolution", quote(tracking.resolution)) }
            if let closed = tracking.closedAt { field("closed_at", quote(closed)) }
            if !tracking.tags.isEmpty { field("tags", list(tracking.tags)) }
            if !tracking.links.isEmpty {
                let links = tracking.links.map { link in
                    let target =
                        link.storeID.map { "\"uri\":" + quote(link.target(in: $0).description) }
                        ?? "\"item\":" + quote(link.itemID)
                    return "{\"kind\":\(quote(link.kind.rawValue)),\(target)}"
                }
                field("links", "[" + links.joined(separator: ",") + "]")
            }
            if !tracking.sourceURL.isEmpty { field("url", quote(tracking.sourceURL)) }
            if !tracking.sourceKey.isEmpty { field("key", quote(tracking.sourceKey)) }
        case .message(let message):
            field("kind", quote("message"), first: true)
            field("id", quote(message.id))
            switch message.parent {
            case .project(let id): field("project", quote(id))
            case .item(let id): field("item", quote(id))
            }
            field("author", quote(message.author))
            field("text", quote(message.text))
            field("created", quote(message.createdAt))
            field("modified", quote(message.modifiedAt))
        }
        return out + "}"
    }

    /// A JSON string literal. Besides what JSON requires (quotes, backslashes, C0 controls), DEL, the C1 controls,
    /// the bidirectional controls (``VisibleText``) and U+2028/U+2029 are written as `\u` escapes, so that JSON read in
    /// a terminal or pasted into JavaScript carries them as text, not as what they do; a JSON reader reads them back
    /// as the same characters.
    public static func quote(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 2)
        appendQuoted(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// ``quote(_:)`` appended to UTF-8 bytes: runs of bytes that need no escape are copied whole (U+2028–U+202E are
    /// E2 80 A8–AE in UTF-8, U+2066–U+2069 E2 81 A6–A9, the C1 controls C2 80–9F).
    public static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        appendEscaped(text, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// The inside of ``quote(_:)``, appended with no quotes around it: one string literal written in parts (a URI
    /// from its store, kind and ID).
    public static func appendEscaped(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendEscaped($0, to: &out) }
    }

    /// ``appendEscaped(_:to:)`` over UTF-8 bytes (each run between `dropping`'s bytes whole characters), leaving
    /// out the bytes equal to either of `dropping` (a snippet's marks, control characters that would otherwise be
    /// escaped) rather than escaping them.
    public static func appendEscaped(
        _ bytes: UnsafeBufferPointer<UInt8>, dropping: (UInt8, UInt8)? = nil, to out: inout [UInt8]
    ) {
        var index = 0
        var run = 0
        while index < bytes.count {
            // Eight bytes at a time while none of them needs a look (most of a title or a snippet).
            while index + 8 <= bytes.count,
                let base = bytes.baseAddress,
                !mayNeedEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            {
                index += 8
            }
            guard index < bytes.count else { break }
            let byte = bytes[index]
            let scalar: UInt32
            let length: Int
            if byte >= 0x20 && byte < 0x7F && byte != 0x22 && byte != 0x5C {
                index += 1
                continue
            } else if let dropping, byte == dropping.0 || byte == dropping.1 {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                index += 1
                run = index
                continue
            } else if byte < 0x80 {
                (scalar, length) = (UInt32(byte), 1)
            } else if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) {
                (scalar, length) = (UInt32(bytes[index + 1]), 2)
            } else if byte == 0xE2, index + 2 < bytes.count, bytes[index + 1] == 0x80,
                (0xA8...0xAE).contains(bytes[index + 2])
            {
                (scalar, length) = (0x2000 + UInt32(bytes[index + 2] - 0x80), 3)
            } else if byte == 0xE2, index + 2 < bytes.count, bytes[index + 1] == 0x81,
                (0xA6...0xA9).contains(bytes[index + 2])
            {
                (scalar, length) = (0x2040 + UInt32(bytes[index + 2] - 0x80), 3)
            } else {
                index += 1
                continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
            switch scalar {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            default: out.append(contentsOf: Array(("\\u" + VisibleText.hex(scalar, digits: 4)).utf8))
            }
            index += length
            run = index
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<bytes.count]))
    }

    /// Whether any of eight bytes is outside printable ASCII (a control, DEL, a byte of a multi-byte character) or is
    /// `"` or `\`: the bytes ``appendQuoted(_:to:)`` looks at one by one. (Each test finds whether some byte is
    /// below a bound or equal to a value, borrows aside: exact for "any", whichever byte it is.)
    @inline(__always)
    static func mayNeedEscape(_ bytes: UInt64) -> Bool {
        let highs: UInt64 = 0x8080_8080_8080_8080
        return bytes & highs != 0 || bytes.containsByte(below: 0x20) || bytes.containsByte(0x22)
            || bytes.containsByte(0x5C)
            || bytes.containsByte(0x7F)
    }
}

extension UInt64 {
    /// Whether any of its eight bytes is `byte`: the bytes equal to it are the zero bytes of `self ^ byte×8`, and
    /// `(x - 0x01…) & ~x & 0x80…` is non-zero exactly when `x` has a zero byte (a borrow may mark a byte after it
    /// too, so it says whether, not where). A scan of text tests eight bytes at once, and looks at them one by one
    /// only where this says one may be wanted.
    @inlinable @inline(__always)
    public func containsByte(_ byte: UInt8) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let value = self ^ (ones &* UInt64(byte))
        return (value &- ones) & ~value & (ones &* 0x80) != 0
    }

    /// Whether any of its eight bytes is below `bound` (at most 0x80): a borrow out of a byte marks it, and one
    /// below it too, so it says whether, not where.
    @inlinable @inline(__always)
    public func containsByte(below bound: UInt8) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        return (self &- ones &* UInt64(bound)) & ~self & (ones &* 0x80) != 0
    }
}
