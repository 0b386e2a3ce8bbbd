import ArgumentParser
import Foundation
import Indexer
import SearchIndex
import SpotliteJSON
import TrackerStore

struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search items and projects; hits are resolved to the current rows.",
        discussion: """
            All words must match (stemmed, English); "quoted phrases"; AND, OR, NOT and parentheses; word* \
            wildcards; title:, detail:, project:<title or URI>, is:open|completed|closed, kind:item|project|message, \
            author:<name>, \
            priority:1|2..3|>=2, created:/modified: with dates (2024-05, 2024-01-01..2024-03-31, ..2023, today, \
            yesterday, -7d, this_week, last_month, …); tracker fields: tag:, assignee:, involves:, resolution:, \
            closed:<dates>, key:, has:/no:tag|assignee|link|author|resolution|key, linked:duplicate-of|blocks|\
            relates-to, duplicates:<item URI>. Negate any filter with - or NOT. With --spotlight the \
            query is a Core Spotlight query string: title == "fix*"cd && priority >= 2. \
            With --stores, several stores are searched as one index; a store that fails is named on stderr (and \
            in JSON's failures) while the others answer. \
            Exit status 0 with hits, 1 with none, 2 for a bad query; with --stores, 7 when some stores failed and \
            the others found nothing, 5 or 6 when none could answer (or any failed, with --strict).
            """
    )

    @OptionGroup var options: StoreOptions

    @Argument(
        parsing: .allUnrecognized,
        help: "The query (several arguments are joined with spaces; -is:completed and -word need no quoting).")
    var query: [String] = []

    /// The words after `--` (``Spotlite/expandingShortOptions(_:)`` puts them here): the end of the query.
    @Option(name: .customLong("query-after-options"), help: .hidden)
    var queryAfterOptions: String?

    static let queryAfterOptions = "--query-after-options"

    /// The query: its arguments, then those after `--`.
    var queryText: String { (query + (queryAfterOptions.map { [$0] } ?? [])).joined(separator: " ") }

    @Option(help: "text, json, jsonl (one hit a line) or ids (one URI a line).")
    var format: OutputFormat = .text

    // Limit, offset, sort and facets are taken as typed and checked by SearchParameters, as the API's are.
    @Option(name: [.customShort("n"), .short, .long], help: "At most this many hits.")
    var limit: String = "20"

    @Option(help: "Skip this many hits (for paging).")
    var offset: String = "0"

    @Option(help: "relevance, created, modified, priority or title.")
    var sort: String = "relevance"

    @Flag(help: "Reverse the --sort order (oldest, lowest priority or Z→A first).")
    var reverse = false

    @Option(
        help: ArgumentHelp(
            "Count matches per project, priority, status, store, tag, assignee and/or resolution, e.g. project,status.",
            valueName: "facets"))
    var facets: String?

    @Flag(help: "Treat the last word as a prefix, for search as you type.")
    var partial = false

    @Flag(help: "When a spelling correction finds more, search it instead (and say so).")
    var correct = false

    @Flag(help: "The query is a Core Spotlight query string (CSSearchQuery).")
    var spotlight = false

    @Option(
        help: ArgumentHelp(
            "Search these named stores as one: all, or names separated by commas (see `spotlite stores`).",
            valueName: "names"))
    var stores: String?

    @Flag(help: "With --stores: any store that fails fails the search (exit 5 or 6) instead of being reported.")
    var strict = false

    @Flag(help: "Print the parsed Xapian query and the filters applied.")
    var explain = false

    @Flag(
        name: [.customShort("0"), .customLong("null")],
        help: "End each record of --format ids or jsonl with a NUL byte instead of a newline (for xargs -0).")
    var null = false

    func validate() throws {
        if let option = query.first(where: { $0.hasPrefix("--") && $0.count > 2 }) {
            throw ValidationError("unknown option '\(option)'")
        }
        // `-word` excludes a word, but a dash and one letter reads as an option someone mistyped.
        if let option = query.first(where: { $0.count == 2 && $0.hasPrefix("-") && $0.last != "-" }) {
            throw ValidationError(
                "unknown option '\(option)' (to exclude a one-letter word, write NOT \(option.dropFirst()))")
        }
        if stores != nil && options.index != nil {
            throw ValidationError(
                "--index names one store's index; with --stores each store's index is in its default place")
        }
        if strict && stores == nil { throw ValidationError("--strict goes with --stores") }
        _ = try searchOptions()
    }

    /// The search the options ask for, checked as the API checks its parameters (``SearchParameters``).
    func searchOptions() throws -> SearchOptions {
        var parameters = SearchParameters(.option, query: queryText)
        parameters.limit = limit
        parameters.offset = offset
        parameters.sort = sort
        parameters.reverse = reverse
        parameters.facets = facets
        parameters.partial = partial
        parameters.correct = correct
        parameters.spotlight = spotlight
        do {
            return try parameters.options()
        } catch {
            throw ValidationError(error.message)
        }
    }

    func run() throws {
        var search = try searchOptions()
        search.onLargeBacklog = Output.largeBacklogNote
        search.snippets = format == .text || format == .json || format == .jsonl
        let text = queryText
        let outcome = try running {
            if let stores {
                let entries = try StoreCatalog.load().select(stores, defaultStore: options.storePath)
                return try StoreCatalog.storeSet(entries, forReading: true).search(
                    text, options: search, strict: strict)
            }
            return try options.openIndexer(forReading: true).search(text, options: search)
        }
        let terminal = Terminal.current
        for failure in outcome.failures {
            Output.note("spotlite: store '\(failure.store)' failed (\(failure.code)): \(failure.message)")
        }
        Self.printNotices(outcome)
        for project in outcome.projectSuggestions {
            let near =
                project.titles.isEmpty
                ? "" : "; did you mean " + project.titles.map { "'\($0)'" }.joined(separator: " or ") + "?"
            Output.note("spotlite: no project titled '\(project.typed)'\(near)")
        }
        if let suggestion = outcome.suggestion {
            if outcome.searchedSuggestion {
                Output.note("spotlite: no good match for '\(text)'; showing results for '\(suggestion)'")
            } else {
                Output.note("spotlite: did you mean '\(suggestion)'? (add --correct to search it)")
            }
        }
        if explain {
            let lines = Self.explanation(outcome)
            if format == .text { lines.forEach(Output.line) } else { lines.forEach(Output.note) }
        }
        switch format {
        case .ids:
            for hit in outcome.hits { Output.record(hit.uri.description, nullTerminated: null) }
            Output.note(Self.totalLine(outcome))
            Self.facetLines(outcome).forEach(Output.note)
        case .jsonl:
            for hit in outcome.hits { Output.record(SearchJSON.hit(hit).text, nullTerminated: null) }
            Output.note(Self.totalLine(outcome))
            Self.facetLines(outcome).forEach(Output.note)
        case .json:
            Output.line(SearchJSON.outcome(outcome).text)
        case .text:
            SearchTextPrinter(terminal: terminal).print(outcome)
        }
        // A page past the end of some matches is not "nothing found".
        if outcome.hits.isEmpty && outcome.total == 0 {
            // Nothing among the stores that answered, but some did not: not a plain "no hits".
            throw ExitCode(outcome.failures.isEmpty ? ErrorCode.noResults.rawValue : ErrorCode.partial.rawValue)
        }
    }

    /// What a search says about the index on stderr before its hits: built first, behind, read-only.
    static func printNotices(_ outcome: SearchOutcome) {
        if let reason = outcome.staleReason {
            let behind = outcome.changesBehind.map { ", \(count($0, "change")) behind the store" } ?? ""
            Output.note("spotlite: \(reason); searched it as it is\(behind)")
        } else if let behind = outcome.changesBehind {
            Output.note(
                "spotlite: the index is \(count(behind, "change")) behind the store (another process is writing it); results may be stale"
            )
        }
        if let rebuilt = outcome.catchUp?.rebuildReason {
            Output.note("spotlite: built the index first (\(rebuilt))")
        }
    }

    /// `spotlite: hits 1–20 of 90` (or `of about 90` when Xapian estimated); past the last page, how many there are.
    static func totalLine(_ outcome: SearchOutcome) -> String {
        let total = outcome.isExact ? "\(outcome.total)" : "about \(outcome.total)"
        if outcome.hits.isEmpty {
            if outcome.total == 0 { return "spotlite: no matches" }
            return
                "spotlite: no hits on this page: \(total) \(outcome.total == 1 && outcome.isExact ? "match" : "matches") in all"
        }
        return "spotlite: hits \(outcome.offset + 1)–\(outcome.offset + outcome.hits.count) of \(total)"
    }

    static func facetLines(_ outcome: SearchOutcome) -> [String] {
        outcome.facets.map { facet in
            "\(facet.facet.rawValue): " + facet.values.map { "\($0.label) \($0.count)" }.joined(separator: " · ")
        }
    }

    static func explanation(_ outcome: SearchOutcome) -> [String] {
        ["query:   \(outcome.query)", "parsed:  \(outcome.parsedQuery)"]
            + (outcome.filters.isEmpty ? ["filters: none"] : outcome.filters.map { "filter:  \($0)" })
    }
}

