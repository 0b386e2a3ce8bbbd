import Foundation
import TestSupport
import Testing

/// The hostile-string corpus (`Tests/Corpora/hostile-strings.json`) in a store, as an import or a sync engine would
/// put it there: a project, an item and a message for each string, and message authors written by a plain
/// `sqlite3` shell (Spotlite's own writes refuse such names). Every text the CLI prints shows it as text.
struct HostileRows {
    var projects: [String] = []
    var items: [String] = []
    var messages: [String] = []
    let storeID: String

    init(_ cli: CLI) throws {
        storeID = try #require(cli.statusJSON()["store_uuid"] as? String)
        var lines: [String] = []
        var authors: [(id: String, text: String)] = []
        for entry in try HostileStrings.storable() {
            let (project, item, message) = (Self.uuid(), Self.uuid(), Self.uuid())
            let text = entry.text
            lines.append(Self.line(["kind": "project", "id": project, "title": "Hostile " + text, "detail": text]))
            lines.append(
                Self.line([
                    "kind": "item", "id": item, "project": project, "title": text,
                    "detail": "hostile intro " + text + " outro",
                ]))
            lines.append(
                Self.line(["kind": "message", "id": message, "item": item, "author": "Sam", "text": "hostile " + text]))
            projects.append(project)
            items.append(item)
            messages.append(message)
            authors.append((message, text))
        }
        let file = cli.directory.file("hostile.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: file))
        let imported = cli("import", file)
        #expect(imported.status == 0, "\(imported.stderr)")
        let updates = authors.map { id, text in
            let hex = text.utf8.map { String(format: "%02X", $0) }.joined()
            return "UPDATE messages SET author = CAST(X'\(hex)' AS TEXT) WHERE id = '\(id)';"
        }
        let written = cli.sqlite(updates.joined(separator: "\n"))
        #expect(written.status == 0, "\(written.stderr)")
    }

    static func uuid() -> String { UUID().uuidString.lowercased() }

    static func line(_ fields: [String: String]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: fields)) ?? Data(), as: UTF8.self)
    }

    func uri(_ kind: String, _ id: String) -> String { "tracker://\(storeID)/\(kind)/\(id)" }

    var uris: [String] {
        projects.map { uri("project", $0) } + items.map { uri("item", $0) } + messages.map { uri("message", $0) }
    }

    var pagePaths: [String] {
        projects.map { "/projects/\($0)" } + items.map { "/items/\($0)" } + messages.map { "/messages/\($0)" }
    }

    /// The tags a page of the server is made of: anything else in a page came from the store's text.
    static let templateTags: Set<String> = [
        "!doctype", "html", "head", "meta", "title", "link", "script", "body", "p", "a", "h1", "h2", "dl", "dt", "dd",
        "code", "div", "ul", "ol", "li", "span", "input", "time", "main", "nav", "button",
    ]

    /// `page` holds no raw control character, no tag but the template's, no inline script and no event handler.
    static func expectOnlyTemplateMarkup(_ page: Data, path: String) throws {
        if let control = HostileStrings.firstRawControl(in: page) {
            Issue.record("\(path): a raw control character \(control.bytes) at byte \(control.offset)")
        }
        let html = String(decoding: page, as: UTF8.self)
        // Matched by scalar, as a browser reads HTML: by Character, a `>` that a joiner follows is no `>`.
        let tag = try Regex(#"<(/?)([!A-Za-z][A-Za-z0-9]*)([^>]*)>"#).matchingSemantics(.unicodeScalar)
        for match in html.matches(of: tag) {
            let name = String(match.output[2].substring ?? "").lowercased()
            let attributes = String(match.output[3].substring ?? "")
            #expect(templateTags.contains(name), "\(path): a <\(name)> tag: \(match.output[0].substring ?? "")")
            #expect(!attributes.lowercased().contains(" on"), "\(path): an event handler: \(attributes)")
            if name == "script" && match.output[1].substring?.isEmpty == true {
                #expect(attributes.contains("src=\"/assets/"), "\(path): an inline script")
            }
        }
    }
}

