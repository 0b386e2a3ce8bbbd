import Xapian

/// A writable Spotlight-style index over a Xapian database, after Core Spotlight's `CSSearchableIndex`.
///
/// Holds the database's write lock from `init` until the object goes away (or ``close()``): only one
/// `SearchableIndex` per database at a time; a second one fails with ``SearchIndexError/Code-swift.struct/locked``.
///
/// Outside a batch every call commits on its own. Between ``beginIndexBatch()`` and
/// ``endIndexBatch(clientState:)`` nothing is visible to readers; the end commits the batch's changes and the
/// client state together, in one Xapian commit, so a crash leaves either all of it or none.
///
/// ```swift
/// let index = try SearchableIndex(path: dir)
/// try index.beginIndexBatch()
/// try index.indexSearchableItems(items)
/// try index.endIndexBatch(clientState: "42")
/// try index.fetchLastClientState()    // "42"
/// ```
public final class SearchableIndex {
    let database: WritableDatabase
    private let builder: DocumentBuilder
    private var inBatch = false
    private let commitsEachCall: Bool

    /// Opens (creating if needed) the index at `path`.
    ///
    /// - Parameters:
    ///   - durable: `false` skips fsync: for a fresh index that is only swapped in once complete.
    ///   - bulkLoad: `true` for filling a fresh index: documents are added without a unique-term lookup, commits
    ///     happen only on ``commit(clientState:)`` (Xapian still flushes every 10,000 documents), and the
    ///     spelling data is made there in one pass over the terms.
    ///   - identifierBase: what the identifiers share (`tracker://<store-uuid>/`), kept short under it (see
    ///     ``IdentifierCoding``). Written into a fresh index; an index that has one keeps its own.
    ///   - commonWords: the words whose pairs get terms of their own (``commonWords(of:)``), for fast phrases.
    ///     Written into a fresh index; an index keeps its own (or none) for its life.
    ///   - prunesStems: whether the index leaves out the stem terms that repeat a word's own term (``StemTerms``): the
    ///     same matches and weights in a smaller index. Decided for a fresh index; an index keeps its choice.
    ///   - packsPositions: whether the index packs each document's positions into its data (``PositionTerms``)
    ///     rather than Xapian's position table: the same phrase matches in a smaller index. Decided for a fresh index;
    ///     an index keeps its choice.
    ///   - shards: what the shards of a fresh index built side by side share (``Shards``), one of them this; nil for
    ///     an index of its own.
    public init(
        path: String, durable: Bool = true, bulkLoad: Bool = false, identifierBase: String = "",
        commonWords: [String] = [], prunesStems: Bool = true, packsPositions: Bool = true, shards: Shards? = nil
    ) throws(SearchIndexError) {
        commitsEachCall = !bulkLoad
        let database = try xapian { () throws(XapianError) in
            try WritableDatabase(path: path, durable: durable)
        }
        self.database = database
        var base = try xapian { () throws(XapianError) in try database.metadata(SearchIndexLayout.identifierBaseKey) }
        var words = try xapian { () throws(XapianError) in try database.metadata(SearchIndexLayout.wordPairsKey) }
        var stemming = try xapian { () throws(XapianError) in try database.metadata(SearchIndexLayout.stemsKey) }
        var packing = try xapian { () throws(XapianError) in try database.metadata(SearchIndexLayout.positionsKey) }
        if try xapian({ () throws(XapianError) in try database.metadata(SearchIndexLayout.versionKey) }).isEmpty,
            try xapian({ () throws(XapianError) in try database.documentCount() }) == 0
        {
            base = identifierBase
            words = WordPairs(words: commonWords, titlePrefix: TermPrefix.title).list
            stemming = prunesStems ? SearchQueryParser.stemmingLanguage : ""
            packing = packsPositions ? "0" : ""  // no number given yet
            try xapian { () throws(XapianError) in
                try database.setMetadata(SearchIndexLayout.versionKey, SearchIndexLayout.version)
                try database.setMetadata(SearchIndexLayout.identifierBaseKey, base)
                try database.setMetadata(SearchIndexLayout.wordPairsKey, words)
                try database.setMetadata(SearchIndexLayout.stemsKey, stemming)
                try database.setMetadata(SearchIndexLayout.positionsKey, packing)
                try database.commit()
            }
        }
        coding = IdentifierCoding(base: base)
        let common = WordPairs.words(fromList: words)
        self.commonWords = common
        let pairs = common.isEmpty ? nil : WordPairs(words: common, titlePrefix: TermPrefix.title)
        self.prunesStems = !stemming.isEmpty
        positions =
            packing.isEmpty
            ? nil : shards?.positions ?? PositionTerms(key: SearchIndexLayout.positionsKey, readsIndex: true)
        // A bulk load leaves the spelling data to one pass over the finished shards (addSpellings(toShards:)).
        builder = try xapian { () throws(XapianError) in
            let stems = stemming.isEmpty ? nil : try StemTerms(language: stemming, titlePrefix: TermPrefix.title)
            return try DocumentBuilder(
                coding: IdentifierCoding(base: base), pairs: pairs, stems: stems, collectsWords: !bulkLoad)
        }
    }

