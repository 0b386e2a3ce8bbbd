import Xapian

/// The one table of term prefixes and value slots in a Spotlite index. Change it only together with
/// ``SearchIndexLayout/version``: an index built with another table is rebuilt, never mixed.
///
/// Conventions follow Xapian's omega: `Q` for the unique id, `S` for the title, `X…` for our own.
/// Free-text terms also get a stemmed twin, `Z` + prefix + stem, from the term generator, but where it would only
/// repeat the word's own term (``SearchIndexLayout/stemsKey``).
public enum TermPrefix {
    /// Unique identifier (the item's URI); exactly one document per `Q` term. Boolean.
    public static let uniqueIdentifier = "Q"
    /// Title words (free text, positional, wdf 0: counted by presence, see ``SearchRanking``). The title is indexed
    /// only here.
    public static let title = "S"
    /// Detail (content description) words: the empty prefix, so that the default field's
    /// `"" → ["", "S"]` mapping searches title and detail without indexing the title twice.
    public static let detail = ""
    /// Domain identifier (the project's URI): deleting a domain deletes every document with this term. Boolean.
    public static let domain = "XDOM"
    /// Kind of document: `item` or `project`. Filtered on as a boolean term, but with wdf 1 plus the wdf of the stem
    /// terms the document leaves out (see DocumentBuilder): a document's length stays that of all its terms.
    public static let kind = "XK"
    /// Status: `open`, `completed` (items) or `closed` (projects). Boolean.
    public static let status = "XIS"
    /// Priority `1`…`3`. Boolean.
    public static let priority = "XPRI"
    /// The container (project) title, normalised by ``containerTitleTerm(_:)``: a project's own document only (a filter
    /// on it finds the project's other documents by their ``domain``, which they all hold). Boolean.
    public static let containerTitle = "XPT"
    /// A message's author, normalised by ``authorTerm(_:)``. Boolean.
    public static let author = "XAU"
    /// An item's assignee, normalised as ``author``. Boolean.
    public static let assignee = "XAS"
    /// The author of a message on an item, on the item's document, normalised as ``author`` (for `involves:`).
    /// Boolean.
    public static let commenter = "XCM"
    /// An item's tag, normalised as ``author`` (any case, any accents). Boolean.
    public static let tag = "XTG"
    /// An item's resolution, normalised as ``author``. Boolean.
    public static let resolution = "XRS"
    /// An item's source key, normalised as ``author`` (`XKYhadoop-1234`). Boolean.
    public static let sourceKey = "XKY"
    /// What an item has of the fields `has:` and `no:` ask about: `XHAS` + `tag`, `assignee`, `link`, `author`,
    /// `resolution` or `key`. Boolean.
    public static let has = "XHAS"
    /// An item's link of a kind: `XLK` + `duplicate-of`, `blocks` or `relates-to`. Boolean.
    public static let linkKind = "XLK"
    /// An item that duplicates another: `XDP` + the target item's UUID in base64url (22 bytes). Boolean.
    public static let duplicateOf = "XDP"
    /// Two of the index's common words next to each other in a detail (``WordPairs``): `XWP` and the words' numbers in
    /// the list the index keeps (``SearchIndexLayout/wordPairsKey``), a byte each for most (written by CXapian's
    /// `WordPairs`). Boolean.
    public static let wordPair = "XWP"
    /// Two of the index's common words next to each other in a title: as ``wordPair``, with `XWT`.
    public static let titleWordPair = "XWT"
    /// Marks a document that holds a word that is its own stem (`leak`) and another form of it (`leaks`) in one field,
    /// and so keeps the stem term: `XZ` + the stem term (`XZZleak`). Boolean. Written by CXapian's `StemTerms`.
    public static let stemOverlap = "XZ"
}

