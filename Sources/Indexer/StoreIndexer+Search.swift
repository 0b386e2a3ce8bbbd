import Foundation
import SearchIndex
import TrackerStore

/// How to search: the query language, the page and order, facets, spelling, snippets.
public struct SearchOptions: Sendable {
    /// The query language.
    public enum Syntax: Sendable {
        /// Spotlite's own (docs/query-language.md).
        case spotlite
        /// Core Spotlight's `CSSearchQuery` strings.
        case spotlight
    }

    public var syntax: Syntax = .spotlite
    public var request = SearchRequest()
    /// Treat the last word as a prefix (search as you type).
    public var partial = false
    /// Search the spelling correction instead, when there is one (never silently: the outcome says so).
    public var correct = false
    /// Compute a snippet of each hit's detail.
    public var snippets = true
    public var clock: QueryClock = .system
    /// Called at once when the search must first catch up a backlog of at least ``largeBacklog`` changes (a bulk
    /// import, a sync), with the backlog and whether it is rebuilt: a caller can say why this search takes longer.
    public var onLargeBacklog: (@Sendable (IndexProgress) -> Void)?
    /// The backlog from which ``onLargeBacklog`` is called: about a second of catching up.
    public static let largeBacklog = 1_000

    public init() {}
}

/// A snippet of a hit's text with the matched words marked.
public struct Snippet: Sendable, Equatable {
    /// The text, matched words between ``markStart`` and ``markEnd``.
    public var marked: String

    public init(marked: String) { self.marked = marked }

    public static let markStart = "\u{2}"
    public static let markEnd = "\u{3}"

    /// The text without marks.
    public var plain: String { highlighted(start: "", end: "") }