    /// What the shards of one fresh index, each filled by a ``SearchableIndex`` of its own and then merged
    /// (``merge(_:into:)``), share: one numbering of their positional terms, so that a term has one number in the
    /// merged index. Safe to use from the shards' threads at once.
    public final class Shards: Sendable {
        let positions = PositionTerms(key: SearchIndexLayout.positionsKey, readsIndex: false)
        public init() {}
    }

    /// The index's common words (its pairs of them have terms), as it was made with them.
    public let commonWords: [String]
    /// Whether the index leaves out the stem terms that repeat a word's own term, as it was made to.
    public let prunesStems: Bool
    /// The numbers of the index's positional terms, if it packs its positions (as it was made to).
    private let positions: PositionTerms?
    /// Whether the index packs its documents' positions into their data (``PositionTerms``), as it was made to.
    public var packsPositions: Bool { positions != nil }

    /// How this index keeps identifiers (its base is the one it was made with).
    public let coding: IdentifierCoding

    /// Adds or replaces items (matched by unique identifier).
    ///
    /// With `skipped`, an item that Xapian refuses as an invalid argument is left out (the database stays as it
    /// was for that item) and reported there while the rest go on; without it, the refusal throws. Other errors
    /// always throw.
    public func indexSearchableItems(
        _ items: [SearchableItem], skipped: ((SearchableItem, SearchIndexError) -> Void)? = nil
    ) throws(SearchIndexError) {
        try changing { () throws(XapianError) in
            for item in items {
                do throws(XapianError) {
                    let document = try builder.document(for: item)
                    if let positions {
                        try document.packPositions(positions, into: database)
                    }
                    if commitsEachCall {
                        try database.replaceDocument(
                            uniqueTerm: TermPrefix.uniqueIdentifier + coding.term(item.uniqueIdentifier), with: document
                        )
                    } else {
                        // A bulk load fills a fresh database: no document can have this id yet.
                        try database.addDocument(document)
                    }
                } catch  where error.kind == .invalidArgument && skipped != nil {
                    skipped?(item, SearchIndexError(error))
                }
            }
        }
    }

    /// Removes the items with these unique identifiers (absent ones are ignored).
    public func deleteSearchableItems(withIdentifiers identifiers: [String]) throws(SearchIndexError) {
        try changing { () throws(XapianError) in
            for identifier in identifiers {
                try database.deleteDocuments(term: TermPrefix.uniqueIdentifier + coding.term(identifier))
            }
        }
    }

    /// Removes every item of these domains.
    public func deleteSearchableItems(withDomainIdentifiers domains: [String]) throws(SearchIndexError) {
        try changing { () throws(XapianError) in
            for domain in domains {
                try database.deleteDocuments(term: TermPrefix.domain + coding.term(domain))
            }
        }
    }

    /// Removes every item. The client state and layout stay.
    public func deleteAllSearchableItems() throws(SearchIndexError) {
        try changing { () throws(XapianError) in
            for kind in SearchableItemAttributeSet.Kind.allCases {
                try database.deleteDocuments(term: TermPrefix.kind + kind.rawValue)
            }
        }
    }

    /// Starts a batch: nothing is visible until ``endIndexBatch(clientState:)``.
    public func beginIndexBatch() throws(SearchIndexError) {
        precondition(!inBatch, "beginIndexBatch() called twice")
        try xapian { () throws(XapianError) in try database.beginTransaction() }
        inBatch = true
    }

    /// Commits the batch and `clientState` together, atomically.
    public func endIndexBatch(clientState: String) throws(SearchIndexError) {
        precondition(inBatch, "endIndexBatch(clientState:) without beginIndexBatch()")
        do {
            try xapian { () throws(XapianError) in
                try addPendingSpellings()
                try database.setMetadata(SearchIndexLayout.clientStateKey, clientState)
                inBatch = false
                try database.commitTransaction()
            }
        } catch {
            if inBatch {
                inBatch = false
                try? xapian { () throws(XapianError) in try database.cancelTransaction() }
                positions?.forget()
            }
            throw error
        }
    }

