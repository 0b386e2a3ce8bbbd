import Foundation

/// The formats `spotlite import --from` reads.
public enum ImportFormat: String, CaseIterable, Sendable {
    /// Spotlite's own JSON Lines (docs/import.md).
    case spotlite
    /// `gh issue list --json …` output, or GitHub REST issue objects (an array, or one object a line).
    case github
    /// A Jira REST search result, `{"issues": [...]}`.
    case jira
    /// Jira's CSV export (and GitBugs' shorter shape of it).
    case jiraCSV = "jira-csv"
    /// A Bugzilla REST result, `{"bugs": [...]}`.
    case bugzilla
    /// Bugzilla's buglist CSV (and GitBugs' shape).
    case bugzillaCSV = "bugzilla-csv"

    /// The format the input says it is in, from its first bytes: a JSON document's shape, a JSON line's fields (JSON
    /// Lines when they say nothing else), or a CSV header's columns; nil for a CSV header of other columns.
    public static func guess(_ data: Data) -> ImportFormat? {
        let bytes = [UInt8](data.prefix(1 << 20))
        guard let first = bytes.firstIndex(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else {
            return nil
        }
        let head = String(decoding: bytes[first...].prefix(64 << 10), as: UTF8.self)
        if bytes[first] == UInt8(ascii: "{") || bytes[first] == UInt8(ascii: "[") {
            // A whole document's shape, else its first line's.
            let line = head.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? head
            if let value = try? StrictJSON.parse(Array(line.utf8)) {
                switch value {
                case .object(let fields) where fields["kind"] != nil: return .spotlite
                case .object(let fields) where fields["issues"] != nil: return .jira
                case .object(let fields) where fields["bugs"] != nil: return .bugzilla
                case .object(let fields) where fields["number"] != nil: return .github
                case .array(let values): return values.isEmpty ? .github : guessArray(values)
                default: return nil
                }
            }
            // A document longer than the head, or a first line that is not JSON: its opening says which, and JSON
            // Lines is the default (its reader names a bad line exactly).
            if head.hasPrefix("[") { return .github }
            let opening = head.prefix(4_096)
            if opening.contains("\"issues\"") { return .jira }
            if opening.contains("\"bugs\"") { return .bugzilla }
            return .spotlite
        }
        let header = (head.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? "").lowercased()
        if header.contains("bug_id") || header.contains("bug id") { return .bugzillaCSV }
        if header.contains("summary") && (header.contains("issue key") || header.contains("issue id")) {
            return .jiraCSV
        }
        // A CSV header of other columns says no format; anything else is read as JSON Lines, whose reader names
        // what is wrong with its first line.
        return header.contains(",") ? nil : .spotlite
    }

    private static func guessArray(_ values: [JSONValue]) -> ImportFormat? {
        guard case .object(let fields) = values[0] else { return nil }
        return fields["number"] != nil ? .github : nil
    }
}

/// One issue as a tracker's export holds it, on its way to the store's rows (``records(_:)``).
struct ExternalIssue {
    /// Where in the input it is, for errors: `record 3`, `line 4`.
    var place: String
    /// The tracker and its namespace of ids: `github:octo/app`, `jira`, `bugzilla`.
    var source: String
    /// Its id in that namespace: `12`, `HADOOP-1234`, `13404344`.
    var id: String
    /// The project it is in: a stable key and a title.
    var projectKey: String
    var projectTitle: String
    var title: String
    var body: String
    var priority = 2
    var isClosed = false
    var created: String?
    var updated: String?
    var tracking = ItemTracking()
    /// Links to other issues of the same source, by id.
    var links: [(kind: ItemLink.Kind, target: String)] = []
    var comments: [Comment] = []

    struct Comment {
        var id: String?
        var author: String
        var text: String
        var created: String?
    }

    var itemID: String { Self.itemID(source, id) }
    static func projectID(_ key: String) -> String { StableID.uuid("project \(key)") }

    /// Its page on the tracker at `base` (``TrackerStore/trackerAddress(_:)``), for an export that names none: a
    /// Bugzilla bug's `show_bug.cgi?id=ID`, a Jira issue's `browse/KEY`; nil for another tracker, or a Jira issue
    /// without a key.
    func page(on base: String) -> String? {
        switch source {
        case "bugzilla":
            return id.addingPercentEncoding(withAllowedCharacters: .alphanumerics).map {
                "\(base)/show_bug.cgi?id=\($0)"
            }
        case "jira" where !tracking.sourceKey.isEmpty:
            return tracking.sourceKey.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed).map {
                "\(base)/browse/\($0)"
            }
        default: return nil
        }
    }
}

