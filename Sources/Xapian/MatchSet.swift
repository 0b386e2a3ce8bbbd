import CXapian

/// How to run a query: the page, the order, and the facets to count.
public struct MatchOptions: Sendable {
    /// One sort key: a value slot, ascending unless `descending`.
    public struct SortKey: Sendable, Equatable {
        public var slot: UInt32
        public var descending: Bool
        public init(slot: UInt32, descending: Bool = false) {
            self.slot = slot
            self.descending = descending
        }
    }

    public var offset = 0
    public var limit = 20
    /// Value keys, most significant first. With ``relevanceFirst`` they only break ties in relevance.
    public var sortKeys: [SortKey] = []
    public var relevanceFirst = true
    /// Whether documents that relevance and ``sortKeys`` leave tied come highest docid (latest added) first;
    /// otherwise lowest first.
    public var docidsDescending = false
    /// Value slots whose values are counted over all matches.
    public var facetSlots: [UInt32] = []
    /// Examine at least this many matches (the document count makes totals and facets exact).
    public var checkAtLeast = 0
    /// Each hit carries the value in this slot instead of the document data.
    public var hitValueSlot: UInt32?
    /// How to rank: the two-field ranking, or nil for Xapian's BM25 over the query as given.
    public var ranking: FieldedRanking?
    /// Without a ``ranking``: weigh nothing, for matches wanted as a set (faster; hits come in index order).
    public var unweighted = false
    /// With ``ranking``, in relevance order and a bonus (see ``Database/match(_:bonus:options:)``): the bonus and the
    /// title similarity are weighed only for this many of the best matches without them (or the page, if it reaches
    /// further), which the whole query then ranks — a search engine's rescoring window. 0 weighs them for every
    /// match.
    public var rescoreWindow = 0
    /// Seconds after which Xapian stops examining matches (the page is then the best of those examined, the
    /// counts estimates); 0 for no limit.
    public var timeLimit = 0.0
    /// Of the matches with equal values in this slot, only the best ranked is kept (Xapian's collapse key, one per
    /// value); the counts are then of distinct values. Nil keeps every match.
    public var collapseSlot: UInt32?
    /// With ``ranking`` on one database: the documents' lengths, the title similarity's word counts, and the values
    /// of a sort by one short key (a date, a number), come from tables this database handle keeps (each made on the
    /// second search at a revision that needs it, in one pass) instead of a seek through the index for each
    /// document. For a reader that searches again and again.
    public var keptTables = false
    /// What the index's metadata says of its terms (nil: nothing): the query reads a stem's documents as its class's
    /// where the index leaves stem terms out (``StemTerms``), and, with ``ranking`` on one database, filters each
    /// exact phrase of two common words by their pair term (``WordPairs``).
    public var layout: IndexLayout?

    public init() {}
}

/// Ranking over a title and a detail field, as the literature's BM25F simplifications do (see CXapian's
/// `engine/query_rewrite.h`): BM25 over the detail, plus `titleBonus` × the word's idf for a word in the title, with
/// one idf per word from the documents holding it in either field.
///
/// The index must give title terms (prefixed ``titlePrefix``) a wdf of 0, so that a document's length is its
/// detail's.
///
/// With `titleMatch` > 0, documents also gain `titleMatch` × the Jaccard similarity of the query's words and their
/// title's, whose number of distinct words is read (sortable-serialised) from `titleWordsSlot`.
public struct FieldedRanking: Sendable, Equatable {
    public var k1: Double
    public var b: Double
    public var titleBonus: Double
    public var titlePrefix: String
    public var titleMatch: Double
    public var titleWordsSlot: UInt32

    /// Calls `body` with `ranking` as C sees it (nil for none), valid during the call.
    static func withRaw<R>(
        _ ranking: FieldedRanking?, _ body: (UnsafePointer<cxapian_fielded_ranking>?) throws(XapianError) -> R
    ) throws(XapianError) -> R {
        guard let ranking else { return try body(nil) }
        let prefix = Array(ranking.titlePrefix.utf8CString)
        return try prefix.withUnsafeBufferPointer { prefix throws(XapianError) in
            let raw = cxapian_fielded_ranking(
                k1: ranking.k1, b: ranking.b, title_bonus: ranking.titleBonus, title_prefix: prefix.baseAddress,
                title_match: ranking.titleMatch, title_words_slot: ranking.titleWordsSlot)
            return try withUnsafePointer(to: raw) { pointer throws(XapianError) in try body(pointer) }
        }
    }

    public init(
        k1: Double, b: Double, titleBonus: Double, titlePrefix: String, titleMatch: Double = 0,
        titleWordsSlot: UInt32 = 0
    ) {
        self.k1 = k1
        self.b = b
        self.titleBonus = titleBonus
        self.titlePrefix = titlePrefix
        self.titleMatch = titleMatch
        self.titleWordsSlot = titleWordsSlot
    }
}

