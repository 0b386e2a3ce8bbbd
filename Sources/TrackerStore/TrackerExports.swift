import Foundation

/// Reads the exports of GitHub, Jira and Bugzilla (``ImportFormat``) into ``ExternalIssue``s.
enum TrackerExports {
    struct Failure: Error {
        var place: String
        var reason: String
        var message: String { "\(place): \(reason)" }
    }

    // MARK: - JSON fields

    /// Typed access to a JSON object's fields, with errors that name the field and the record.
    struct Fields {
        var object: [String: JSONValue]
        var place: String

        init(_ value: JSONValue?, place: String) throws {
            guard case .object(let object)? = value else {
                throw Failure(place: place, reason: "expected a JSON object {…}")
            }
            self.object = object
            self.place = place
        }

        init(object: [String: JSONValue], place: String) {
            self.object = object
            self.place = place
        }

        func fail(_ key: String, _ what: String) -> Failure {
            Failure(place: place, reason: "field \"\(key)\" \(what)")
        }

        func string(_ key: String) throws -> String? {
            switch object[key] {
            case nil, .null?: return nil
            case .string(let text)?:
                if text.utf8.contains(0) { throw fail(key, "contains a NUL character") }
                return text
            case .number(let number)?:
                if let whole = Int(exactly: number) { return String(whole) }
                throw fail(key, "must be a string")
            default: throw fail(key, "must be a string")
            }
        }

        func required(_ key: String) throws -> String {
            guard let text = try string(key) else { throw fail(key, "is missing") }
            return text
        }

        func child(_ key: String) throws -> Fields? {
            switch object[key] {
            case nil, .null?: return nil
            case .object(let object)?: return Fields(object: object, place: place)
            default: throw fail(key, "must be an object")
            }
        }

        func array(_ key: String) throws -> [JSONValue] {
            switch object[key] {
            case nil, .null?: return []
            case .array(let values)?: return values
            default: throw fail(key, "must be an array")
            }
        }

        /// Each element's `name` (or the element itself when it is a string): GitHub's labels, Jira's components.
        func names(_ key: String, field: String) throws -> [String] {
            var names: [String] = []
            for value in try array(key) {
                switch value {
                case .string(let text): names.append(text)
                case .object(let object):
                    if let name = try Fields(object: object, place: place).string(field) { names.append(name) }
                default: throw fail(key, "must be an array of strings or objects")
                }
            }
            return names
        }

        func date(_ key: String) throws -> String? {
            guard let text = try string(key), !text.isEmpty else { return nil }
            guard let date = TrackerDate.parse(text) else { throw fail(key, "is \(JSONLines.quote(text)), not a date") }
            return date
        }

        func bool(_ key: String) -> Bool? {
            if case .bool(let flag)? = object[key] { return flag }
            return nil
        }
    }

