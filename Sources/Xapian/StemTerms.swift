import CXapian

/// Which stem terms ("Z" + stem) an index leaves out: those that only repeat a word that is its own stem, where the
/// field holds no other form of it (see CXapian's `engine/stem_terms.h`). A query reads a stem's documents from the
/// stem term and the word's term together (through ``MatchOptions/layout``): the same matches and weights as an index
/// that writes every stem term, in a smaller index.
///
/// An index leaves them out from its first document on, or never: the caller keeps the language in its metadata.
/// Not thread-safe; one per writer.
public final class StemTerms {
    let handle: OpaquePointer

    /// Stems of `language` (a Snowball name, as the term generator's), for documents whose title terms are
    /// `titlePrefix` + word. Throws ``XapianError/Kind-swift.struct/invalidArgument`` for a language Snowball lacks.
    public init(language: String, titlePrefix: String) throws(XapianError) {
        var prefix = titlePrefix
        let made = prefix.withUTF8 { title in
            title.withMemoryRebound(to: CChar.self) { cxapian_stem_terms_new(language, $0.baseAddress, $0.count) }
        }
        guard let made else {
            throw XapianError(
                kind: .invalidArgument, errorClass: "InvalidArgumentError", message: "no stemmer for '\(language)'")
        }
        handle = made
    }

    deinit { cxapian_stem_terms_free(handle) }
}

extension Document {
    /// Leaves out the stem terms that repeat a word (``StemTerms``), once all of the document's text is indexed; their
    /// wdf goes to `lengthTerm` (a term no query weighs, already in the document), so the document's length is
    /// unchanged.
    public func pruneStems(_ stems: StemTerms, lengthTerm: String) throws(XapianError) {
        try withExtendedLifetime(stems) { () throws(XapianError) in
            try lengthTerm.withBytes { (pointer, count) throws(XapianError) in
                try check { cxapian_document_prune_stems(handle, stems.handle, pointer, count, $0) }
            }
        }
    }
}