    /// The text with each matched word between `start` and `end`. (One pass over the scalars: a server writes
    /// twenty of these per search.)
    public func highlighted(start: String, end: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in marked.unicodeScalars {
            switch scalar {
            case Self.markStartScalar: out.append(contentsOf: start.unicodeScalars)
            case Self.markEndScalar: out.append(contentsOf: end.unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// The matched words, in order.
    public var matches: [String] {
        var words: [String] = []
        var word: String.UnicodeScalarView?
        for scalar in marked.unicodeScalars {
            switch scalar {
            case Self.markStartScalar: word = String.UnicodeScalarView()
            case Self.markEndScalar:
                if let done = word { words.append(String(done)) }
                word = nil
            default: word?.append(scalar)
            }
        }
        if let open = word { words.append(String(open)) }  // a mark left open runs to the end
        return words
    }

    /// ``markStart`` and ``markEnd`` as scalars, for printers that walk the marked text.
    public static let markStartScalar: Unicode.Scalar = "\u{2}"
    public static let markEndScalar: Unicode.Scalar = "\u{3}"
}

/// A hit resolved against the store: the current row behind the document.
public struct ResolvedHit: Sendable, Equatable {
    public var uri: TrackerURI
    public var entity: StoreEntity
    public var score: Double
    public var snippet: Snippet?
    /// For ``StoreIndexer/similar(to:options:)``: the score over the score of the item compared with, the most a
    /// hit could have (0…1; higher is more alike).
    public var likeness: Double?
    /// In a search across stores (``StoreSet``): the name of the store whose copy this is.
    public var store: String?
    /// In a search across stores: the other stores that hold the same row (older copies, or equal ones later in
    /// the set's order).
    public var alsoIn: [String] = []
}

/// One facet's counts over all matches.
public struct FacetCounts: Sendable, Equatable {
    public struct Value: Sendable, Equatable {
        /// The raw value (a project URI, a priority, a status).
        public var value: String
        /// What people read (the project's title for a project URI).
        public var label: String
        public var count: Int
    }

    public var facet: SearchFacet
    public var values: [Value]
}

/// A `project:` filter naming no project, with the nearest project titles (maybe none).
public struct ProjectSuggestion: Sendable, Equatable {
    public var typed: String
    public var titles: [String]
}

/// The outcome of a search.
public struct SearchOutcome: Sendable {
    public var query: String
    /// Xapian's description of the parsed query.
    public var parsedQuery: String
    /// What the query's filters mean, in words.
    public var filters: [String]
    public var hits: [ResolvedHit]
    /// All matches in the index (an estimate unless ``isExact``).
    public var total: Int
    public var isExact: Bool
    public var offset: Int
    public var limit: Int
    public var facets: [FacetCounts]
    /// A spelling correction that finds more, when the query found few or none.
    public var suggestion: String?
    /// Set when these are the results of ``suggestion`` rather than of the query (`--correct`).
    public var searchedSuggestion = false
    /// For each project title the query filters on that no project has: the nearest titles there are.
    public var projectSuggestions: [ProjectSuggestion] = []
    /// Hits whose row is gone from the store: not shown; their documents go at the next catch-up.
    public var dropped: Int
    /// Changes the searched index had not applied, when another writer held it (nil when up to date).
    public var changesBehind: Int?
    /// Set when the search caught the index up (or built it) first.
    public var catchUp: StoreIndexer.Report?
    /// Why the index was searched as committed although it was behind (read-only to this user, a full disk).
    public var staleReason: String?
    /// In a search across stores (``StoreSet``): the stores that could not answer, and why.
    public var failures: [StoreFailure] = []
    /// Whether this is the outcome of a search across stores (``StoreSet``).
    public var isAcrossStores = false
}

extension StoreIndexer {
    /// A query with this many hits or fewer is checked for a spelling correction that finds more.
    static let fewHits = 2
    /// How long a search waits for `spotlite watch` to apply changes committed before it.
    static let watcherGrace: TimeInterval = 1

    /// Searches, reading its own writes: catches the index up first when the write lock is free at once;
    /// otherwise searches what is committed and reports how many changes behind it is.
    ///
    /// Throws ``IndexerError/Code-swift.struct/querySyntax`` for a query that cannot be parsed.
    public func search(_ text: String, offset: Int = 0, limit: Int = 20) throws(IndexerError) -> SearchOutcome {
        var options = SearchOptions()
        options.request.offset = offset
        options.request.limit = limit
        return try search(text, options: options)
    }

    public func search(_ text: String, options: SearchOptions) throws(IndexerError) -> SearchOutcome {
        // Refuse a bad query before touching the index.
        _ = try parse(text, options: options, reader: nil)
        try checkLocation()
        return try search(
            text, options: options, on: try freshReader(reusing: nil, onLargeBacklog: options.onLargeBacklog))
    }

    /// A reader that has every change committed to the store before the search, as far as possible.
    struct FreshReader {
        var reader: SearchReader
        /// Set when the search caught the index up (or built it) first.
        var catchUp: Report?
        /// Changes the reader has not applied (another writer holds the index), nil when none.
        var behind: Int?
        /// Why the index could not be caught up and was searched as committed (this user cannot write it, the
        /// disk is full), if it was.
        var staleReason: String?
    }

    /// `reader` (or, without one, the index opened now) when it is current, after a reopen if need be; else
    /// catches the index up — through the change the store had logged when the search began, however busy its
    /// writers — when the write lock is free at once, waits briefly for `spotlite watch`, or reads what is
    /// committed and counts what it lacks (as it does for an index this user cannot write).
    func freshReader(reusing reader: SearchReader?, onLargeBacklog: ((IndexProgress) -> Void)? = nil)
        throws(IndexerError)
        -> FreshReader
    {
        let target = try lastChange()
        // Most searches find the index current: a read of its cursor avoids taking the write lock at all.
        if let reader = reader ?? (location.exists ? try? openReader() : nil) {
            if try isCurrent(reader, target: target) { return FreshReader(reader: reader) }
            if (try? reader.reopen()) != nil, try isCurrent(reader, target: target) {
                return FreshReader(reader: reader)
            }
        }
        var catchUp: Report?
        if location.exists, !location.isWritable {
            // Searched as committed; the caller says so.
            return try committedReader(because: "the index is read-only to you")
        }
        let caughtUp: Report?
        do {
            // Counting the backlog costs a read of the log: only when someone is to be told of it.
            caughtUp = try catchUpIfUnlocked(
                through: target,
                progress: onLargeBacklog.map { announce in
                    { progress in
                        if progress.done == 0, progress.backlog >= SearchOptions.largeBacklog { announce(progress) }
                    }
                })
        } catch  where location.exists && IndexFailure.isOutOfSpace(error) {
            // The index that is there still answers: better stale results, said so, than none.
            return try committedReader(because: "the index could not be brought up to date: the disk is full")
        }
        if let report = caughtUp {
            catchUp = report
        } else if liveWatcher() != nil {
            // `spotlite watch` keeps the index live: a few milliseconds let it apply what was just written, so
            // that a search reads its own writes.
            _ = try waitUntilCurrent(timeout: Self.watcherGrace)
        } else if !location.exists {
            // Someone else is building the first index: wait for it rather than search nothing.
            catchUp = try self.catchUp()
        }
        let searcher = try indexer(location.root) { try openReader() }
        guard catchUp == nil else { return FreshReader(reader: searcher, catchUp: catchUp) }
        let behind = try changes(after: searcher)
        return FreshReader(reader: searcher, behind: behind == 0 ? nil : behind)
    }

    /// The committed index, with how far behind it is and why it was not caught up.
    private func committedReader(because reason: String) throws(IndexerError) -> FreshReader {
        let searcher = try indexer(location.root) { try openReader() }
        let behind = try changes(after: searcher)
        return FreshReader(reader: searcher, behind: behind == 0 ? nil : behind, staleReason: reason)
    }

    /// How many logged changes `reader`'s index has not applied.
    private func changes(after reader: SearchReader) throws(IndexerError) -> Int {
        try indexer(location.root) {
            let cursor = Int64(try reader.fetchLastClientState() ?? "0") ?? 0
            return try store.read { try $0.changeCount(after: cursor) }
        }
    }

    /// How many times a search starts again on a newer revision when a writer moved the index under it.
    static let modifiedRetries = 5

    /// Searches `fresh.reader`; a search that a writer's commits overtake (Xapian's `DatabaseModifiedError`, from
    /// a wildcard's expansion, the spelling data or the match) reopens and starts again, a bounded number of times.
    func search(_ text: String, options: SearchOptions, on fresh: FreshReader) throws(IndexerError) -> SearchOutcome {
        var attempt = 0
        while true {
            do {
                return try searchOnce(text, options: options, on: fresh)
            } catch  where error.indexError?.code == .modified && attempt < Self.modifiedRetries {
                attempt += 1
                try indexer(location.root) { try fresh.reader.reopen() }
            }
        }
    }

    /// Parse, match, spelling, resolution against the store, snippets, facets.
    private func searchOnce(_ text: String, options: SearchOptions, on fresh: FreshReader) throws(IndexerError)
        -> SearchOutcome
    {
        let (query, results, suggestion, searchedSuggestion) = try match(text, options: options, on: fresh.reader)
        let projects = results.total == 0 ? try projectSuggestions(for: query.projectTitles) : []

        var (hits, dropped) = try resolve(results.hits)
        if options.snippets { try addSnippets(to: &hits, from: results, words: Self.snippetWords(query.text)) }
        return SearchOutcome(
            query: query.text, parsedQuery: query.description, filters: query.filters, hits: hits,
            total: results.total, isExact: results.isExact, offset: options.request.offset,
            limit: options.request.limit, facets: try facetCounts(results), suggestion: suggestion,
            searchedSuggestion: searchedSuggestion, projectSuggestions: projects, dropped: dropped,
            changesBehind: fresh.behind, catchUp: fresh.catchUp, staleReason: fresh.staleReason)
    }

    /// Parses and matches `text` on `searcher`. Few or no hits: each word the index does not know is corrected on its
    /// own (Xapian's nearest word in the spelling table), the rest of the query kept as typed; the correction is
    /// offered only if it finds more, and searched instead with ``SearchOptions/correct``.
    func match(_ text: String, options: SearchOptions, on searcher: SearchReader) throws(IndexerError)
        -> (query: SearchQuery, results: SearchResults, suggestion: String?, searchedSuggestion: Bool)
    {
        let query = try parse(text, options: options, reader: searcher)
        let results = try indexer(location.root) { try searcher.search(query, options.request) }
        guard options.syntax == .spotlite, results.total <= Self.fewHits,
            let corrected = try correctedSpelling(of: text, searcher, matched: results), corrected != text
        else { return (query, results, nil, false) }
        let correctedQuery = try parse(corrected, options: options, reader: searcher)
        let correctedResults = try indexer(location.root) { try searcher.search(correctedQuery, options.request) }
        guard correctedResults.total > results.total else { return (query, results, nil, false) }
        return options.correct
            ? (correctedQuery, correctedResults, corrected, true) : (query, results, corrected, false)
    }

    /// Gives each hit a snippet of its detail where the query matched (`words` say where to look in a long one).
    func addSnippets(to hits: inout [ResolvedHit], from results: SearchResults, words: [String]) throws(IndexerError) {
        for index in hits.indices {
            let detail = hits[index].entity.detail
            guard !detail.isEmpty else { continue }
            let window = Self.unmarked(Self.snippetWindow(detail, words: words))
            let marked = try indexer(location.root) {
                try results.snippet(of: window, highlight: (Snippet.markStart, Snippet.markEnd))
            }
            hits[index].snippet = Snippet(marked: marked)
        }
    }

    /// `text` with the snippet's own marks (``Snippet/markStart``, ``Snippet/markEnd``), should the store's text hold
    /// them, replaced by U+FFFD: only the matcher's marks highlight.
    static func unmarked(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x02 || $0 == 0x03 }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let isMark = scalar == Snippet.markStartScalar || scalar == Snippet.markEndScalar
            out.append(isMark ? "\u{FFFD}" : scalar)
        }
        return String(out)
    }

    /// `text` with each word the index does not know replaced by its nearest known word, or nil if there is none
    /// to replace. Operators, filters (`field:value`), wildcards and numbers are left as they are, and so is
    /// everything around the words: quotes and parentheses are never added or taken away. Whether a word is known
    /// is read from `matched`, the results of `text`, whose match read its words' frequencies (a lost revision:
    /// from `reader`, which reopens).
    func correctedSpelling(of text: String, _ reader: SearchReader, matched: SearchResults) throws(IndexerError)
        -> String?
    {
        var corrected = text
        var changed = false
        for range in Self.correctableWordRanges(text).reversed() {
            let word = String(text[range])
            let known = try indexer(location.root) { () throws(SearchIndexError) in
                if let known = try? matched.knowsWord(word) { return known }
                return try reader.knowsWord(word)
            }
            guard !known,
                let replacement = try indexer(location.root, { try reader.correction(for: word) })
            else { continue }
            corrected.replaceSubrange(range, with: replacement)
            changed = true
        }
        return changed ? corrected : nil
    }

    /// Where the words a spelling correction may replace are in `text`: runs of letters and digits with at least one
    /// letter, not an operator, not part of a `field:value`, not a wildcard's stem.
    static func correctableWordRanges(_ text: String) -> [Range<String.Index>] {
        text.utf8.allSatisfy({ $0 < 0x80 }) ? asciiCorrectableWordRanges(text) : characterCorrectableWordRanges(text)
    }

    /// ``correctableWordRanges(_:)`` of any text, from its characters.
    static func characterCorrectableWordRanges(_ text: String) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        var index = text.startIndex
        while index < text.endIndex {
            guard !text[index].isWhitespaceQuick else {
                index = text.index(after: index)
                continue
            }
            // A token runs to the next white space (a quoted phrase's words are tokens of their own).
            var end = index
            while end < text.endIndex, !text[end].isWhitespaceQuick { end = text.index(after: end) }
            let token = text[index..<end]
            if !token.contains(where: { $0 == ":" || $0 == "*" }) {
                var start = token.startIndex
                while start < token.endIndex {
                    guard token[start].isLetterOrNumber else {
                        start = token.index(after: start)
                        continue
                    }
                    var stop = start
                    while stop < token.endIndex, token[stop].isLetterOrNumber { stop = token.index(after: stop) }
                    let word = token[start..<stop]
                    if word.contains(where: \.isLetterQuick), !TextNormalizer.queryOperators.contains(String(word)) {
                        ranges.append(start..<stop)
                    }
                    start = stop
                }
            }
            index = end
        }
        return ranges
    }

    /// ``correctableWordRanges(_:)`` of an ASCII text, from its bytes: walking its characters was a visible part of
    /// a rare phrase's search.
    static func asciiCorrectableWordRanges(_ text: String) -> [Range<String.Index>] {
        let bytes = text.utf8
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        var ranges: [Range<String.Index>] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            guard !isSpace(bytes[index]) else {
                bytes.formIndex(after: &index)
                continue
            }
            // A token runs to the next white space (a quoted phrase's words are tokens of their own).
            var end = index
            var fielded = false
            while end < bytes.endIndex, !isSpace(bytes[end]) {
                if bytes[end] == UInt8(ascii: ":") || bytes[end] == UInt8(ascii: "*") { fielded = true }
                bytes.formIndex(after: &end)
            }
            var start = index
            while !fielded && start < end {
                guard isLetter(bytes[start]) || isDigit(bytes[start]) else {
                    bytes.formIndex(after: &start)
                    continue
                }
                var stop = start
                var letters = false
                while stop < end, isLetter(bytes[stop]) || isDigit(bytes[stop]) {
                    letters = letters || isLetter(bytes[stop])
                    bytes.formIndex(after: &stop)
                }
                if letters, !TextNormalizer.queryOperators.contains(String(text[start..<stop])) {
                    ranges.append(start..<stop)
                }
                start = stop
            }
            index = end
        }
        return ranges
    }