/// The CLI's text outputs with hostile text in the store, and hostile text given to it.
@Suite struct HostileTextTests {
    /// Every output, to a pipe as a terminal would get it: no raw control character (escape sequences, C1, bidi
    /// overrides) on stdout or stderr, whatever the store holds; JSON keeps them as escapes.
    @Test func everyTextOutputShowsStoredControlsAsEscapes() throws {
        let cli = CLI.withSamples()
        let rows = try HostileRows(cli)
        let item = rows.uri("item", rows.items[0])
        let project = rows.uri("project", rows.projects[0])
        var runs: [[String]] = [
            ["search", "hostile", "--limit", "200"],
            ["search", "hostile", "--limit", "200", "--facets", "project", "--explain"],
            ["search", "hostile", "--format", "json", "--limit", "200"],
            ["search", "hostile", "--format", "jsonl", "--limit", "200"],
            ["search", "hostile", "--format", "ids", "--facets", "project"],
            ["search", "kind:message", "hostile", "--limit", "200"],
            ["search", "kind:project", "hostile", "--limit", "200"],
            ["resolve"] + rows.uris,
            ["resolve", "--format", "json"] + rows.uris,
            ["resolve", "--format", "jsonl"] + rows.uris,
            ["similar", item],
            ["open", item],
            ["messages", project, "--all"],
            ["messages", project, "--all", "--format", "jsonl"],
            ["export"],
            // Hostile text typed as a query, or as a URI.
            ["search", "x \u{1B}]0;PWNED\u{7} \u{9B}2J"],
            ["resolve", "tracker://\u{1B}[2J/item/x"],
        ]
        runs += rows.items.prefix(4).map { ["messages", rows.uri("item", $0)] }
        for arguments in runs {
            let result = cli.run(arguments: arguments)
            #expect([0, 1, 2, 3].contains(result.status), "\(arguments): \(result.status) \(result.stderr)")
            for (stream, data) in [("stdout", result.stdoutData), ("stderr", Data(result.stderr.utf8))] {
                if let control = HostileStrings.firstRawControl(in: data) {
                    Issue.record(
                        "\(arguments.prefix(3)) \(stream): raw control \(control.bytes) at byte \(control.offset)")
                }
            }
        }
        // The text format shows them visibly; JSON reads back to the stored text.
        let shown = cli("resolve", item).stdout
        #expect(shown.hasPrefix("\u{600}<img src=x onerror=alert(1) \u{600}>\n"), "\(shown)")
        let titles = cli("search", "hostile", "--limit", "200", "--format", "json").stdout
        let hits =
            (try JSONSerialization.jsonObject(with: Data(titles.utf8)) as? [String: Any])?["hits"] as? [[String: Any]]
        let stored = Set(try HostileStrings.storable().map(\.text))
        let found = Set((hits ?? []).compactMap { $0["title"] as? String })
        #expect(stored.isSubset(of: found), "\(stored.subtracting(found))")
    }

    /// An author is shown on one line: a name holding control characters is refused at the door.
    @Test func anAuthorWithControlCharactersIsRefused() {
        let cli = CLI.withSamples()
        let item = cli("search", "leaking", "tap", "--format", "ids", "--limit", "1").stdoutLines.first ?? ""
        let result = cli("comment", item, "hello", "--author", "Eve\u{1B}[2J")
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "spotlite: the author's name holds the control character \\x1b; give a name of printable characters\n"
        )
        #expect(cli("messages", item, "--format", "ids").stdoutLines.count == 1)  // the sample's message alone
    }

    /// Every error is one line, whatever it quotes.
    @Test func anErrorQuotingALineBreakIsOneLine() {
        let cli = CLI.withSamples()
        let result = cli("stores", "add", "two\nlines", cli.storePath)
        #expect(result.status == 2)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("two\\nlines"), "\(result.stderr)")
    }
}
