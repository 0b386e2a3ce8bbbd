import CXapian

/// The common words of an index, whose pairs at consecutive positions of a title or a detail are indexed as terms of
/// their own ("common grams"): an exact phrase of two of them is looked up in the pair's posting list instead of
/// checked position by position in every document holding both words (see CXapian's `engine/word_pairs.h`).
///
/// An index keeps its words from its first document on (the caller stores them in its metadata): every document then
/// has the pair terms of the same words, so a phrase's pair term finds every document holding the phrase. Searches
/// read them through ``MatchOptions/wordPairsKey``.
///
/// Not thread-safe to build documents with from several threads at once; one per writer.
public final class WordPairs {
    let handle: OpaquePointer
    /// The words, in their numbered order (at most ``maximumCount``).
    public let words: [String]

    /// The most words a pair term can number (222 in one byte, as many more in two).
    public static let maximumCount = 444

    /// `words` (at most ``maximumCount`` are used), for documents whose title terms are `titlePrefix` + word.
    public init(words: [String], titlePrefix: String) {
        let used = Array(words.prefix(Self.maximumCount))
        let list = used.joined(separator: "\n")
        var made: OpaquePointer?
        var copy = list
        var prefix = titlePrefix
        copy.withUTF8 { words in
            prefix.withUTF8 { title in
                made = words.withMemoryRebound(to: CChar.self) { words in
                    title.withMemoryRebound(to: CChar.self) { title in
                        cxapian_word_pairs_new(words.baseAddress, words.count, title.baseAddress, title.count)
                    }
                }
            }
        }
        guard let made else { fatalError("out of memory allocating the word pairs") }
        handle = made
        self.words = used
    }

    deinit { cxapian_word_pairs_free(handle) }

    /// The words as an index's metadata keeps them, one a line.
    public var list: String { words.joined(separator: "\n") }

    /// The words of a metadata value written from ``list``.
    public static func words(fromList list: String) -> [String] {
        list.split(separator: "\n").map(String.init)
    }
}

extension Document {
    /// Adds the pair terms of the document's text for `pairs`' words. Call once all of its text is indexed.
    public func addWordPairs(_ pairs: WordPairs) throws(XapianError) {
        try withExtendedLifetime(pairs) { () throws(XapianError) in
            try check { cxapian_document_add_word_pairs(handle, pairs.handle, $0) }
        }
    }
}

/// How many documents of a sample hold each word of their titles and details, to choose an index's common words
/// (``WordPairs``) from.
public final class WordSample {
    let handle: OpaquePointer

    /// For documents whose title terms are `titlePrefix` + word.
    public init(titlePrefix: String) {
        var prefix = titlePrefix
        let made = prefix.withUTF8 { title in
            title.withMemoryRebound(to: CChar.self) { cxapian_word_sample_new($0.baseAddress, $0.count) }
        }
        guard let made else { fatalError("out of memory allocating a word sample") }
        handle = made
    }

    deinit { cxapian_word_sample_free(handle) }

    /// Counts the distinct words of `document`'s text, once all of it is indexed.
    public func add(_ document: Document) throws(XapianError) {
        try withExtendedLifetime(document) { () throws(XapianError) in
            try check { cxapian_word_sample_add(handle, document.handle, $0) }
        }
    }

    /// The words in at least `minimumShare` of the documents added and in at least `minimumDocuments` of them, most
    /// frequent first, at most `maximumCount`.
    public func commonWords(minimumShare: Double, minimumDocuments: Int, maximumCount: Int) throws(XapianError)
        -> [String]
    {
        var bytes: UnsafeMutablePointer<CChar>?
        var length = 0
        try check {
            cxapian_word_sample_choose(
                handle, minimumShare, UInt32(clamping: minimumDocuments), UInt32(clamping: maximumCount), &bytes,
                &length, $0)
        }
        return WordPairs.words(fromList: takeText(bytes, length))
    }
}
