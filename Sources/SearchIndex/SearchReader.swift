import Dispatch
import Xapian

/// One hit: the unique identifier and its relevance score.
public struct SearchHit: Sendable, Equatable {
    public var uniqueIdentifier: String
    public var score: Double
}

/// Reads a Spotlite index: searches, metadata, and the list of indexed documents.
///
/// Sees one committed revision at a time; every call that meets a newer commit reopens and retries on its own,
/// so readers never fail because a writer moved the index. Not thread-safe: one per thread.
public final class SearchReader {
    private(set) var database: Database
    /// How many times a call reopens after `DatabaseModifiedError` before giving up.
    static let retries = 5
    /// Where this reads: one index (``init(path:)``), or several as one (``init(paths:)``).
    private let paths: [String]

    /// Opens the index at `path` (a database directory or one holding a `XAPIANDB` stub).
    ///
    /// A rebuild that swaps the stub and removes the old generation while this reads the stub makes the open
    /// fail with files missing; it is then tried again on the new generation, up to ``retries`` times.
    public init(path: String) throws(SearchIndexError) {
        paths = [path]
        isCombined = false
        (database, codings) = try Self.open([path], combined: false)
    }

    /// The database at `paths` (one, or several as one) and the identifier coding of each.
    private static func open(_ paths: [String], combined: Bool) throws(SearchIndexError)
        -> (Database, [IdentifierCoding])
    {
        let database = try Self.opening { () throws(XapianError) in
            combined ? try Database(paths: paths) : try Database(path: paths[0])
        }
        // Each index keeps its own base: read from each, once (a rebuild keeps it: it is its store's).
        var codings: [IdentifierCoding] = []
        for part in paths.indices {
            codings.append(
                IdentifierCoding(
                    base: try Self.retrying(database) { () throws(XapianError) in
                        try combined
                            ? database.metadata(SearchIndexLayout.identifierBaseKey, part: part)
                            : database.metadata(SearchIndexLayout.identifierBaseKey)
                    }))
        }
        return (database, codings)
    }

    /// How each index read keeps its identifiers (one per index, in the order of ``init(paths:)``).
    private(set) var codings: [IdentifierCoding]

    /// `open()`, tried again (up to ``retries`` times) when files vanish under it: a rebuild swapped generations.
    private static func opening(_ open: () throws(XapianError) -> Database) throws(SearchIndexError) -> Database {
        var attempt = 0
        while true {
            do {
                return try open()
            } catch  where error.kind == .opening && attempt < Self.retries {
                attempt += 1
            } catch {
                throw SearchIndexError(error)
            }
        }
    }

    /// Whether this reads several indexes as one (``init(paths:)``): their copies of one entity are one hit.
    public let isCombined: Bool

    /// Whether this reader's searches keep tables of what they read for every match: the documents' lengths and
    /// title-word counts the ranking reads, and the sort key of a sort by `created` or `modified` (each one pass
    /// over the index, asked for by the second search at an index revision that needs it and made on a thread of its
    /// own, no search waiting for it). For a reader kept for many searches, as a `SearchSession`'s, not for one that
    /// searches once. Results are the same either way.
    public var keepsTables = false

    /// How many tables were made at this reader's asking. Readers of one index in one process share their tables:
    /// one made for another reader at the index's current revision is used at once, not made again.
    public var tablesMade: Int { database.tablesMade }

    /// Returns once the tables asked for are made (see ``keepsTables``).
    public static func waitForTables() { Database.waitForTables() }

    /// Opens the indexes at `paths` as one (Xapian's multi-database: term statistics over all, so scores compare),
    /// for a search across stores. Hits that name the same entity (the short form of their identifiers, see
    /// ``IdentifierCoding``) are collapsed to the best ranked. `paths` must not be empty.
    public init(paths: [String]) throws(SearchIndexError) {
        self.paths = paths
        isCombined = true
        (database, codings) = try Self.open(paths, combined: true)
    }

    /// The coding of the index whose base `identifier` has (the first index's if none): how a query names it.
    func coding(for identifier: String) -> IdentifierCoding {
        codings.first { !$0.base.isEmpty && identifier.hasPrefix($0.base) } ?? codings.first ?? .verbatim
    }