/// One page of ranked matches, with totals and facet counts. Keeps Xapian's match set for ``snippet(of:)``.
public final class MatchSet {
    /// One match: its document data (or the value of ``MatchOptions/hitValueSlot``), its weight, and the database
    /// it came from (its position among a multi-database's; 0 for one database, or without a value slot).
    public struct Hit: Sendable, Equatable {
        public var data: [UInt8]
        public var weight: Double
        public var shard: Int
        /// ``data`` as UTF-8 text.
        public var text: String { String(decoding: data, as: UTF8.self) }
    }

    private let handle: OpaquePointer
    /// The hits of the requested page, in the requested order.
    public let hits: [Hit]
    /// Xapian's estimate of all matches (exact when ``isExact``).
    public let estimatedMatches: Int
    public let lowerBound: Int
    public let upperBound: Int
    /// Per facet slot, each value with the number of matches that have it, per database of a multi-database
    /// (`shard`, as in ``Hit``), in no particular order.
    public let facets: [UInt32: [(shard: Int, value: [UInt8], count: Int)]]

    /// Whether the total is exact (lower bound == upper bound).
    public var isExact: Bool { lowerBound == upperBound }

    init(handle: OpaquePointer, valueSlot: UInt32?) throws(XapianError) {
        self.handle = handle
        let size = cxapian_mset_size(handle)
        var hits: [Hit] = []
        hits.reserveCapacity(Int(size))
        for index in 0..<size {
            var weight = 0.0
            var data: UnsafeMutablePointer<CChar>?
            var length = 0
            var shard: UInt32 = 0
            do {
                if let valueSlot {
                    try check { cxapian_mset_hit_value(handle, index, valueSlot, &weight, &shard, &data, &length, $0) }
                } else {
                    try check { cxapian_mset_hit(handle, index, &weight, &data, &length, $0) }
                }
            } catch {
                cxapian_mset_free(handle)
                throw error
            }
            hits.append(Hit(data: takeBytes(data, length), weight: weight, shard: Int(shard)))
        }
        self.hits = hits
        estimatedMatches = Int(cxapian_mset_matches_estimated(handle))
        lowerBound = Int(cxapian_mset_matches_lower_bound(handle))
        upperBound = Int(cxapian_mset_matches_upper_bound(handle))
        final class Sink { var facets: [UInt32: [(shard: Int, value: [UInt8], count: Int)]] = [:] }
        let sink = Sink()
        cxapian_mset_visit_facets(
            handle,
            { context, slot, shard, value, length, count in
                let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
                let bytes = Array(UnsafeRawBufferPointer(start: value, count: length))
                sink.facets[slot, default: []].append((Int(shard), bytes, Int(count)))
            }, Unmanaged.passUnretained(sink).toOpaque())
        facets = withExtendedLifetime(sink) { sink.facets }
    }

    deinit { cxapian_mset_free(handle) }

    /// How many documents of the searched database hold `term`: from what the match read where it read it (a fielded
    /// ranking's rewrite reads each word's terms in both fields; the match, every term the query names), else from
    /// the database.
    public func termFrequency(_ term: String) throws(XapianError) -> Int {
        var frequency: UInt32 = 0
        try term.withBytes { (pointer, count) throws(XapianError) in
            try check { cxapian_mset_term_frequency(handle, pointer, count, &frequency, $0) }
        }
        return Int(frequency)
    }

    /// The part of `text` that best matches the query (about `length` bytes), with the matched words between
    /// `highlight.start` and `highlight.end`, and `omit` where text was left out.
    public func snippet(
        of text: String, length: Int = 200, highlight: (start: String, end: String), omit: String = "…"
    ) throws(XapianError) -> String {
        var out: UnsafeMutablePointer<CChar>?
        var outLength = 0
        // The marks and the ellipsis passed as they lie (a String's implicit C string is a copy made per call).
        try text.withBytes { (pointer, count) throws(XapianError) in
            try highlight.start.withCStringBytes { start throws(XapianError) in
                try highlight.end.withCStringBytes { end throws(XapianError) in
                    try omit.withCStringBytes { omit throws(XapianError) in
                        try check {
                            cxapian_mset_snippet(handle, pointer, count, length, start, end, omit, &out, &outLength, $0)
                        }
                    }
                }
            }
        }
        return takeText(out, outLength)
    }
}