extension TrackerStore {
    /// A tracker's address as an import takes it (`https://bugzilla.mozilla.org`, `https://issues.apache.org/jira`):
    /// http or https, a host, no query, fragment, white space or control character, at most 1,024 bytes; returned
    /// without a trailing `/`. Throws ``StoreError/Code-swift.struct/invalidInput`` saying what is wrong.
    public static func trackerAddress(_ text: String) throws(StoreError) -> String {
        let scheme = text.hasPrefix("https://") ? "https://" : text.hasPrefix("http://") ? "http://" : nil
        var rest = text.dropFirst(scheme?.count ?? 0)
        while rest.hasSuffix("/") { rest.removeLast() }
        let base = (scheme ?? "") + rest
        let reason: String? =
            if scheme == nil {
                "is not an http(s) address"
            } else if base.utf8.count > 1_024 {
                "is longer than 1,024 bytes"
            } else if base.unicodeScalars.contains(where: {
                $0.properties.isWhitespace || $0.properties.generalCategory == .control
                    || "?#".unicodeScalars.contains($0)
            }) {
                "holds a space, a control character, a ? or a #"
            } else if rest.prefix(while: { $0 != "/" }).isEmpty {
                "names no host"
            } else {
                nil
            }
        if let reason {
            throw StoreError(
                .invalidInput,
                "the tracker's address \(JSONLines.quote(VisibleText.escaped(text))) \(reason); give one like "
                    + "https://bugzilla.mozilla.org")
        }
        return base
    }
}

/// What turning issues into rows could not keep, for the import's summary.
public struct ExternalImportNotes: Sendable, Equatable {
    /// Links to issues that are neither in the input nor already in the store: left out.
    public var linksLeftOut = 0
    /// Comments longer than a message may be (``Message/maximumTextBytes``): cut to it.
    public var commentsCut = 0
    /// Records skipped as asked (GitHub pull requests).
    public var skipped = 0

    public init() {}
}

extension ExternalIssue {
    /// The store's records for `issues`: a project per project key (created when its first issue was), an item per
    /// issue, a message per comment, every id stable (``StableID``). Each field is checked as the store checks it;
    /// the first that cannot be stored is an error naming its record. `now` stands for a time an issue does not give
    /// (a project's is its earliest issue's given time).
    static func records(_ issues: [ExternalIssue], now: String, notes: inout ExternalImportNotes) throws(StoreError)
        -> [(line: Int, record: JSONLinesRecord)]
    {
        var projects: [String: Project] = [:]
        var projectOrder: [String] = []
        var items: [(line: Int, record: JSONLinesRecord)] = []
        var messages: [(line: Int, record: JSONLinesRecord)] = []
        var places: [String: String] = [:]
        for (index, issue) in issues.enumerated() {
            func fail(_ error: StoreError) -> StoreError {
                StoreError(.invalidInput, "\(issue.place) (\(issue.id)): \(error.message)")
            }
            if let earlier = places.updateValue(issue.place, forKey: issue.itemID) {
                throw fail(StoreError(.invalidInput, "the issue is in the export twice (also \(earlier))"))
            }
            let projectID = Self.projectID(issue.projectKey)
            let created = issue.created ?? now
            if var project = projects[projectID] {
                if created != now, project.createdAt == now || created < project.createdAt {
                    project.createdAt = created
                }
                project.modifiedAt = project.createdAt
                projects[projectID] = project
            } else {
                let title: String
                do {
                    title = try Validation.title(issue.projectTitle, of: "project")
                } catch {
                    throw fail(error)
                }
                projects[projectID] = Project(id: projectID, title: title, createdAt: created, modifiedAt: created)
                projectOrder.append(projectID)
            }
            var tracking = issue.tracking
            tracking.links = issue.links.map { ItemLink(kind: $0.kind, itemID: Self.itemID(issue.source, $0.target)) }
            let item: Item
            do {
                try Validation.text(issue.body, field: "description")
                item = Item(
                    id: issue.itemID, projectID: projectID, title: try Validation.title(issue.title, of: "issue"),
                    detail: issue.body, priority: issue.priority, isCompleted: issue.isClosed, createdAt: created,
                    modifiedAt: issue.updated ?? created, tracking: try Validation.tracking(tracking))
            } catch {
                throw fail(error)
            }
            items.append((index + 1, .item(item)))
            for (number, comment) in issue.comments.enumerated() {
                var text = comment.text
                if text.utf8.count > Message.maximumTextBytes {
                    text = Self.cut(text, toBytes: Message.maximumTextBytes - 3) + "…"
                    notes.commentsCut += 1
                }
                if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { continue }
                let author: String
                do {
                    author = try Validation.line(
                        comment.author, field: "author's name", maximumBytes: Message.maximumAuthorBytes)
                    try Validation.message(text: text, author: author)
                } catch {
                    throw fail(error)
                }
                let commentCreated = comment.created ?? created
                let id = StableID.uuid("comment \(issue.source) \(issue.id) \(comment.id ?? String(number))")
                messages.append(
                    (
                        index + 1,
                        .message(
                            Message(
                                id: id, parent: .item(id: issue.itemID), author: author, text: text,
                                createdAt: commentCreated, modifiedAt: commentCreated))
                    ))
            }
        }
        return projectOrder.compactMap { id in projects[id].map { (0, .project($0)) } } + items + messages
    }