    /// The identifier a hit's value holds, put back under its own index's base.
    func identifier(of hit: MatchSet.Hit) -> String {
        (codings.indices.contains(hit.shard) ? codings[hit.shard] : .verbatim).identifier(value: hit.data)
    }

    /// Moves to the latest committed revision. When the files this read are gone — a replica's copy that Xapian's
    /// replication client replaced by a full copy (it renames the stub, then removes the old copy), a generation a
    /// rebuild removed — the index is opened again from its path, as a new reader would.
    public func reopen() throws(SearchIndexError) {
        do {
            _ = try database.reopen()
        } catch  where error.kind == .opening {
            (database, codings) = try Self.open(paths, combined: isCombined)
            parser = nil
        } catch {
            throw SearchIndexError(error)
        }
    }

    /// The parser ``queryParser(clock:)`` keeps.
    private var parser: SearchQueryParser?

    /// A query parser for this reader (whose words wildcards expand to and corrections come from), kept for the
    /// reader's searches: making one sets up Xapian's parser and its seven fields, a visible part of a rare
    /// phrase's search. Each parse starts afresh; `clock` is what its dates are read against.
    public func queryParser(clock: QueryClock) throws(SearchIndexError) -> SearchQueryParser {
        if let parser {
            parser.clock = clock
            return parser
        }
        let made = try SearchQueryParser(clock: clock, reader: self)
        parser = made
        return made
    }

    /// Metadata values read by ``revisionMetadata(_:)`` at the revision the database has been at since its
    /// ``Database/moves``-th move.
    private var revisionValues: (moves: Int, values: [String: String]) = (0, [:])

    /// A metadata value as ``metadata(_:)`` reads it, read once per revision of the index: a search asks every time
    /// for the store the index belongs to, its layout and the last change it applied, to know that it is current
    /// (a look-up each in the index's B-tree, a visible part of a rare phrase's search).
    public func revisionMetadata(_ key: String) throws(SearchIndexError) -> String {
        if revisionValues.moves == database.moves, let value = revisionValues.values[key] { return value }
        let value = try metadata(key)
        // Read after the look-up: a look-up that had to reopen (a writer moved the index) read the new revision's.
        if revisionValues.moves != database.moves { revisionValues = (database.moves, [:]) }
        revisionValues.values[key] = value
        return value
    }

    /// Runs `query` as `request` asks: a page of hits in order, the total, and facet counts over all matches.
    ///
    /// Hits that the order leaves tied (equal scores, equal sort values) come in index order, the document
    /// first added last first (the other way round with `reverse`), the same on every page. Index order is the
    /// order documents were first given to ``SearchableIndex/indexSearchableItems(_:skipped:)``; replacing a
    /// document keeps its place. (Ranking ties by a value instead costs a value read per tied candidate: with
    /// BM25's equal scores for equal-length texts, that tripled a word search.)
    ///
    /// Throws ``SearchIndexError/Code-swift.struct/querySyntax`` when a wildcard expands to too many words.
    public func search(_ query: SearchQuery, _ request: SearchRequest = SearchRequest()) throws(SearchIndexError)
        -> SearchResults
    {
        try search(query, request, options: matchOptions(for: request))
    }

    /// How ``search(_:_:)`` runs `request`.
    func matchOptions(for request: SearchRequest) throws(SearchIndexError) -> MatchOptions {
        var options = MatchOptions()
        options.offset = request.offset
        options.limit = request.limit
        options.sortKeys = request.sort.keys(reversed: request.reverse)
        options.relevanceFirst = request.sort == .relevance
        options.docidsDescending = !request.reverse
        options.facetSlots = Array(Set(request.facets.map(\.slot))).sorted()
        if isCombined { options.collapseSlot = ValueSlot.uniqueIdentifier }
        options.hitValueSlot = ValueSlot.uniqueIdentifier
        options.ranking = request.ranking.fielded
        options.rescoreWindow = request.ranking.rescoreWindow
        options.timeLimit = request.timeLimit
        options.keptTables = keepsTables
        options.layout = SearchIndexLayout.queryLayout
        // Counts are exact up to this many matches ("about" only beyond), and facets count every match.
        options.checkAtLeast = max(request.end, SearchRequest.exactTotalUpTo)
        if !request.facets.isEmpty { options.checkAtLeast = try documentCount() }
        return options
    }