extension Database {
    /// Runs `query` with `options`; `bonus` adds weight to the matches it matches too (the typed words as an exact
    /// phrase) and never changes which documents match.
    ///
    /// Throws ``XapianError/Kind-swift.struct/modified`` if a writer committed over the revision being read;
    /// ``reopen()`` and call again.
    public func match(_ query: Query, bonus: Query? = nil, options: MatchOptions) throws(XapianError) -> MatchSet {
        let keys = options.sortKeys.map { cxapian_sort_key(slot: $0.slot, descending: $0.descending) }
        let slots = options.facetSlots
        var mset: OpaquePointer?
        try keys.withUnsafeBufferPointer { keyBuffer throws(XapianError) in
            try slots.withUnsafeBufferPointer { slotBuffer throws(XapianError) in
                try FieldedRanking.withRaw(options.ranking) { ranking throws(XapianError) in
                    try IndexLayout.withRaw(options.layout) { layout throws(XapianError) in
                        var raw = cxapian_enquire_options(
                            first: UInt32(clamping: options.offset), max_items: UInt32(clamping: options.limit),
                            sort_keys: keyBuffer.baseAddress, sort_key_count: keyBuffer.count,
                            by_relevance_first: options.relevanceFirst, docids_descending: options.docidsDescending,
                            facet_slots: slotBuffer.baseAddress, facet_slot_count: slotBuffer.count,
                            check_at_least: UInt32(clamping: options.checkAtLeast),
                            unweighted: options.unweighted, ranking: ranking, bonus: bonus?.handle,
                            rescore_window: UInt32(clamping: options.rescoreWindow),
                            time_limit: options.timeLimit, collapse: options.collapseSlot != nil,
                            collapse_slot: options.collapseSlot ?? 0, kept_tables: options.keptTables,
                            hit_values: options.hitValueSlot != nil, hit_value_slot: options.hitValueSlot ?? 0,
                            layout: layout)
                        try withExtendedLifetime(bonus) { () throws(XapianError) in
                            try check { cxapian_enquire(handle, query.handle, &raw, &mset, $0) }
                        }
                    }
                }
            }
        }
        return try MatchSet(handle: mset!, valueSlot: options.hitValueSlot)
    }

    /// Runs `query` in relevance order and returns `limit` hits from `offset`.
    public func match(_ query: Query, offset: Int = 0, limit: Int = 20) throws(XapianError) -> MatchSet {
        var options = MatchOptions()
        options.offset = offset
        options.limit = limit
        return try match(query, options: options)
    }
}

/// What an index's metadata records of its terms, for queries to read (CXapian's `engine/index_layout.h`, read once per
/// database): the keys under which it keeps them.
public struct IndexLayout: Sendable, Equatable {
    /// Title terms are this prefix + word.
    public var titlePrefix: String
    /// The key of the index's common words (``WordPairs``), if it has any.
    public var wordPairsKey: String?
    /// The key of the language whose stem terms the index leaves out (``StemTerms``), if it leaves any out.
    public var stemsKey: String?
    /// Where only a project's own document holds the term of its title (this prefix + key) and every document of a
    /// project its domain term (``domainPrefix`` + identifier): a query's title terms are then resolved into the
    /// domain terms of the documents holding them. Nil where every document holds its project's title term.
    public var containerPrefix: String?
    public var domainPrefix: String?
    /// The key that says an index packs its documents' positions into their data (``PositionTerms``): phrases are
    /// checked against them (against Xapian's position lists in an index without the key). Nil: phrases are Xapian's
    /// own operators.
    public var positionsKey: String?

    public init(
        titlePrefix: String, wordPairsKey: String? = nil, stemsKey: String? = nil, containerPrefix: String? = nil,
        domainPrefix: String? = nil, positionsKey: String? = nil
    ) {
        self.titlePrefix = titlePrefix
        self.wordPairsKey = wordPairsKey
        self.stemsKey = stemsKey
        self.containerPrefix = containerPrefix
        self.domainPrefix = domainPrefix
        self.positionsKey = positionsKey
    }

    /// Calls `body` with `layout` as C sees it (nil for none), valid during the call.
    static func withRaw<R>(
        _ layout: IndexLayout?, _ body: (UnsafePointer<cxapian_index_layout>?) throws(XapianError) -> R
    ) throws(XapianError) -> R {
        guard let layout else { return try body(nil) }
        // Empty for no key: its base address is then nil.
        let prefix = Array(layout.titlePrefix.utf8CString)
        let pairs = layout.wordPairsKey.map { Array($0.utf8CString) } ?? []
        let stems = layout.stemsKey.map { Array($0.utf8CString) } ?? []
        let containers = layout.containerPrefix.map { Array($0.utf8CString) } ?? []
        let domains = layout.domainPrefix.map { Array($0.utf8CString) } ?? []
        let positions = layout.positionsKey.map { Array($0.utf8CString) } ?? []
        return try prefix.withUnsafeBufferPointer { prefix throws(XapianError) in
            try pairs.withUnsafeBufferPointer { pairs throws(XapianError) in
                try stems.withUnsafeBufferPointer { stems throws(XapianError) in
                    try containers.withUnsafeBufferPointer { containers throws(XapianError) in
                        try domains.withUnsafeBufferPointer { domains throws(XapianError) in
                            try positions.withUnsafeBufferPointer { positions throws(XapianError) in
                                let raw = cxapian_index_layout(
                                    title_prefix: prefix.baseAddress, word_pairs_key: pairs.baseAddress,
                                    stems_key: stems.baseAddress, container_prefix: containers.baseAddress,
                                    domain_prefix: domains.baseAddress, positions_key: positions.baseAddress)
                                return try withUnsafePointer(to: raw) { pointer throws(XapianError) in
                                    try body(pointer)
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
