import ArgumentParser
import Foundation
import SpotliteJSON
import TrackerStore

struct ResolveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Print the item or project behind tracker:// URIs (deep links).",
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

    @Argument(help: "tracker://<store-uuid>/item/<uuid> or tracker://<store-uuid>/project/<uuid>, or - for stdin.")
    var uris: [String] = []

    @Option(help: "text, json (one object for one URI argument, else an array), jsonl or ids.")
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
        var found: [(TrackerURI, StoreEntity)] = []
        var stored: [(store: String, alsoIn: [String])?] = []
        for text in texts {
            do {
                let uri = try TrackerURI(parsing: text)
                if let primary, uri.storeID == primary.uuid {
                    found.append((uri, try primary.entity(for: uri)))
                    stored.append(nil)
                } else {
                    let row = try router.entity(for: uri)
                    found.append((row.uri, row.entity))
                    stored.append((row.store, row.alsoIn))
                }
            } catch {
                let failure = CLIError.from(error)
                Output.note("spotlite: \(failure.message)")
                // Report the most serious failure: malformed input outranks a foreign or missing URI.
                if worst == nil || failure.status == .usage { worst = failure.status }
            }
        }
        switch format {
        case .ids:
            for (uri, _) in found { Output.record(uri.description, nullTerminated: null) }
        case .jsonl:
            for ((uri, entity), named) in zip(found, stored) {
                Output.record(
                    EntityJSON.json(entity, uri: uri, store: named?.store, alsoIn: named?.alsoIn ?? []).text,
                    nullTerminated: null)
            }
        case .json:
            let objects = zip(found, stored).map {
                EntityJSON.json($0.0.1, uri: $0.0.0, store: $0.1?.store, alsoIn: $0.1?.alsoIn ?? [])
            }
            Output.line((!readsInput && texts.count == 1 ? (objects.first ?? .null) : .array(objects)).text)
        case .text:
            for (number, ((uri, entity), named)) in zip(found, stored).enumerated() {
                if number > 0 { Output.line("") }
                Output.line(Self.text(entity, uri: uri, store: named))
            }
        }
        if let worst { throw ExitCode(worst.rawValue) }
    }

    static let priorityNames = [1: "low", 2: "medium", 3: "high"]

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