    /// A word goes into the spelling table (behind "did you mean") once a title holds it or this many documents
    /// do: a word used in one or two details is more often a typo, a hash or a name than a correction worth
    /// offering, and such words were most of the spelling table (Debian corpus: 5.4 MB with every word, 1.4 MB
    /// with words of two documents, 0.9 MB with three).
    public static let spellingMinimumFrequency: UInt32 = 2

    /// Adds the spelling data of the words indexed since the last call (see ``spellingMinimumFrequency``).
    private func addPendingSpellings() throws(XapianError) {
        guard !builder.words.isEmpty else { return }
        defer { builder.words.removeAll(keepingCapacity: true) }
        try database.addSpellings(
            builder.words, titlePrefix: TermPrefix.title, minimumFrequency: Self.spellingMinimumFrequency)
    }

    /// Adds the spelling data of an index built in shards (bulk loads, committed and closed) to the first of
    /// them, so that ``merge(_:into:)`` carries it: the words of all their text that qualify
    /// (``spellingMinimumFrequency``), in one pass.
    public static func addSpellings(toShards paths: [String]) throws(SearchIndexError) {
        try xapian { () throws(XapianError) in
            try WritableDatabase.addSpellings(
                fromShards: paths, titlePrefix: TermPrefix.title, minimumFrequency: spellingMinimumFrequency)
        }
    }

    /// Drops the batch's changes.
    public func cancelIndexBatch() throws(SearchIndexError) {
        guard inBatch else { return }
        inBatch = false
        // The numbers the batch gave went with it.
        defer { positions?.forget() }
        try xapian { () throws(XapianError) in try database.cancelTransaction() }
    }

    /// The client state of the last committed batch, or nil if none was ever committed.
    public func fetchLastClientState() throws(SearchIndexError) -> String? {
        let state = try metadata(SearchIndexLayout.clientStateKey)
        return state.isEmpty ? nil : state
    }

    /// Sets `clientState` and commits everything pending (outside a batch), for bulk builds that do not use batches.
    /// A bulk load's spelling data is then made by ``addSpellings(toShards:)``.
    public func commit(clientState: String) throws(SearchIndexError) {
        precondition(!inBatch, "commit(clientState:) inside a batch; use endIndexBatch(clientState:)")
        try xapian { () throws(XapianError) in
            try addPendingSpellings()
            try database.setMetadata(SearchIndexLayout.clientStateKey, clientState)
            try database.commit()
        }
    }

    /// Merges complete indexes (closed after ``commit(clientState:)``) into one new, compacted index at
    /// `destination`, with Xapian's compaction: their documents, spelling data and metadata (first source wins, but
    /// for the next positional term number: the largest, as the shards of one build share their numbers).
    public static func merge(_ sources: [String], into destination: String) throws(SearchIndexError) {
        try xapian { () throws(XapianError) in
            try WritableDatabase.compact(from: sources, to: destination, positionsKey: SearchIndexLayout.positionsKey)
        }
    }

    /// What is wrong with the index database at `path`, or nil if Xapian's full check (every block of every table,
    /// and the tables against each other, as `xapian-check` does) finds it sound. Reads the whole database.
    public static func damage(at path: String) -> String? {
        Database.checkIntegrity(path: path)
    }

    /// A metadata entry (committed with the next commit).
    public func setMetadata(_ key: String, _ value: String) throws(SearchIndexError) {
        try xapian { () throws(XapianError) in try database.setMetadata(key, value) }
    }

    public func metadata(_ key: String) throws(SearchIndexError) -> String {
        try xapian { () throws(XapianError) in try database.metadata(key) }
    }

    public func documentCount() throws(SearchIndexError) -> Int {
        try xapian { () throws(XapianError) in try database.documentCount() }
    }

    /// Releases the lock; uncommitted changes are dropped.
    public func close() throws(SearchIndexError) {
        try xapian { () throws(XapianError) in try database.close() }
    }

    /// Runs a change, committing it at once unless a batch is open. A failure inside a batch cancels it.
    private func changing(_ body: () throws(XapianError) -> Void) throws(SearchIndexError) {
        do {
            try body()
            if !inBatch && commitsEachCall {
                try addPendingSpellings()
                try database.commit()
            }
        } catch {
            if inBatch {
                inBatch = false
                try? database.cancelTransaction()
            }
            // Numbers given since the last commit may be gone with the batch; the index says again what it has.
            positions?.forget()
            throw SearchIndexError(error)
        }
    }
}
