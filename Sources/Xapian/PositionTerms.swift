import CXapian

/// The numbers of an index's positional terms. An index packs each document's positions into the document's data,
/// its terms in the order of its text, each written as its number, and keeps them out of Xapian's position table (the
/// largest table of an index of short documents; a long document keeps its positions there): see CXapian's
/// `engine/positions.h`. The numbers live in the index's metadata, the next one under the layout's key, whose presence
/// says that the index packs its positions. Searches read them through ``IndexLayout/positionsKey``.
///
/// One object per writer of an index; the shards of a fresh build share one (its numbers are theirs alone, and it is
/// safe to use from their threads at once).
public final class PositionTerms: @unchecked Sendable {
    let handle: OpaquePointer

    /// For an index whose positions key is `key`. `readsIndex`: numbers it does not know are read from the index it
    /// packs documents for (an index written to over time); false for a fresh build's shards, which have none yet.
    public init(key: String, readsIndex: Bool) {
        var copy = key
        let made = copy.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { cxapian_position_terms_new($0.baseAddress, $0.count, readsIndex) }
        }
        guard let made else { fatalError("out of memory allocating the position terms") }
        handle = made
    }

    deinit { cxapian_position_terms_free(handle) }

    /// Forgets the numbers it read or gave: after a cancelled transaction, which took back those it wrote.
    public func forget() { cxapian_position_terms_forget(handle) }
}

extension Document {
    /// Packs the document's positions (all of its text indexed) into its data and removes them from its terms, whose
    /// wdf stay; a document of over 256 positions keeps Xapian's. Numbers given to new terms are written into
    /// `database`'s metadata, committed with it.
    public func packPositions(_ terms: PositionTerms, into database: WritableDatabase) throws(XapianError) {
        try withExtendedLifetime(terms) { () throws(XapianError) in
            try check { cxapian_document_pack_positions(handle, terms.handle, database.handle, $0) }
        }
    }
}