/// The `text` format: one block per hit, columns sized to the terminal.
struct SearchTextPrinter {
    var terminal: Terminal

    func print(_ outcome: SearchOutcome) {
        if outcome.hits.isEmpty && outcome.total == 0 {
            Output.line("no matches for \(VisibleText.escaped(outcome.query))")
        } else if outcome.hits.isEmpty {
            Output.line(String(SearchCommand.totalLine(outcome).dropFirst("spotlite: ".count)))
        }
        let width = terminal.width
        let numberWidth = String(outcome.offset + outcome.hits.count).count
        // number, title, project, priority + status, date
        let metaWidth = 37
        let titleWidth = max(20, width - numberWidth - 2 - metaWidth - 1)
        for (index, hit) in outcome.hits.enumerated() {
            let number = String(outcome.offset + index + 1)
            let indent = String(repeating: " ", count: numberWidth + 2)
            let (title, meta) = Self.columns(hit.entity)
            Output.styledLine(
                String(repeating: " ", count: numberWidth - number.count) + number + "  "
                    + terminal.bold(title.fitted(to: titleWidth)) + " "
                    + terminal.dim(meta.fitted(to: metaWidth))
                    .trimmingTrailingSpaces())
            if let snippet = hit.snippet {
                let flat = snippet.marked.split(whereSeparator: \.isNewline).joined(separator: " ")
                Output.styledLine(indent + Self.visible(Snippet(marked: flat), highlight: terminal.highlight))
            }
            let likeness =
                (hit.likeness.map { "  likeness " + Self.likenessText($0) } ?? "")
                + (hit.isKnownDuplicate ? "  known duplicate" : "")
            let store = hit.store.map { "  [\(([$0] + hit.alsoIn).joined(separator: ", "))]" } ?? ""
            Output.styledLine(indent + terminal.dim(hit.uri.description) + VisibleText.escaped(store + likeness))
        }
        for line in SearchCommand.facetLines(outcome) { Output.line(line) }
        if !outcome.hits.isEmpty {
            Output.line(String(SearchCommand.totalLine(outcome).dropFirst("spotlite: ".count)))
        }
    }

