import ArgumentParser
import Foundation
import Indexer
import TrackerStore

struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search items and projects; hits are resolved to the current rows.",
        discussion: """
            All words must match (stemmed, English); "quoted phrases"; AND, OR, NOT and parentheses; \
            title:, detail:, project:<title or URI>, is:open|completed|closed, kind:item|project, priority:1|2|3. \
            Exit status 0 with hits, 1 with none, 2 for a bad query.
            """
    )

    @OptionGroup var options: StoreOptions

    @Argument(help: "The query (several arguments are joined with spaces).")
    var query: [String]

    @Option(help: "text, json, jsonl or ids (one URI a line).")
    var format: OutputFormat = .text

    @Option(help: "At most this many hits.")
    var limit: Int = 20

    @Option(help: "Skip this many hits (for paging).")
    var offset: Int = 0

    func validate() throws {
        if limit < 1 { throw ValidationError("--limit must be at least 1") }
        if offset < 0 { throw ValidationError("--offset must be 0 or more") }
    }

    func run() throws {
        let outcome = try running {
            let indexer = try options.openIndexer()
            return try indexer.search(query.joined(separator: " "), offset: offset, limit: limit)
        }
        if let behind = outcome.changesBehind {
            Output.note("spotlite: the index is \(behind) changes behind the store (another process is writing it); results may be stale")
        }
        if let rebuilt = outcome.catchUp?.rebuildReason {
            Output.note("spotlite: built the index first (\(rebuilt))")
        }
        switch format {
        case .ids:
            for hit in outcome.hits { Output.line(hit.uri.description) }
        case .jsonl:
            for hit in outcome.hits { Output.line(EntityJSON.json(hit.entity, uri: hit.uri, score: hit.score).text) }
        case .json:
            Output.line(Self.json(outcome, limit: limit).text)
        case .text:
            printText(outcome)
        }
        if outcome.hits.isEmpty { throw ExitCode(ExitStatus.noResults.rawValue) }
    }

    static func json(_ outcome: SearchOutcome, limit: Int) -> JSON {
        .object([
            ("query", .string(outcome.query)),
            ("parsed_query", .string(outcome.parsedQuery)),
            ("total", .int(outcome.total)),
            ("total_is_exact", .bool(outcome.isExact)),
            ("offset", .int(outcome.offset)),
            ("limit", .int(limit)),
            ("dropped", .int(outcome.dropped)),
            ("changes_behind", outcome.changesBehind.map { .int($0) } ?? .null),
            ("hits", .array(outcome.hits.map { EntityJSON.json($0.entity, uri: $0.uri, score: $0.score) })),
        ])
    }

    private func printText(_ outcome: SearchOutcome) {
        if outcome.hits.isEmpty {
            Output.line("no matches for \(outcome.query)")
            return
        }
        for (number, hit) in outcome.hits.enumerated() {
            Output.line(String(format: "%3d. ", outcome.offset + number + 1) + TextPrinter.summary(hit.entity))
            Output.line("     \(hit.uri)")
        }
        let first = outcome.offset + 1
        let last = outcome.offset + outcome.hits.count
        let total = outcome.isExact ? "\(outcome.total)" : "about \(outcome.total)"
        Output.line("— hits \(first)–\(last) of \(total)")
    }
}

/// Text renderings of store rows, shared by `search` and `resolve`.
enum TextPrinter {
    static let priorityNames = [1: "low", 2: "medium", 3: "high"]

    /// One line: title, then project, priority and status in brackets.
    static func summary(_ entity: StoreEntity) -> String {
        switch entity {
        case .item(let item, let project):
            let status = item.isCompleted ? "completed" : "open"
            return "\(item.title)  [\(project.title) · P\(item.priority) · \(status)]"
        case .project(let project):
            return "\(project.title)  [project · \(project.isClosed ? "closed" : "open")]"
        }
    }
}