    /// `query`'s page of `request`, run with `options`.
    func search(_ query: SearchQuery, _ request: SearchRequest, options: MatchOptions) throws(SearchIndexError)
        -> SearchResults
    {
        do {
            let matches = try retrying { () throws(XapianError) in
                try database.match(query.query, bonus: query.bonus, options: options)
            }
            return SearchResults(matches: matches, request: request, reader: self)
        } catch  where error.cause?.errorClass == "WildcardError" {
            throw SearchIndexError(
                .querySyntax,
                "a wildcard in '\(query.text)' matches more than \(SearchQueryParser.maximumWildcardExpansion) words; "
                    + "type more letters before the *", cause: error.cause)
        }
    }

    /// Documents like the one with `uniqueIdentifier` (it left out), best first, with its own score under the same
    /// query: the most any document could reach, against which a caller can judge how alike the others are.
    ///
    /// Throws ``SearchIndexError/Code-swift.struct/invalidArgument`` if no document has that identifier.
    public func similar(
        to uniqueIdentifier: String, _ request: SearchRequest, maxWords: Int = SearchRanking.similarWords,
        feedbackWeight: Double = SearchRanking.similarFeedbackWeight
    ) throws(SearchIndexError) -> (results: SearchResults, selfScore: Double?) {
        var window = request
        window.offset = 0
        window.limit = request.end == Int.max ? Int.max : request.end + 1
        let uniqueTerm = TermPrefix.uniqueIdentifier + coding(for: uniqueIdentifier).term(uniqueIdentifier)
        let query = try retrying { () throws(XapianError) in
            try database.similarQuery(
                uniqueTerm: uniqueTerm, maxWords: maxWords, ranking: request.ranking.fielded,
                layout: SearchIndexLayout.queryLayout, feedbackWeight: feedbackWeight)
        }
        let results = try search(SearchQuery(text: uniqueIdentifier, query: query), window)
        let own = results.hits.first { $0.uniqueIdentifier == uniqueIdentifier }
        return (results.excluding(uniqueIdentifier, offset: request.offset, limit: request.limit), own?.score)
    }

    /// Which of `identifiers` the query matches now (a subscription's look at rows that changed). Unknown
    /// identifiers match nothing.
    public func matching(_ query: SearchQuery, among identifiers: some Collection<String>) throws(SearchIndexError)
        -> Set<String>
    {
        guard !identifiers.isEmpty else { return [] }
        var found = Set<String>()
        for chunk in Array(identifiers).chunked(1_000) {
            let restricted = try xapian { () throws(XapianError) in
                try query.query.combined(
                    .filter, with: Query(anyOf: chunk.map { TermPrefix.uniqueIdentifier + coding(for: $0).term($0) }))
            }
            found.formUnion(try everyMatch(restricted, limit: chunk.count))
        }
        return found
    }

    /// Every document the query matches, or nil if there are more than `limit` (a subscription's first results).
    public func allMatches(_ query: SearchQuery, limit: Int) throws(SearchIndexError) -> Set<String>? {
        let found = try everyMatch(query.query, limit: limit == Int.max ? limit : limit + 1)
        return found.count > limit ? nil : found
    }

    /// The identifiers of the first `limit` matches of `query`, in no particular order (weights are not computed).
    private func everyMatch(_ query: Query, limit: Int) throws(SearchIndexError) -> Set<String> {
        var options = MatchOptions()
        options.limit = limit
        options.checkAtLeast = limit
        options.hitValueSlot = ValueSlot.uniqueIdentifier
        options.unweighted = true
        options.layout = SearchIndexLayout.queryLayout
        let matches = try retrying { () throws(XapianError) in try database.match(query, options: options) }
        return Set(matches.hits.map(identifier(of:)))
    }

    /// Whether `word` occurs in any title or detail (as typed, lowercased), so a spelling correction of it
    /// would replace a real word.
    public func knowsWord(_ word: String) throws(SearchIndexError) -> Bool {
        let term = Self.wordTerm(word)
        return try retrying { () throws(XapianError) in
            if try database.termExists(TermPrefix.detail + term) { return true }
            return try database.termExists(TermPrefix.title + term)
        }
    }

