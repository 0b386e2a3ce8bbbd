/// The one table of term prefixes and value slots in a Spotlite index. Change it only together with
/// ``SearchIndexLayout/version``: an index built with another table is rebuilt, never mixed.
///
/// Conventions follow Xapian's omega: `Q` for the unique id, `S` for the title, `X…` for our own.
/// Free-text terms also get a stemmed twin, `Z` + prefix + stem, from the term generator.
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
    /// Kind of document: `item` or `project`. Filtered on as a boolean term, but with wdf 1 (see DocumentBuilder).
    public static let kind = "XK"
    /// Status: `open`, `completed` (items) or `closed` (projects). Boolean.
    public static let status = "XIS"
    /// Priority `1`…`3`. Boolean.
    public static let priority = "XPRI"
    /// The container (project) title, normalised by ``containerTitleTerm(_:)``. Boolean.
    public static let containerTitle = "XPT"
    /// A message's author, normalised by ``authorTerm(_:)``. Boolean.
    public static let author = "XAU"
}

/// Value slots: sortable numbers and strings kept per document.
public enum ValueSlot {
    /// Creation time, seconds since 1970, Xapian sortable encoding.
    public static let created: UInt32 = 0
    /// Last modification time, same encoding.
    public static let modified: UInt32 = 1
    /// Priority, same encoding.
    public static let priority: UInt32 = 2
    /// Fingerprint of the indexed attributes (hex), so `verify` can find stale documents.
    public static let fingerprint: UInt32 = 3
    /// The title's collation key (``TitleCollation``), for sorting by title.
    public static let titleSortKey: UInt32 = 4
    /// The domain identifier (project URI), for project facets.
    public static let domain: UInt32 = 5
    /// The status word (`open`, `completed`, `closed`), for status facets.
    public static let status: UInt32 = 6
    /// The unique identifier: hits read it from here (documents carry no data).
    public static let uniqueIdentifier: UInt32 = 7
    /// How many distinct words the title has (Xapian sortable encoding), for the ranking's title similarity.
    public static let titleWords: UInt32 = 8
    /// What the unique identifier names, without its store (``entityKey(of:)``): a search across several stores
    /// collapses on it, so that an item copied into two stores is one hit.
    public static let entity: UInt32 = 9

    /// The unique identifier's last path component — what a URI of any store names (`tracker://<store>/item/<uuid>`
    /// → the item's UUID) — a UUID packed in 16 bytes, anything else as it is.
    public static func entityKey(of uniqueIdentifier: String) -> [UInt8] {
        let last = uniqueIdentifier.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).last
            .map(Array.init) ?? []
        guard last.count == 36 else { return last }
        var packed: [UInt8] = []
        packed.reserveCapacity(16)
        var high: UInt8?
        for byte in last where byte != UInt8(ascii: "-") {
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            default: return last
            }
            if let first = high {
                packed.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return packed.count == 16 && high == nil ? packed : last
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
    public static let version = "7"
    /// Metadata key holding ``version``.
    public static let versionKey = "spotlite.layout"
    /// Metadata key holding the client state of the last batch.
    public static let clientStateKey = "spotlite.client-state"
}

extension TermPrefix {
    /// Xapian refuses terms over 245 bytes; boolean terms built from user text stay under this.
    static let maximumBooleanTermBytes = 200

    /// The boolean term for a container title: its ``TextNormalizer/titleKey(_:)``; a title too long for a term is cut
    /// and suffixed with a hash of the whole, so it still matches exactly.
    /// The boolean term for an author's name, normalised like a container title (any case, any accents).
    public static func authorTerm(_ name: String) -> String {
        let key = TextNormalizer.titleKey(name)
        return author + Fingerprint.bounded(key, maximumBytes: maximumBooleanTermBytes - author.utf8.count)
    }

    public static func containerTitleTerm(_ title: String) -> String {
        let key = TextNormalizer.titleKey(title)
        return containerTitle + Fingerprint.bounded(key, maximumBytes: maximumBooleanTermBytes - containerTitle.utf8.count)
    }
}
