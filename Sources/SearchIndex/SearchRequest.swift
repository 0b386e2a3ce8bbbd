import Xapian

/// The orders a search can return.
public enum SearchSort: String, CaseIterable, Sendable {
    /// Best BM25 match first.
    case relevance
    /// Newest first.
    case created
    /// Most recently modified first.
    case modified
    /// Highest priority first, then newest.
    case priority
    /// Title A→Z (case-insensitive).
    case title

    /// Value keys of this order. What they leave tied goes in index order, latest added first (reversed with
    /// the rest): see ``SearchReader/search(_:_:)``.
    func keys(reversed: Bool) -> [MatchOptions.SortKey] {
        var keys: [MatchOptions.SortKey]
        switch self {
        case .relevance: keys = []
        case .created: keys = [.init(slot: ValueSlot.created, descending: true)]
        case .modified: keys = [.init(slot: ValueSlot.modified, descending: true)]
        case .priority:
            keys = [
                .init(slot: ValueSlot.priority, descending: true), .init(slot: ValueSlot.created, descending: true),
            ]
        case .title: keys = [.init(slot: ValueSlot.titleSortKey)]
        }
        if reversed { keys = keys.map { .init(slot: $0.slot, descending: !$0.descending) } }
        return keys
    }
}

/// What a search can count over all its matches.
public enum SearchFacet: String, CaseIterable, Sendable {
    /// Matches per project (values are project URIs).
    case project
    /// Matches per priority (values "1", "2", "3").
    case priority
    /// Matches per status ("open", "completed", "closed").
    case status
    /// Matches per store (values are store UUIDs, from the project URIs): for searches across stores.
    case store
    /// Matches per tag (an item with three tags counts once under each).
    case tag
    /// Matches per assignee (as ``tag``).
    case assignee
    /// Matches per resolution (`fixed`, `duplicate`, …, as the items say).
    case resolution

    var slot: UInt32 {
        switch self {
        case .project, .store: return ValueSlot.domain
        case .priority: return ValueSlot.priority
        case .status: return ValueSlot.status
        case .tag: return ValueSlot.tags
        case .assignee: return ValueSlot.assignees
        case .resolution: return ValueSlot.resolution
        }
    }

    /// The labels a value stands for: most facets' values are one label each; a document's tags (and assignees) are
    /// one value, a label a line, counted under each.
    func labels(_ bytes: [UInt8]) -> [String] {
        switch self {
        case .tag, .assignee:
            return bytes.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        default: return [label(bytes)]
        }
    }

    func label(_ bytes: [UInt8]) -> String {
        switch self {
        case .priority: return String(Int(SortableNumber.decode(bytes)))
        case .project, .tag, .assignee, .resolution: return String(decoding: bytes, as: UTF8.self)
        case .status: return ValueSlot.status(fromValue: bytes)
        case .store:
            // tracker://<store-uuid>/project/<uuid>
            let parts = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            return parts.count > 2 ? String(decoding: parts[2], as: UTF8.self) : String(decoding: bytes, as: UTF8.self)
        }
    }
}

/// How to run a search: the page, the order and the facets.
public struct SearchRequest: Sendable {
    /// A search's total is exact when there are at most this many matches (Xapian examines at least this many).
    public static let exactTotalUpTo = 1_000
    /// The largest ``offset`` and ``limit`` a search takes: beyond them a page is refused, not an overflow.
    public static let maximumOffset = 1_000_000
    public static let maximumLimit = 1_000_000

    public var offset = 0
    public var limit = 20
    public var sort: SearchSort = .relevance
    /// Flips the order (not available for relevance: Xapian ranks best first only).
    public var reverse = false
    public var facets: [SearchFacet] = []
    /// How relevance is computed (the default is what Spotlite ships; the relevance harness varies it).
    public var ranking: SearchRanking = .standard
    /// Seconds after which matching stops (the page is then the best of the matches examined so far); 0 for none.
    /// `spotlite serve` bounds each search with it.
    public var timeLimit = 0.0

    /// How many hits the page's end is from the first match: ``offset`` plus ``limit``, at most `Int.max`.
    public var end: Int {
        let (sum, overflow) = offset.addingReportingOverflow(limit)
        return overflow ? Int.max : sum
    }