    /// The term of `word` in a detail (its title term has the title's prefix).
    static func wordTerm(_ word: String) -> String { TextNormalizer.fold(word).lowercased() }

    /// The nearest word the index knows for a word it does not (at most two edits away), or nil: a spelling
    /// correction for one word of a query.
    public func correction(for word: String) throws(SearchIndexError) -> String? {
        let folded = TextNormalizer.fold(word).lowercased()
        return try retrying { () throws(XapianError) in
            guard let suggestion = try database.spellingSuggestion(for: folded), suggestion != folded else {
                return nil
            }
            return suggestion
        }
    }

    /// The client state of the last committed batch, or nil.
    public func fetchLastClientState() throws(SearchIndexError) -> String? {
        let state = try revisionMetadata(SearchIndexLayout.clientStateKey)
        return state.isEmpty ? nil : state
    }

    public func metadata(_ key: String) throws(SearchIndexError) -> String {
        try retrying { () throws(XapianError) in try database.metadata(key) }
    }

    public func documentCount() throws(SearchIndexError) -> Int {
        try retrying { () throws(XapianError) in try database.documentCount() }
    }

    /// How long a walk of every document (``fingerprints()``) keeps reopening on newer revisions and going on.
    static let walkPatience: Double = 60

    /// Every indexed unique identifier with its fingerprint (see ``SearchableItem/fingerprint``).
    ///
    /// The walk is long, so a writer committing meanwhile may move the index under it: it then reopens and goes on
    /// after the last document it read (each step makes progress), for up to ``walkPatience`` seconds, so it may
    /// mix neighbouring revisions.
    public func fingerprints() throws(SearchIndexError) -> [String: String] {
        var rows: [(term: String, value: [UInt8])] = []
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(Self.walkPatience * 1e9)
        while true {
            do throws(XapianError) {
                try database.appendTermsWithValue(
                    prefix: TermPrefix.uniqueIdentifier, slot: ValueSlot.fingerprint, after: rows.last?.term, to: &rows)
                break
            } catch {
                guard DispatchTime.now().uptimeNanoseconds < deadline, Self.reopen(database, overtakenBy: error)
                else { throw SearchIndexError(error) }
            }
        }
        var result: [String: String] = [:]
        result.reserveCapacity(rows.count)
        let coding = codings.first ?? .verbatim
        for row in rows {
            result[coding.identifier(term: row.term.dropFirst(TermPrefix.uniqueIdentifier.count))] =
                Fingerprint.hex(row.value)
        }
        return result
    }

    private func retrying<T>(_ body: () throws(XapianError) -> T) throws(SearchIndexError) -> T {
        try Self.retrying(database, body)
    }

    /// `body`, tried again after reopening `database` when a writer moved it (up to ``retries`` times).
    private static func retrying<T>(_ database: Database, _ body: () throws(XapianError) -> T)
        throws(SearchIndexError) -> T
    {
        var attempt = 0
        while true {
            do {
                return try body()
            } catch {
                guard attempt < Self.retries, reopen(database, overtakenBy: error) else {
                    throw SearchIndexError(error)
                }
                attempt += 1
            }
        }
    }

    /// After `error` from a read, reopens `database` when a writer's commit overtook the read, and says whether it
    /// did: Xapian's `DatabaseModifiedError`, or a block of the read's revision that a later revision already reused,
    /// which Xapian can meet as a corrupt block or a failed inflate before it notices the revision moved. Such an
    /// error on a database that has not moved is its own: false.
    static func reopen(_ database: Database, overtakenBy error: XapianError) -> Bool {
        switch error.kind {
        case .modified:
            // A reopen a further commit overtakes fails the same way: the next read meets it again and comes back
            // here, within the caller's bound.
            _ = try? database.reopen()
            return true
        case .corrupt:
            return (try? database.reopen()) ?? false
        case .other where error.errorClass == "DatabaseError":
            return (try? database.reopen()) ?? false
        default:
            return false
        }
    }
}

extension Array {
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