    /// The records of a JSON input: the elements of `key`'s array in a document (`{"issues": [...]}`), the elements of
    /// a top-level array, or one object a line.
    static func jsonRecords(_ data: Data, key: String?) throws -> [(place: String, value: JSONValue)] {
        let bytes = [UInt8](data)
        if let value = try? StrictJSON.parse(bytes) {
            if let key {
                guard case .object(let document) = value, case .array(let values)? = document[key] else {
                    throw Failure(place: "the document", reason: "expected {\"\(key)\": [...]}")
                }
                return values.enumerated().map { ("record \($0.offset + 1)", $0.element) }
            }
            if case .array(let values) = value {
                return values.enumerated().map { ("record \($0.offset + 1)", $0.element) }
            }
            return [("record 1", value)]
        }
        // One object a line.
        var records: [(place: String, value: JSONValue)] = []
        var number = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            do {
                records.append(("line \(number)", try StrictJSON.parse(Array(line))))
            } catch {
                throw Failure(place: "line \(number)", reason: error.text)
            }
        }
        return records
    }

    /// Jira's and Bugzilla's priority names, GitHub's `priority: high` labels: 3 high, 2 medium, 1 low.
    static func priority(_ name: String?) -> Int {
        switch name?.lowercased().trimmingCharacters(in: .whitespaces) {
        case "blocker", "critical", "highest", "high", "p1", "p2", "urgent": return 3
        case "minor", "trivial", "low", "lowest", "p4", "p5": return 1
        default: return 2
        }
    }

    // MARK: - GitHub

    /// `gh issue list --json number,title,body,labels,assignees,author,state,stateReason,createdAt,updatedAt,closedAt,
    /// comments,url`, or REST issue objects (`html_url`, `user`, `state_reason`, …).
    static func github(_ data: Data, includePullRequests: Bool, notes: inout ExternalImportNotes) throws
        -> [ExternalIssue]
    {
        var issues: [ExternalIssue] = []
        for (place, value) in try jsonRecords(data, key: nil) {
            let f = try Fields(value, place: place)
            if f.object["pull_request"] != nil || f.bool("isPullRequest") == true {
                if !includePullRequests {
                    notes.skipped += 1
                    continue
                }
            }
            let number = try f.required("number")
            let url = try f.string("html_url") ?? f.string("url") ?? ""
            guard let repository = repository(url) else {
                throw f.fail(
                    f.object["html_url"] != nil ? "html_url" : "url",
                    "does not name a GitHub repository (https://github.com/OWNER/REPO/issues/N)")
            }
            var issue = ExternalIssue(
                place: place, source: "github:\(repository)", id: number, projectKey: "github:\(repository)",
                projectTitle: repository, title: try f.required("title"), body: try f.string("body") ?? "")
            issue.created = try f.date("createdAt") ?? f.date("created_at")
            issue.updated = try f.date("updatedAt") ?? f.date("updated_at")
            issue.isClosed = (try f.string("state"))?.lowercased() == "closed"
            issue.tracking.closedAt = try f.date("closedAt") ?? f.date("closed_at")
            issue.tracking.author = try (f.child("author") ?? f.child("user"))?.string("login") ?? ""
            var assignees = try f.names("assignees", field: "login")
            if assignees.isEmpty, let single = try f.child("assignee")?.string("login") { assignees = [single] }
            issue.tracking.assignees = assignees
            issue.tracking.tags = try f.names("labels", field: "name")
            let reason = (try f.string("stateReason") ?? f.string("state_reason") ?? "").lowercased()
            if issue.isClosed, !reason.isEmpty { issue.tracking.resolution = reason }
            issue.tracking.sourceURL = url
            issue.tracking.sourceKey = "\(repository)#\(number)"
            issue.priority = priority(
                issue.tracking.tags.first { $0.lowercased().hasPrefix("priority") }.map {
                    String($0.split(separator: ":").last ?? "")
                })
            // The REST API's `comments` is a count: the comments themselves come from another endpoint.
            let comments: [JSONValue] = if case .number? = f.object["comments"] { [] } else { try f.array("comments") }
            for (index, value) in comments.enumerated() {
                let c = try Fields(value, place: "\(place), comment \(index + 1)")
                issue.comments.append(
                    .init(
                        id: try c.string("id"),
                        author: try (c.child("author") ?? c.child("user"))?.string("login") ?? "",
                        text: try c.string("body") ?? "", created: try c.date("createdAt") ?? c.date("created_at")))
            }
            // Closed as a duplicate, with GitHub's "Duplicate of #N" in a comment: the link GitHub shows.
            if reason == "duplicate",
                let target = issue.comments.lazy.compactMap({ duplicateTarget($0.text) }).first
            {
                issue.links.append((.duplicateOf, target))
            }
            issues.append(issue)
        }
        return issues
    }

    /// `OWNER/REPO` of `https://github.com/OWNER/REPO/issues/N` (or `/pull/N`).
    static func repository(_ url: String) -> String? {
        let parts = url.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 5, parts[0] == "https:", parts[2].lowercased() == "github.com", !parts[3].isEmpty,
            !parts[4].isEmpty
        else { return nil }
        return "\(parts[3])/\(parts[4])"
    }

    /// N of a line `Duplicate of #N`.
    static func duplicateTarget(_ text: String) -> String? {
        for line in text.split(whereSeparator: \.isNewline) {
            let words = line.trimmingCharacters(in: .whitespaces)
            guard words.lowercased().hasPrefix("duplicate of #") else { continue }
            let digits = words.dropFirst("duplicate of #".count).prefix { $0.isASCII && $0.isNumber }
            if !digits.isEmpty { return String(digits) }
        }
        return nil
    }

    // MARK: - Jira

    /// A Jira REST search result: `{"issues": [{"key": …, "fields": {…}}]}`.
    static func jira(_ data: Data) throws -> [ExternalIssue] {
        var issues: [ExternalIssue] = []
        for (place, value) in try jsonRecords(data, key: "issues") {
            let record = try Fields(value, place: place)
            let key = try record.required("key")
            guard let f = try record.child("fields") else { throw record.fail("fields", "is missing") }
            let project = try f.child("project")
            let projectKey = try project?.string("key") ?? String(key.split(separator: "-").first ?? Substring(key))
            var issue = ExternalIssue(
                place: place, source: "jira", id: key, projectKey: "jira:\(projectKey)",
                projectTitle: try project?.string("name") ?? projectKey, title: try f.required("summary"),
                body: try text(f.object["description"], field: "description", place: place))
            issue.created = try f.date("created")
            issue.updated = try f.date("updated")
            let resolution = try f.child("resolution")?.string("name")
            let status = try f.child("status")
            let category = try status?.child("statusCategory")?.string("key")
            let statusName = (try status?.string("name") ?? "").lowercased()
            issue.isClosed =
                resolution != nil || category == "done" || ["closed", "resolved", "done"].contains(statusName)
            issue.tracking.resolution = resolution ?? ""
            issue.tracking.closedAt = issue.isClosed ? try f.date("resolutiondate") : nil
            issue.tracking.author = try person(f.child("reporter")) ?? person(f.child("creator")) ?? ""
            issue.tracking.assignees = try person(f.child("assignee")).map { [$0] } ?? []
            issue.tracking.tags = try f.names("labels", field: "name")
            issue.tracking.sourceKey = key
            if let link = try record.string("self"), let range = link.range(of: "/rest/api/") {
                issue.tracking.sourceURL = String(link[..<range.lowerBound]) + "/browse/" + key
            }
            issue.priority = priority(try f.child("priority")?.string("name"))
            for (index, value) in (try f.array("issuelinks")).enumerated() {
                let link = try Fields(value, place: "\(place), issue link \(index + 1)")
                // Only the outward side: the inward side is the other issue's link ("is duplicated by").
                guard let outward = try link.child("outwardIssue")?.string("key") else { continue }
                let type = (try link.child("type")?.string("name") ?? "").lowercased()
                let kind: ItemLink.Kind =
                    type.hasPrefix("duplicate") ? .duplicateOf : type.hasPrefix("block") ? .blocks : .relatesTo
                issue.links.append((kind, outward))
            }
            for (index, value) in (try f.child("comment")?.array("comments") ?? []).enumerated() {
                let c = try Fields(value, place: "\(place), comment \(index + 1)")
                issue.comments.append(
                    .init(
                        id: try c.string("id"), author: try person(c.child("author")) ?? "",
                        text: try text(c.object["body"], field: "body", place: c.place), created: try c.date("created"))
                )
            }
            issues.append(issue)
        }
        return issues
    }

    /// A Jira user's name: `displayName`, else `name`, else `emailAddress`.
    static func person(_ fields: Fields?) throws -> String? {
        guard let fields else { return nil }
        return try fields.string("displayName") ?? fields.string("name") ?? fields.string("emailAddress")
    }

    /// A text field: a string (API v2), or the text of an Atlassian Document (API v3), a paragraph a line.
    static func text(_ value: JSONValue?, field: String, place: String) throws -> String {
        switch value {
        case nil, .null?: return ""
        case .string(let text)?: return text
        case .object?:
            var out = ""
            collectText(value!, into: &out)
            return out.trimmingCharacters(in: .whitespacesAndNewlines)
        default: throw Failure(place: place, reason: "field \"\(field)\" must be a string or a document")
        }
    }

    /// The `text` of an Atlassian Document's nodes, in order, a line break after each block. StrictJSON bounds the
    /// nesting, so the recursion is bounded.
    private static func collectText(_ value: JSONValue, into out: inout String) {
        guard case .object(let node) = value else { return }
        if case .string(let text)? = node["text"] { out += text }
        if case .array(let children)? = node["content"] {
            for child in children { collectText(child, into: &out) }
            if case .string(let type)? = node["type"], type != "doc", type != "text" { out += "\n" }
        }
    }

    // MARK: - Bugzilla

    /// A Bugzilla REST result: `{"bugs": [...]}`, each bug's `comments` (from the comment endpoint) included where
    /// present.
    static func bugzilla(_ data: Data) throws -> [ExternalIssue] {
        var issues: [ExternalIssue] = []
        for (place, value) in try jsonRecords(data, key: "bugs") {
            let f = try Fields(value, place: place)
            let id = try f.required("id")
            let product = try f.string("product") ?? "Bugzilla"
            var issue = ExternalIssue(
                place: place, source: "bugzilla", id: id, projectKey: "bugzilla:\(product)", projectTitle: product,
                title: try f.required("summary"), body: "")
            issue.created = try f.date("creation_time")
            issue.updated = try f.date("last_change_time")
            let status = (try f.string("status") ?? "").uppercased()
            issue.isClosed = f.bool("is_open") == false || ["RESOLVED", "VERIFIED", "CLOSED"].contains(status)
            issue.tracking.resolution = try f.string("resolution") ?? ""
            issue.tracking.closedAt = issue.isClosed ? try f.date("cf_last_closed") : nil
            issue.tracking.author = try f.string("creator") ?? ""
            if let assignee = try f.string("assigned_to"), !assignee.isEmpty, !assignee.hasPrefix("nobody@") {
                issue.tracking.assignees = [assignee]
            }
            issue.tracking.tags = try f.names("keywords", field: "name")
            issue.tracking.sourceKey = "bug-\(id)"
            issue.priority = priority(try f.string("priority"))
            if let original = try f.string("dupe_of") { issue.links.append((.duplicateOf, original)) }
            for value in try f.array("blocks") {
                if case .number(let number) = value, let target = Int(exactly: number) {
                    issue.links.append((.blocks, String(target)))
                }
            }
            for (index, value) in (try f.array("comments")).enumerated() {
                let c = try Fields(value, place: "\(place), comment \(index + 1)")
                issue.comments.append(
                    .init(
                        id: try c.string("id"), author: try c.string("creator") ?? c.string("author") ?? "",
                        text: try c.string("text") ?? "", created: try c.date("creation_time") ?? c.date("time")))
            }
            // Bugzilla's description is its comment number 0.
            if case .object(let first)? = (try f.array("comments")).first, case .number(0)? = first["count"] {
                issue.body = issue.comments.removeFirst().text
            }
            issues.append(issue)
        }
        return issues
    }

    // MARK: - CSV

    /// Jira's CSV export and Bugzilla's buglist CSV (and GitBugs' shape of them), by their column names (any case;
    /// Jira repeats `Labels`, `Comment` and link columns, one value each).
    static func csv(_ data: Data, format: ImportFormat, fileName: String) throws -> [ExternalIssue] {
        let rows: [(line: Int, fields: [String])]
        do {
            rows = try CSVRows.parse([UInt8](data))
        } catch {
            throw Failure(place: "line \(error.line)", reason: error.reason)
        }
        guard let header = rows.first else {
            throw Failure(place: "line 1", reason: "the file is empty; expected a header")
        }
        var columns: [String: [Int]] = [:]
        for (index, name) in header.fields.enumerated() {
            columns[name.trimmingCharacters(in: .whitespaces).lowercased(), default: []].append(index)
        }
        func all(_ names: [String], _ row: [String]) -> [String] {
            names.flatMap { columns[$0] ?? [] }.compactMap { $0 < row.count ? row[$0] : nil }
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        func first(_ names: [String], _ row: [String]) -> String? { all(names, row).first }
        let idColumns = ["issue key", "issue id", "bug_id", "bug id"]
        guard idColumns.contains(where: { columns[$0] != nil }),
            columns["summary"] != nil || columns["short_desc"] != nil
        else {
            throw Failure(
                place: "line \(header.line)",
                reason:
                    "the header has no issue id and summary columns (Issue key or Issue id, and Summary; or bug_id and short_desc)"
            )
        }
        let source = format == .bugzillaCSV ? "bugzilla" : "jira"
        // Jira's link columns may hold the linked issue's id or its key: ids are put back to keys.
        var keyOfID: [String: String] = [:]
        for row in rows.dropFirst() {
            if let key = first(["issue key"], row.fields), let id = first(["issue id"], row.fields) {
                keyOfID[id] = key
            }
        }
        let defaultProject =
            (fileName as NSString).lastPathComponent.split(separator: ".").first.map(String.init) ?? "Imported"
        var issues: [ExternalIssue] = []
        for (line, row) in rows.dropFirst() {
            let place = "line \(line)"
            guard let id = first(idColumns, row) else { throw Failure(place: place, reason: "the issue id is empty") }
            guard let title = first(["summary", "short_desc"], row) else {
                throw Failure(place: place, reason: "the summary is empty")
            }
            let key = first(["issue key"], row)
            let projectKey =
                first(["project key"], row) ?? key.map { String($0.split(separator: "-").first ?? "") }
                ?? first(["product"], row) ?? defaultProject
            var issue = ExternalIssue(
                place: place, source: source, id: id, projectKey: "\(source):\(projectKey)",
                projectTitle: first(["project name", "product"], row) ?? projectKey, title: title,
                body: first(["description", "longdesc"], row) ?? "")
            func date(_ names: [String]) throws -> String? {
                guard let text = first(names, row) else { return nil }
                guard let date = TrackerDate.parse(text) else {
                    throw Failure(place: place, reason: "\(names[0]) is \(JSONLines.quote(text)), not a date")
                }
                return date
            }
            issue.created = try date(["created", "opendate", "creation_ts"])
            issue.updated = try date(["updated", "changeddate", "delta_ts"])
            let status = (first(["status", "bug_status"], row) ?? "").lowercased()
            let resolution = first(["resolution"], row) ?? ""
            issue.isClosed =
                ["closed", "resolved", "done", "verified"].contains(status)
                || (!resolution.isEmpty && !["unresolved", "---", "open"].contains(resolution.lowercased()))
            if issue.isClosed {
                issue.tracking.resolution = resolution.lowercased() == "unresolved" ? "" : resolution
                issue.tracking.closedAt = try date(["resolved", "cf_last_closed"])
            }
            issue.tracking.author = first(["reporter", "creator"], row) ?? ""
            issue.tracking.assignees = all(["assignee", "assigned_to_realname", "assigned_to"], row).prefix(1)
                .filter { !$0.hasPrefix("nobody@") }
            issue.tracking.tags =
                all(["labels"], row)
                + all(["keywords"], row).flatMap {
                    $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                }
                .filter { !$0.isEmpty }
            issue.tracking.sourceKey = key ?? (source == "bugzilla" ? "bug-\(id)" : "")
            issue.priority = priority(first(["priority"], row))
            let target = { (value: String) in keyOfID[value] ?? value }
            for value in all(["outward issue link (duplicate)", "dup_id", "dupe_of"], row) {
                issue.links.append((.duplicateOf, target(value)))
            }
            for value in all(["outward issue link (blocks)", "blocks"], row) {
                for part in value.split(separator: ",") {
                    issue.links.append((.blocks, target(part.trimmingCharacters(in: .whitespaces))))
                }
            }
            for value in all(["outward issue link (relates)"], row) { issue.links.append((.relatesTo, target(value))) }
            for (index, value) in all(["comment"], row).enumerated() {
                // Jira: "30/Sep/21 17:20;author;text".
                let parts = value.split(separator: ";", maxSplits: 2, omittingEmptySubsequences: false)
                if parts.count == 3, let created = TrackerDate.parse(String(parts[0])) {
                    issue.comments.append(
                        .init(id: String(index), author: String(parts[1]), text: String(parts[2]), created: created))
                } else {
                    issue.comments.append(.init(id: String(index), author: "", text: value, created: nil))
                }
            }
            issues.append(issue)
        }
        return issues
    }
}