    /// A hit's likeness (``ResolvedHit/likeness``) as `similar` and `add item --check-duplicates` print it.
    static func likenessText(_ likeness: Double) -> String {
        String(format: "%.2f", likeness)
    }

    /// A snippet's text made visible (``VisibleText``), each matched word between the terminal's highlight codes.
    static func visible(_ snippet: Snippet, highlight: (start: String, end: String)) -> String {
        var out = ""
        var run = String.UnicodeScalarView()
        for scalar in snippet.marked.unicodeScalars {
            let mark =
                scalar == Snippet.markStartScalar
                ? highlight.start : scalar == Snippet.markEndScalar ? highlight.end : nil
            guard let mark else {
                run.append(scalar)
                continue
            }
            out += VisibleText.escaped(String(run)) + mark
            run = String.UnicodeScalarView()
        }
        return out + VisibleText.escaped(String(run))
    }

    /// The title, and project · priority · status · created, their control characters made visible
    /// (``VisibleText``) before they are fitted to their columns.
    static func columns(_ entity: StoreEntity) -> (String, String) {
        let visible = { (text: String) in VisibleText.escaped(text) }
        switch entity {
        case .item(let item, let project):
            let status = item.isCompleted ? "done" : "open"
            let created = visible(item.createdAt).prefix(10)
            let meta = "\(visible(project.title).fitted(to: 16)) P\(item.priority) \(status) \(created)"
            return (visible(item.title), meta)
        case .project(let project):
            let status = (project.isClosed ? "closed" : "open").fitted(to: 7)
            let created = visible(project.createdAt).prefix(10)
            return (visible(project.title), "\("project".fitted(to: 16)) \(status) \(created)")
        case .message(let message, let project, _):
            let created = visible(message.createdAt).prefix(10)
            return (
                visible(entity.title), "\(visible(project.title).fitted(to: 16)) \("message".fitted(to: 7)) \(created)"
            )
        }
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