    public init(
        offset: Int = 0, limit: Int = 20, sort: SearchSort = .relevance, reverse: Bool = false,
        facets: [SearchFacet] = []
    ) {
        self.offset = offset
        self.limit = limit
        self.sort = sort
        self.reverse = reverse
        self.facets = facets
    }
}

/// A page of hits, the total, facet counts, and snippets of the matched text.
public final class SearchResults {
    private let matches: MatchSet
    private let request: SearchRequest
    public let hits: [SearchHit]
    /// All matches (Xapian's estimate unless ``isExact``).
    public let total: Int
    public let isExact: Bool

    /// How each index searched keeps identifiers: facet values are put back with them.
    private let codings: [IdentifierCoding]

    init(matches: MatchSet, request: SearchRequest, reader: SearchReader) {
        self.matches = matches
        self.request = request
        codings = reader.codings
        hits = matches.hits.map { SearchHit(uniqueIdentifier: reader.identifier(of: $0), score: $0.weight) }
        total = matches.estimatedMatches
        isExact = matches.isExact
    }

    private init(
        matches: MatchSet, request: SearchRequest, codings: [IdentifierCoding], hits: [SearchHit], total: Int,
        isExact: Bool
    ) {
        self.matches = matches
        self.request = request
        self.codings = codings
        self.hits = hits
        self.total = total
        self.isExact = isExact
    }

    /// These results without the document `uniqueIdentifier`, cut to the page `offset`, `limit`.
    func excluding(_ uniqueIdentifier: String, offset: Int, limit: Int) -> SearchResults {
        let others = hits.filter { $0.uniqueIdentifier != uniqueIdentifier }
        let left = others.count < hits.count
        var page = request
        page.offset = offset
        page.limit = limit
        return SearchResults(
            matches: matches, request: page, codings: codings, hits: Array(others.dropFirst(offset).prefix(limit)),
            total: max(0, total - (left ? 1 : 0)), isExact: isExact)
    }

    /// Counts per value for each requested facet, most frequent first (ties by value), over all matches. Tags and
    /// assignees are counted as their filters match them (`tag:bug` finds `Bug` too: ``TermPrefix/nameTerm(_:_:)``),
    /// under their most frequent spelling.
    public var facets: [(facet: SearchFacet, values: [(value: String, count: Int)])] {
        request.facets.map { facet in
            let folds = facet == .tag || facet == .assignee
            var counts: [String: Int] = [:]
            var spellings: [String: [String: Int]] = [:]
            for entry in matches.facets[facet.slot] ?? [] {
                var value = entry.value
                if facet.slot == ValueSlot.domain, codings.indices.contains(entry.shard) {
                    value = Array(codings[entry.shard].identifier(value: value).utf8)
                }
                var seen = Set<String>()
                for label in facet.labels(value) {
                    let key = folds ? TextNormalizer.titleKey(label) : label
                    if folds { spellings[key, default: [:]][label, default: 0] += entry.count }
                    // A document with `Bug` and `bug` is one document with that tag.
                    if seen.insert(key).inserted { counts[key, default: 0] += entry.count }
                }
            }
            let values = counts.map { key, count in
                let spelling = spellings[key]?.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }?.key
                return (value: spelling ?? key, count: count)
            }
            return (facet, values.sorted { $0.count != $1.count ? $0.count > $1.count : $0.value < $1.value })
        }
    }

    /// Whether the index searched holds `word` in a title or a detail, as ``SearchReader/knowsWord(_:)`` says, from
    /// what the match read where it read the word's terms (a word of the query): no second look-up in the index.
    public func knowsWord(_ word: String) throws(SearchIndexError) -> Bool {
        let term = SearchReader.wordTerm(word)
        return try xapian { () throws(XapianError) in
            if try matches.termFrequency(TermPrefix.detail + term) > 0 { return true }
            return try matches.termFrequency(TermPrefix.title + term) > 0
        }
    }

    /// The part of `text` where the query matched, matched words wrapped in `highlight`.
    public func snippet(of text: String, length: Int = 160, highlight: (start: String, end: String))
        throws(SearchIndexError)
        -> String
    {
        try xapian { () throws(XapianError) in try matches.snippet(of: text, length: length, highlight: highlight) }
    }
}