    /// For project titles a query filters on that no project has: the nearest titles that exist (by edit distance,
    /// ignoring case and accents), best first.
    func projectSuggestions(for titles: [String]) throws(IndexerError) -> [ProjectSuggestion] {
        guard !titles.isEmpty else { return [] }
        let projects = try indexer(location.root) { try store.read { try $0.allProjectTitles(limit: 100_000) } }
        // Keyed as the filter compares titles, so a title the filter matches is never "near" itself.
        let known = Dictionary(projects.map { (TextNormalizer.titleKey($0), $0) }, uniquingKeysWith: { a, _ in a })
        return titles.compactMap { typed in
            let key = TextNormalizer.titleKey(typed)
            guard known[key] == nil else { return nil }
            let bound = max(2, key.count / 3)
            let near = known.compactMap { candidate, title -> (Int, String)? in
                let distance = EditDistance.between(key, candidate, limit: bound)
                return distance.map { ($0, title) }
            }.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            return ProjectSuggestion(typed: typed, titles: near.prefix(3).map(\.1))
        }
    }

    /// Longer details are cut to a window before Xapian looks for the best snippet in it: its exhaustive search
    /// over a 17,000-word changelog entry costs milliseconds per hit.
    static let snippetWindowLength = 3_000

    /// Lowercased word stems of a query (no operators), to find where in a long text the snippet should come from.
    static func snippetWords(_ query: String) -> [String] {
        query.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber) }).compactMap { word in
            guard word.count >= 3, !["and", "not", "xor"].contains(word) else { return nil }
            return String(word.prefix(max(3, word.count - 2)))  // leaking → leaki, finds leaks/leaked/leaking
        }
    }

    /// `text`, or for a long text the window around the first place a query word appears (else its start).
    /// One pass over the UTF-8 bytes that stops at the first match: a changelog entry can be hundreds of kilobytes.
    static func snippetWindow(_ text: String, words: [String]) -> String {
        var text = text
        return text.withUTF8 { bytes -> String in
            guard bytes.count > snippetWindowLength else { return String(decoding: bytes, as: UTF8.self) }
            let patterns = words.map { Array($0.utf8) }.filter { !$0.isEmpty }
            var first = 0
            search: for position in 0..<bytes.count {
                let byte = bytes[position] | ((0x41...0x5A).contains(bytes[position]) ? 0x20 : 0)
                for pattern in patterns where pattern[0] == byte && position + pattern.count <= bytes.count {
                    var matches = true
                    for offset in 1..<pattern.count {
                        let other = bytes[position + offset]
                        if other | ((0x41...0x5A).contains(other) ? 0x20 : 0) != pattern[offset] {
                            matches = false
                            break
                        }
                    }
                    if matches {
                        first = position
                        break search
                    }
                }
            }
            var start = max(0, first - 300)
            var end = min(bytes.count, start + snippetWindowLength)
            // Move both ends off UTF-8 continuation bytes (10xxxxxx) so the window is valid text.
            while start > 0 && bytes[start] & 0xC0 == 0x80 { start -= 1 }
            while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
    }

    func parse(_ text: String, options: SearchOptions, reader: SearchReader?, correctSpelling: Bool = false)
        throws(IndexerError) -> SearchQuery
    {
        try indexer(location.root) {
            let words = try reader?.queryParser(clock: options.clock) ?? SearchQueryParser(clock: options.clock)
            switch options.syntax {
            case .spotlite:
                return try words.parse(text, partial: options.partial, correctSpelling: correctSpelling)
            case .spotlight:
                return try SpotlightQueryParser(words: words, clock: options.clock).parse(text)
            }
        }
    }

    /// Facet counts with project URIs labelled by their current titles.
    func facetCounts(_ results: SearchResults) throws(IndexerError) -> [FacetCounts] {
        let facets = results.facets
        guard !facets.isEmpty else { return [] }
        let projectIDs = facets.filter { $0.facet == .project }.flatMap { $0.values.map(\.value) }
            .compactMap { try? TrackerURI(parsing: $0) }.map(\.entityID)
        let projects = try indexer(location.root) { try store.read { try $0.projects(ids: projectIDs) } }
        return facets.map { facet, values in
            FacetCounts(
                facet: facet,
                values: values.compactMap { value, count in
                    guard facet == .project else { return .init(value: value, label: value, count: count) }
                    guard let uri = try? TrackerURI(parsing: value), let project = projects[uri.entityID] else {
                        return nil
                    }
                    return .init(value: value, label: project.title, count: count)
                })
        }
    }

    /// Whether the index is bound to this store and layout and has applied the store's change `target` (its last
    /// when the search began), and none the store does not have.
    func isCurrent(_ reader: SearchReader, target: Int64) throws(IndexerError) -> Bool {
        try indexer(location.root) {
            guard try reader.revisionMetadata(Self.storeKey) == store.uuid,
                try reader.revisionMetadata(SearchIndexLayout.versionKey) == SearchIndexLayout.version,
                let cursor = Int64(try reader.fetchLastClientState() ?? "")
            else { return false }
            if cursor == target { return true }
            // A watcher may have applied changes logged since the search began.
            guard cursor > target else { return false }
            return try cursor <= store.lastChangeSequence()
        }
    }

    /// Resolves hits against the store in one read (a page of items: one statement; else one query per kind and
    /// 500 ids, in one transaction); drops gone rows.
    func resolve(_ hits: [SearchHit]) throws(IndexerError) -> (hits: [ResolvedHit], dropped: Int) {
        let uris = hits.map { hit in
            (try? TrackerURI(parsing: hit.uniqueIdentifier)).flatMap { $0.storeID == store.uuid ? $0 : nil }
        }
        func ids(_ kind: TrackerURI.Kind) -> [String] { uris.compactMap { $0?.kind == kind ? $0!.entityID : nil } }
        let found = try indexer(location.root) {
            try store.entities(items: ids(.item), projects: ids(.project), messages: ids(.message))
        }
        let resolved = zip(hits, uris).compactMap { hit, uri in
            uri.flatMap { uri in
                found[uri.kind]?[uri.entityID].map { ResolvedHit(uri: uri, entity: $0, score: hit.score) }
            }
        }
        return (resolved, hits.count - resolved.count)
    }
}