/// Value slots: sortable numbers and strings kept per document.
public enum ValueSlot {
    /// Creation time, seconds since 1970, Xapian sortable encoding.
    public static let created: UInt32 = 0
    /// Last modification time, same encoding.
    public static let modified: UInt32 = 1
    /// Priority, same encoding.
    public static let priority: UInt32 = 2
    /// Fingerprint of the indexed attributes (its 8 bytes), so `verify` can find stale documents.
    public static let fingerprint: UInt32 = 3
    /// The title's collation key (``TitleCollation``), for sorting by title.
    public static let titleSortKey: UInt32 = 4
    /// The domain identifier (project URI, kept as ``IdentifierCoding/value(_:)``), for project facets.
    public static let domain: UInt32 = 5
    /// The status (``statusValue(_:)``: one byte for `open`, `completed`, `closed`), for status facets.
    public static let status: UInt32 = 6
    /// The unique identifier (kept as ``IdentifierCoding/value(_:)``): hits read it from here (documents carry no
    /// data; reading the `Q` term from the document's term list instead is slower for a short page). Its
    /// short form names no store, so a search across stores collapses on it: an item copied into two stores is one
    /// hit.
    public static let uniqueIdentifier: UInt32 = 7
    /// How many distinct words the title has (Xapian sortable encoding), for the ranking's title similarity.
    public static let titleWords: UInt32 = 8
    /// When an item was closed (Xapian sortable encoding), for `closed:` ranges; only on items closed at a known
    /// time.
    public static let closed: UInt32 = 9
    /// An item's tags, as written, a line each (a tag holds no line break), for tag facets: the match counts each
    /// set of tags, and a facet splits the sets (``SearchFacet/labels(_:)``).
    public static let tags: UInt32 = 10
    /// An item's assignees, as ``tags``.
    public static let assignees: UInt32 = 11
    /// An item's resolution, lowercased, for resolution facets.
    public static let resolution: UInt32 = 12
}

extension ValueSlot {
    /// The statuses Spotlite writes, each kept in ``status`` as one byte (its index here, plus one).
    static let statuses = ["open", "completed", "closed"]

    /// A status as kept in ``status``: one byte for a known one, any other as its text (two bytes or more, so the
    /// two never meet; a one-letter status is kept with a zero byte before it).
    static func statusValue(_ status: String) -> [UInt8] {
        if let index = statuses.firstIndex(of: status) { return [UInt8(index + 1)] }
        let text = Array(status.utf8)
        return text.count == 1 ? [0] + text : text
    }

    /// The status a value of ``status`` holds.
    static func status(fromValue bytes: [UInt8]) -> String {
        if bytes.count == 1, Int(bytes[0]) >= 1, Int(bytes[0]) <= statuses.count { return statuses[Int(bytes[0]) - 1] }
        return String(decoding: bytes.count == 2 && bytes[0] == 0 ? Array(bytes.dropFirst()) : bytes, as: UTF8.self)
    }
}

/// A boolean term that exactly the documents holding one value in one slot hold: a status's and a priority's. The
/// document writes both from here, and a filter on the term is checked in the slot's table by a reader that keeps
/// one (``SearchQueryParser/statusMapping(_:)``), so the two cannot drift apart.
struct SlotTerm {
    let term: String
    let slot: UInt32
    let value: [UInt8]

    /// A status's term and its one-byte (or text) value in ``ValueSlot/status``.
    static func status(_ status: String) -> SlotTerm {
        SlotTerm(term: TermPrefix.status + status, slot: ValueSlot.status, value: ValueSlot.statusValue(status))
    }

    /// A priority's term and its sortable value in ``ValueSlot/priority``.
    static func priority(_ priority: Int) -> SlotTerm {
        SlotTerm(
            term: TermPrefix.priority + String(priority), slot: ValueSlot.priority,
            value: SortableNumber.encode(Double(priority)))
    }
}

