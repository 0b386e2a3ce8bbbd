import ArgumentParser
import Foundation
import SpotliteJSON
import TrackerStore

struct ResolveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Print the item, project or message behind tracker:// URIs (deep links).",
        discussion: """
            Give URIs as arguments, or - to read them from standard input, one a line (NUL-separated with --null): \
            spotlite search tap --format ids | spotlite resolve -. Exit status: 0 when every URI resolves (also \
            when none was given on standard input); 3 when one is not in the store (deleted); 2 when one is \
            malformed; 4 when one belongs to a store that is neither the default nor a named one (see `spotlite \
            stores`): URIs of named stores are resolved in them. With --stores, a row held by several of those \
            stores is shown from the copy modified last. Every URI is still reported, each failure on stderr.
            """
    )

    @OptionGroup var options: StoreOptions

    @Argument(help: "tracker://<store-uuid>/item/<uuid> (or /project/<uuid>, /message/<uuid>), or - for stdin.")
    var uris: [String] = []

    @Option(
        help: ArgumentHelp(
            "text, json, jsonl or ids. json: one URI argument's row, else {\"results\": [...]} with each URI's row or "
                + "{\"uri\", \"error\"} in order (as POST /v1/resolve); jsonl: one such line per URI."))
    var format: OutputFormat = .text

    @Option(
        help: ArgumentHelp(
            "Look for each row in these named stores too (all, or names separated by commas): the newest copy wins.",
            valueName: "names"))
    var stores: String?

    @Flag(
        name: [.customShort("0"), .customLong("null")],
        help: "URIs on standard input are separated by NUL bytes, and ids/jsonl records end with one (xargs -0).")
    var null = false

    func validate() throws {
        if uris.isEmpty { throw ValidationError("give tracker:// URIs, or - to read them from standard input") }
        if uris.contains("-") && uris.count > 1 {
            throw ValidationError("give URIs as arguments or - for standard input, not both")
        }
    }

    func run() throws {
        let readsInput = uris == ["-"]
        let texts = readsInput ? try running { try Input.records(separatedBy: null ? 0 : 0x0A) } : uris
        let selection = try stores.map { try StoreCatalog.load().select($0, defaultStore: options.storePath) }
        let router = StoreRouter(defaultPath: options.storePath, selection: selection)
        // The default store alone (the common case) is opened as before: migrations, its own errors.
        let primary = selection == nil ? try? options.openStore(forReading: true) : nil
        var worst: ErrorCode?
        // Each input's answer, in order: its row, or what is wrong with it.
        var answers: [Answer] = []
        for text in texts {
            do {
                let uri = try TrackerURI(parsing: text)
                if let primary, uri.storeID == primary.uuid {
                    answers.append(.row(Row(uri: uri, entity: try primary.entity(for: uri), stored: nil)))
                } else {
                    let row = try router.entity(for: uri)
                    answers.append(.row(Row(uri: row.uri, entity: row.entity, stored: (row.store, row.alsoIn))))
                }
            } catch {
                let failure = CLIError.from(error)
                Output.note("spotlite: \(failure.message)")
                answers.append(.failed(input: text, failure))
                // Report the most serious failure: malformed input outranks a foreign or missing URI.
                if worst == nil || failure.status == .usage { worst = failure.status }
            }
        }
        let rows = answers.compactMap { if case .row(let row) = $0 { row } else { nil } }
        switch format {
        case .ids:
            for row in rows { Output.record(row.uri.description, nullTerminated: null) }
        case .jsonl:
            for answer in answers { Output.record(Self.json(answer).text, nullTerminated: null) }
        case .json:
            // One URI argument: its row as `GET /v1/items/{uuid}` answers it; else what `POST /v1/resolve` answers.
            let single = !readsInput && texts.count == 1
            Output.line(
                (single ? Self.json(answers[0]) : .object([("results", .array(answers.map(Self.json)))])).text)
        case .text:
            for (number, row) in rows.enumerated() {
                if number > 0 { Output.line("") }
                Output.line(Self.text(row.entity, uri: row.uri, store: row.stored))
            }
        }
        if let worst { throw ExitCode(worst.rawValue) }
    }

    /// A URI that resolved: its row, and the named stores holding it (with --stores).
    struct Row {
        var uri: TrackerURI
        var entity: StoreEntity
        var stored: (store: String, alsoIn: [String])?
    }

    /// One input's answer.
    enum Answer {
        case row(Row)
        case failed(input: String, CLIError)
    }

    /// An answer as JSON: the row, or `{"uri": …, "error": {problem}}` as the server's resolve gives it.
    static func json(_ answer: Answer) -> JSON {
        switch answer {
        case .row(let row):
            return EntityJSON.json(row.entity, uri: row.uri, store: row.stored?.store, alsoIn: row.stored?.alsoIn ?? [])
        case .failed(let input, let failure):
            return ProblemJSON.failedURI(input, failure.status, detail: failure.message)
        }
    }

    static let priorityNames = [1: "low", 2: "medium", 3: "high"]

    /// The tracker fields that are set, a line each, control characters shown.
    static func trackingLines(_ t: ItemTracking, storeID: String) -> [String] {
        let line = { (text: String) in VisibleText.escaped(text) }
        var lines: [String] = []
        if let closed = t.closedAt { lines.append("  closed:    \(line(closed))") }
        if !t.resolution.isEmpty { lines.append("  resolution: \(line(t.resolution))") }
        if !t.author.isEmpty { lines.append("  author:    \(line(t.author))") }
        if !t.assignees.isEmpty { lines.append("  assignees: \(t.assignees.map(line).joined(separator: ", "))") }
        if !t.tags.isEmpty { lines.append("  tags:      \(t.tags.map(line).joined(separator: ", "))") }
        for link in t.links {
            let label = link.kind.rawValue + ":"
            let padded = label.count < 11 ? label.padding(toLength: 11, withPad: " ", startingAt: 0) : label + " "
            lines.append("  \(padded)\(link.target(in: storeID))")
        }
        if !t.sourceKey.isEmpty { lines.append("  key:       \(line(t.sourceKey))") }
        if !t.sourceURL.isEmpty { lines.append("  url:       \(line(t.sourceURL))") }
        return lines
    }

    static func text(_ entity: StoreEntity, uri: TrackerURI, store: (store: String, alsoIn: [String])? = nil) -> String
    {
        // One-line fields show line breaks as escapes too; the detail and a message's text keep theirs.
        let line = { (text: String) in VisibleText.escaped(text) }
        var lines: [String] = []
        switch entity {
        case .item(let item, let project):
            let projectURI = TrackerURI(storeID: uri.storeID, kind: .project, entityID: project.id)
            lines = [
                line(item.title),
                "  uri:       \(uri)",
                "  kind:      item",
                "  project:   \(line(project.title)) (\(projectURI))",
                "  priority:  \(item.priority) (\(Self.priorityNames[item.priority] ?? "?"))",
                "  status:    \(item.isCompleted ? "completed" : "open")",
                "  created:   \(line(item.createdAt))",
                "  modified:  \(line(item.modifiedAt))",
            ]
            lines += trackingLines(item.tracking, storeID: uri.storeID)
            if !item.commenters.isEmpty {
                lines.append("  commenters: \(item.commenters.map(line).joined(separator: ", "))")
            }
            if !item.detail.isEmpty { lines += ["", item.detail] }
        case .message(let message, let project, let item):
            let projectURI = TrackerURI(storeID: uri.storeID, kind: .project, entityID: project.id)
            lines = [
                line(entity.title),
                "  uri:       \(uri)",
                "  kind:      message",
                "  author:    \(message.author.isEmpty ? "(none)" : line(message.author))",
            ]
            if let item {
                let itemURI = TrackerURI(storeID: uri.storeID, kind: .item, entityID: item.id)
                lines.append("  item:      \(line(item.title)) (\(itemURI))")
            }
            lines += [
                "  project:   \(line(project.title)) (\(projectURI))",
                "  created:   \(line(message.createdAt))",
                "  modified:  \(line(message.modifiedAt))",
                "",
                message.text,
            ]
        case .project(let project):
            lines = [
                line(project.title),
                "  uri:       \(uri)",
                "  kind:      project",
                "  status:    \(project.isClosed ? "closed" : "open")",
                "  created:   \(line(project.createdAt))",
                "  modified:  \(line(project.modifiedAt))",
            ]
            if !project.detail.isEmpty { lines += ["", project.detail] }
        }
        // Third line on, under the kind, whatever the kind.
        if let store { lines.insert("  store:     \(([store.store] + store.alsoIn).joined(separator: ", "))", at: 3) }
        return lines.joined(separator: "\n")
    }
}