    static func itemID(_ source: String, _ id: String) -> String { StableID.uuid("item \(source) \(id)") }

    /// The longest prefix of `text` of at most `bytes` bytes of UTF-8 that ends on a character.
    static func cut(_ text: String, toBytes bytes: Int) -> String {
        var count = 0
        var end = text.startIndex
        for index in text.indices {
            let next = text[index].utf8.count
            if count + next > bytes { break }
            count += next
            end = text.index(after: index)
        }
        return String(text[..<end])
    }
}

/// Dates as trackers write them, in the store's form: ISO 8601 with `Z`, `+01:00` or `+0100` (Jira), with or without
/// a fraction; `2024-05-01 09:30:00` and `2024-05-01 09:30` (UTC, Bugzilla's CSV); `30/Sep/21 17:20` (Jira's CSV, UTC).
enum TrackerDate {
    static func parse(_ text: String) -> String? {
        let text = text.trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return nil }
        if let iso = Timestamp.normalize(text) { return iso }
        // +hhmm → +hh:mm
        if text.count > 5, let sign = text.dropLast(4).last, sign == "+" || sign == "-",
            text.suffix(4).allSatisfy(\.isASCII), text.suffix(4).allSatisfy(\.isNumber)
        {
            let zone = text.suffix(4)
            if let iso = Timestamp.normalize(String(text.dropLast(4)) + zone.prefix(2) + ":" + zone.suffix(2)) {
                return iso
            }
        }
        // 2024-05-01 09:30:00 / 2024-05-01 09:30 (UTC)
        let parts = text.split(separator: " ")
        if parts.count == 2, parts[0].count == 10, parts[0].dropFirst(4).first == "-" {
            let time = parts[1].count == 5 ? parts[1] + ":00" : parts[1]
            return Timestamp.normalize("\(parts[0])T\(time)Z")
        }
        // 30/Sep/21 17:20 (Jira)
        if parts.count == 2 || parts.count == 3 {
            let date = parts[0].split(separator: "/")
            let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
            guard date.count == 3, let day = Int(date[0]), let month = months.firstIndex(of: date[1].lowercased()),
                var year = Int(date[2])
            else { return nil }
            if date[2].count == 2 { year += year < 70 ? 2000 : 1900 }
            let clock = parts[1].split(separator: ":")
            guard clock.count == 2 || clock.count == 3, var hour = Int(clock[0]), let minute = Int(clock[1]) else {
                return nil
            }
            if parts.count == 3 {  // 9:30 AM
                let half = parts[2].uppercased()
                guard half == "AM" || half == "PM", (1...12).contains(hour) else { return nil }
                hour = hour % 12 + (half == "PM" ? 12 : 0)
            }
            let second = clock.count == 3 ? Int(clock[2]) ?? -1 : 0
            return Timestamp.normalize(
                String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, month + 1, day, hour, minute, second))
        }
        return nil
    }
}