/// The index layout: what the prefixes, slots and document shape mean.
public enum SearchIndexLayout {
    /// Bump whenever ``TermPrefix``, ``ValueSlot`` or the document shape changes.
    /// 4: folded, compound-expanded, CJK n-gram text; title terms with wdf 0; collation keys for titles.
    /// 5: an acronym's plural `s` stays with it (`APIs` is no longer `AP Is`).
    /// 6: spelling data for title words and words of two documents or more; title sort keys of 58 bytes.
    /// 7: the entity key (slot 9), on which a search across stores collapses copies of one item; messages (kind
    /// `message`, author terms).
    /// 8: identifiers kept short (``IdentifierCoding``), the base in the metadata; no entity slot (the unique
    /// identifier's short form is the collapse key); fingerprints of 8 bytes; title keys of 32 folded bytes, without
    /// tie-breaks that add nothing; statuses in one byte; project-title terms of 12 bytes at most; spelling data only
    /// for words of two documents or more, titles included.
    /// 9: pair terms for the index's common words, a detail's and a title's (``TermPrefix/wordPair``,
    /// ``TermPrefix/titleWordPair``), the words in the metadata; stem terms only where they add to the word's term
    /// (``stemsKey``, ``TermPrefix/stemOverlap``); a project's title term in the project's document only.
    /// 10: tracker fields: assignee, tag, resolution, source-key, has, link-kind and duplicate-of terms (``TermPrefix``),
    /// author terms on items, the closing time, tags, assignees and resolution in value slots 9–12; none on a document
    /// without them.
    /// 11: commenter terms on items (``TermPrefix/commenter``), for `involves:`.
    /// 12: a document's positions packed into its data (``positionsKey``), not in Xapian's position table (but a long
    /// document's).
    public static let version = "12"
    /// Metadata key holding ``version``.
    public static let versionKey = "spotlite.layout"
    /// Metadata key holding the base of the index's short identifiers (``IdentifierCoding/base``).
    public static let identifierBaseKey = "spotlite.identifier-base"
    /// Metadata key holding the index's common words, one a line, most frequent first (``WordPairs``): chosen when the
    /// index is made and kept for its life, so that every document has the pair terms of the same words.
    public static let wordPairsKey = "spotlite.word-pairs"
    /// Metadata key holding the language of the stem terms the index leaves out where they repeat a word's own term
    /// (``StemTerms``), or nothing for an index that writes them all: decided when the index is made, for its life.
    public static let stemsKey = "spotlite.stems"
    /// Metadata key saying that the index packs its documents' positions into their data (CXapian's
    /// `engine/positions.h`: the title's and detail's terms in the order of the text, each as its number; a document
    /// of over 256 positions keeps them in Xapian's position table), holding the next number to give a positional
    /// term: each term's number is the metadata entry `P` + the term (a varint), given when a packed document first
    /// holds it. Decided when the index is made, for its life. Phrases, `ADJ` and `NEAR` are checked against them.
    public static let positionsKey = "spotlite.positions"
    /// What a query reads of the index's layout: its common words and its stems (from the index's metadata), that
    /// only projects hold their title's term, and where its positions are packed.
    public static let queryLayout = IndexLayout(
        titlePrefix: TermPrefix.title, wordPairsKey: wordPairsKey, stemsKey: stemsKey,
        containerPrefix: TermPrefix.containerTitle, domainPrefix: TermPrefix.domain, positionsKey: positionsKey)
    /// Metadata key holding the client state of the last batch.
    public static let clientStateKey = "spotlite.client-state"
}

extension TermPrefix {
    /// Xapian refuses terms over 245 bytes; boolean terms built from user text stay under this.
    static let maximumBooleanTermBytes = 200

    /// The boolean term for an author's name, normalised like a container title (any case, any accents).
    public static func authorTerm(_ name: String) -> String { nameTerm(author, name) }

    /// `prefix` and `name` normalised like a container title (any case, any accents), within Xapian's term limit.
    public static func nameTerm(_ prefix: String, _ name: String) -> String {
        let key = TextNormalizer.titleKey(name)
        return prefix + Fingerprint.bounded(key, maximumBytes: maximumBooleanTermBytes - prefix.utf8.count)
    }

    /// The ``duplicateOf`` term for a target item's UUID, or nil for what is not a lowercase UUID.
    public static func duplicateTerm(_ itemID: String) -> String? {
        guard let bytes = IdentifierCoding.uuidBytes(itemID.utf8) else { return nil }
        return duplicateOf + String(decoding: Base64URL.encode(bytes), as: UTF8.self)
    }

    /// The boolean term for a container title: its ``TextNormalizer/titleKey(_:)`` if that is at most 11 bytes, else
    /// `#` and 11 characters of a 64-bit hash of it (base64url), so every item's term is at most 12 bytes after its
    /// prefix: the term is only ever matched exactly, and long titles written out cost an index whose projects have
    /// them a share of its size. A key of 11 bytes or fewer cannot pass for a hash, which has 12.
    public static func containerTitleTerm(_ title: String) -> String {
        let key = TextNormalizer.titleKey(title)
        guard key.utf8.count > 11 else { return containerTitle + key }
        let hash = Base64URL.encode(Fingerprint.bytes(Fingerprint.fnv1a([key])))
        return containerTitle + "#" + String(decoding: hash, as: UTF8.self)
    }
}
