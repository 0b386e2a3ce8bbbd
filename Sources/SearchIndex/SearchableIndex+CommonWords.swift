import Xapian

extension SearchableIndex {
    /// A word is common (its pairs get terms, ``WordPairs``) when at least this share of the documents hold it. An
    /// exact phrase is slow where both of its words are common: Xapian checks positions in every document holding
    /// both. A phrase with a rarer word has at most that word's few documents to check.
    public static let commonWordShare = 0.02
    /// ... and at least this many documents of the sample: a small store has no phrase slow enough to be worth it.
    public static let commonWordMinimumDocuments = 50
    /// ... and at most this many words, the most frequent. Each pair term of a document costs about 7.6 bytes of the
    /// index (its term-list entry and its posting). On the dictionary Zipf corpus at 100k items the pairs of 255 words
    /// (16 a document) took the index to 4.08 times its text, those of 128 (12.6 a document) to 3.99, of 112 to 3.98
    /// and of 96 to 3.97; the median phrase of the 100k synthetic corpus took 0.47 of FTS5's time with 128 words,
    /// 0.49–0.50 with 112 and 0.51 with 96 (`profile search 100000 200 phrase compare`), as more of its phrases
    /// have a word just past the list.
    public static let commonWordMaximumCount = 128
    /// How many items a rebuild reads to choose an index's common words (``commonWords(of:)``).
    public static let commonWordSampleSize = 4_000

    /// The common words of `items` (a sample of a store, ``commonWordSampleSize`` or so), most frequent first: those
    /// held by ``commonWordShare`` of them and by ``commonWordMinimumDocuments``, at most ``commonWordMaximumCount``.
    /// The words are read from the documents as they would be indexed, so they are the index's own terms.
    public static func commonWords(of items: some Sequence<SearchableItem>) throws(SearchIndexError) -> [String] {
        try xapian { () throws(XapianError) in
            let builder = try DocumentBuilder(coding: .verbatim)
            let sample = WordSample(titlePrefix: TermPrefix.title)
            for item in items { try sample.add(try builder.document(for: item)) }
            return try sample.commonWords(
                minimumShare: commonWordShare, minimumDocuments: commonWordMinimumDocuments,
                maximumCount: commonWordMaximumCount)
        }
    }
}
