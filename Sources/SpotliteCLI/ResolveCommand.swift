import SpotliteJSON
import ArgumentParser
import Foundation
import TrackerStore

struct ResolveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Print the item or project behind tracker:// URIs (deep links).",
        discussion: """
            Give URIs as arguments, or - to read them from standard input, one a line (NUL-separated with --null): \
            spotlite search tap --format ids | spotlite resolve -. Exit status: 0 when every URI resolves (also \
            when none was given on standard input); 3 when one is not in the store (deleted); 2 when one is \
            malformed; 4 when one belongs to another store. Every URI is still reported, each failure on stderr.
            """
    )

    @OptionGroup var options: StoreOptions

    @Argument(help: "tracker://<store-uuid>/item/<uuid> or tracker://<store-uuid>/project/<uuid>, or - for stdin.")
    var uris: [String] = []

    @Option(help: "text, json (one object for one URI argument, else an array), jsonl or ids.")
    var format: OutputFormat = .text

    @Flag(name: [.customShort("0"), .customLong("null")],
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
        let store = try running { try options.openStore() }
        var worst: ErrorCode?
        var found: [(TrackerURI, StoreEntity)] = []
        for text in texts {
            do {
                let uri = try TrackerURI(parsing: text)
                found.append((uri, try store.entity(for: uri)))
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
            for (uri, entity) in found { Output.record(EntityJSON.json(entity, uri: uri).text, nullTerminated: null) }
        case .json:
            let objects = found.map { EntityJSON.json($0.1, uri: $0.0) }
            Output.line((!readsInput && texts.count == 1 ? (objects.first ?? .null) : .array(objects)).text)
        case .text:
            for (number, (uri, entity)) in found.enumerated() {
                if number > 0 { Output.line("") }
                Output.line(Self.text(entity, uri: uri))
            }
        }
        if let worst { throw ExitCode(worst.rawValue) }
    }

    static let priorityNames = [1: "low", 2: "medium", 3: "high"]

    static func text(_ entity: StoreEntity, uri: TrackerURI) -> String {
        var lines: [String] = []
        switch entity {
        case .item(let item, let project):
            let projectURI = TrackerURI(storeID: uri.storeID, kind: .project, entityID: project.id)
            lines = [
                item.title,
                "  uri:       \(uri)",
                "  kind:      item",
                "  project:   \(project.title) (\(projectURI))",
                "  priority:  \(item.priority) (\(Self.priorityNames[item.priority] ?? "?"))",
                "  status:    \(item.isCompleted ? "completed" : "open")",
                "  created:   \(item.createdAt)",
                "  modified:  \(item.modifiedAt)",
            ]
            if !item.detail.isEmpty { lines += ["", item.detail] }
        case .project(let project):
            lines = [
                project.title,
                "  uri:       \(uri)",
                "  kind:      project",
                "  status:    \(project.isClosed ? "closed" : "open")",
                "  created:   \(project.createdAt)",
                "  modified:  \(project.modifiedAt)",
            ]
            if !project.detail.isEmpty { lines += ["", project.detail] }
        }
        return lines.joined(separator: "\n")
    }
}
