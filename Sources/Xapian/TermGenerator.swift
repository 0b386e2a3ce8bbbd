import CXapian

/// Splits text into words and adds them, stemmed and with positions, to a ``Document``.
///
/// Words longer than ``maxWordLength`` bytes are skipped (the rest of the text is still indexed), which
/// keeps every generated term under Xapian's 245-byte term limit.
public final class TermGenerator {
    let handle: OpaquePointer
    private var document: Document?

    /// Creates a generator; `stemmingLanguage` is a Snowball name such as `"english"`, or `nil` for none.
    public init(stemmingLanguage: String? = "english", maxWordLength: UInt32 = 64) throws(XapianError) {
        guard let handle = cxapian_term_generator_new() else {
            fatalError("out of memory allocating a Xapian term generator")
        }
        self.handle = handle
        try check { cxapian_term_generator_set_stemmer(handle, stemmingLanguage ?? "", $0) }
        cxapian_term_generator_set_max_word_length(handle, maxWordLength)
    }

    deinit { cxapian_term_generator_free(handle) }

    /// Directs the following ``indexText(_:wdfIncrement:prefix:)`` calls to `document`.
    public func setDocument(_ document: Document) throws(XapianError) {
        self.document = document
        try check { cxapian_term_generator_set_document(handle, document.handle, $0) }
    }

    /// Indexes free text into the current document, each word with `prefix` (and its stem with `Z` + prefix).
    public func indexText(_ text: String, wdfIncrement: UInt32 = 1, prefix: String = "") throws(XapianError) {
        try text.withBytes { (textPointer, textCount) throws(XapianError) in
            try prefix.withBytes { (prefixPointer, prefixCount) throws(XapianError) in
                try check {
                    cxapian_term_generator_index_text(
                        handle, textPointer, textCount, wdfIncrement, prefixPointer, prefixCount, $0)
                }
            }
        }
    }

    /// Splits spans of CJK characters into unigrams and bigrams from now on (queries find them with
    /// ``QueryParser/Flags/cjkNgrams``).
    public func enableCJKNgrams() {
        cxapian_term_generator_enable_cjk_ngrams(handle)
    }

    /// Leaves a gap in positions so that phrases do not match across two fields.
    public func increaseTermPosition(by delta: UInt32 = 100) {
        cxapian_term_generator_increase_termpos(handle, delta)
    }
}
