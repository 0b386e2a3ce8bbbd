import ArgumentParser
import Foundation
import Indexer
import SearchIndex
import SpotliteJSON
import TrackerStore

struct SimilarCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "similar",
        abstract: "Items, projects and messages most like a given one (more like this): likely duplicates first.",
        discussion: """
            The query is the item itself as indexed: its title's words, and the words of its detail that relevance \
            feedback weighs highest. Each hit's likeness is its score over the item's own score under that query \
            (0…1). Exit status 0 with hits, 1 with none, 3 when the URI is not in the store, 4 for another store's.
            """
    )

    @OptionGroup var options: StoreOptions

    @Argument(help: "The item, project or message URI.")
    var uri: String

    @Option(help: "text, json, jsonl (one hit a line) or ids (one URI a line).")
    var format: OutputFormat = .text

    @Option(name: [.customShort("n"), .short, .long], help: "At most this many hits.")
    var limit: Int = 10

    @Option(help: "Skip this many hits (for paging).")
    var offset: Int = 0

    @Flag(
        name: [.customShort("0"), .customLong("null")],
        help: "End each record of --format ids or jsonl with a NUL byte instead of a newline (for xargs -0).")
    var null = false

    func validate() throws {
        do {
            _ = try SearchParameters.page(
                limit: String(limit), offset: String(offset), maximumLimit: SearchRequest.maximumLimit,
                spelling: .option)
        } catch {
            throw ValidationError(error.message)
        }
    }

    func run() throws {
        var search = SearchOptions()
        search.request.limit = limit
        search.request.offset = offset
        search.snippets = format != .ids
        search.onLargeBacklog = Output.largeBacklogNote
        let outcome = try running {
            let indexer = try options.openIndexer(forReading: true)
            return try indexer.similar(to: try parseURI(uri, in: indexer.store), options: search)
        }
        SearchCommand.printNotices(outcome)
        switch format {
        case .ids:
            for hit in outcome.hits { Output.record(hit.uri.description, nullTerminated: null) }
        case .jsonl:
            for hit in outcome.hits { Output.record(SearchJSON.hit(hit).text, nullTerminated: null) }
        case .json:
            Output.line(SearchJSON.outcome(outcome).text)
        case .text:
            SearchTextPrinter(terminal: .current).print(outcome)
        }
        if outcome.hits.isEmpty && outcome.total == 0 { throw ExitCode(ErrorCode.noResults.rawValue) }
    }
}
