import Xapian

/// Turns a ``SearchableItem`` into a Xapian document following ``TermPrefix`` and ``ValueSlot``.
final class DocumentBuilder {
    private let generator: TermGenerator
    /// Whether ``words`` collects the words of the documents built, for the spelling data (see ``SearchableIndex``).
    let collectsWords: Bool
    /// The distinct words (lowercased) of the titles and details built since the caller last emptied it.
    var words = Set<String>()

    /// How identifiers are kept (see ``IdentifierCoding``).
    let coding: IdentifierCoding
    /// The index's common words, whose pairs get terms (nil: none).
    let pairs: WordPairs?
    /// The stem terms the index leaves out (nil: it writes them all).
    let stems: StemTerms?

    init(coding: IdentifierCoding, pairs: WordPairs? = nil, stems: StemTerms? = nil, collectsWords: Bool = false)
        throws(XapianError)
    {
        self.coding = coding
        self.pairs = pairs
        self.stems = stems
        // Words over 64 bytes (Xapian's default) are skipped; the rest of the text is still indexed.
        generator = try TermGenerator(stemmingLanguage: SearchQueryParser.stemmingLanguage, maxWordLength: 64)
        generator.enableCJKNgrams()
        self.collectsWords = collectsWords
    }

    /// Lowercased words of letters (digits allowed after the first), as the query parser sees them.
    static func spellingWords(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber) }).compactMap { word in
            guard let first = word.first, first.isLetter, word.count > 1, word.utf8.count <= 64 else { return nil }
            return String(word)
        }
    }

    /// How many distinct words (letters and digits, any case) `text` has: what the title similarity counts.
    static func distinctWords(_ text: String) -> Int {
        Set(text.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber) })).count
    }

    func document(for item: SearchableItem) throws(XapianError) -> Document {
        let attributes = item.attributeSet
        let document = Document()
        // The document's data is left to its packed positions (SearchableIndex): the unique identifier is read back
        // from its value slot, and the text lives in the store. Nothing is stored twice.
        try document.addBooleanTerm(TermPrefix.uniqueIdentifier + coding.term(item.uniqueIdentifier))
        try document.addBooleanTerm(TermPrefix.domain + coding.term(item.domainIdentifier))
        // The kind term carries a wdf of 1: with the title's wdf 0, a document with no detail would have length 0,
        // which Xapian's consistency check takes for "no terms" (and BM25's normalisation barely notices the 1). It
        // also carries the wdf of the stem terms left out (below), no query weighing it.
        let kind = TermPrefix.kind + attributes.kind.rawValue
        try document.addTerm(kind, wdfIncrement: 1)
        // A status's and a priority's terms come with their values in the status and priority slots (``SlotTerm``):
        // a filter on them is checked in the slot's table.
        if !attributes.status.isEmpty {
            let status = SlotTerm.status(attributes.status)
            try document.addBooleanTerm(status.term)
            try document.addValue(status.value, slot: status.slot)
        }
        for author in attributes.authorNames where !author.isEmpty {
            try document.addBooleanTerm(TermPrefix.authorTerm(author))
        }
        try addTrackingTerms(attributes, to: document)
        if let priority = attributes.priority {
            let priority = SlotTerm.priority(priority)
            try document.addBooleanTerm(priority.term)
            try document.addValue(priority.value, slot: priority.slot)
        }
        // The project's own document only: a filter on the title finds the rest by the project's domain term (items
        // writing their project's title made the index larger, and a rename rewrote them all).
        if attributes.kind == .project, !attributes.containerTitle.isEmpty {
            try document.addBooleanTerm(TermPrefix.containerTitleTerm(attributes.containerTitle))
        }

        try generator.setDocument(document)
        // The title's terms carry no wdf: a document's length is its detail's, and a title word counts by being
        // there (the ranking's title bonus; see SearchRanking). Positions are kept for phrases.
        let title = TextNormalizer.indexed(attributes.title)
        try generator.indexText(title, wdfIncrement: 0, prefix: TermPrefix.title)
        generator.increaseTermPosition()
        let detail = TextNormalizer.indexed(attributes.contentDescription)
        try generator.indexText(detail, prefix: TermPrefix.detail)
        if let stems { try document.pruneStems(stems, lengthTerm: kind) }
        if let pairs { try document.addWordPairs(pairs) }
        if collectsWords {
            words.formUnion(Self.spellingWords(title))
            words.formUnion(Self.spellingWords(detail))
        }

        try document.addValue(SortableNumber.encode(Double(attributes.createdAt)), slot: ValueSlot.created)
        try document.addValue(SortableNumber.encode(Double(attributes.modifiedAt)), slot: ValueSlot.modified)
        try document.addValue(Fingerprint.bytes(item.fingerprintHash), slot: ValueSlot.fingerprint)
        try document.addValue(TitleCollation.key(attributes.title), slot: ValueSlot.titleSortKey)
        try document.addValue(SortableNumber.encode(Double(Self.distinctWords(title))), slot: ValueSlot.titleWords)
        try document.addValue(coding.value(item.domainIdentifier), slot: ValueSlot.domain)
        try document.addValue(coding.value(item.uniqueIdentifier), slot: ValueSlot.uniqueIdentifier)
        if let closed = attributes.closedAt {
            try document.addValue(SortableNumber.encode(Double(closed)), slot: ValueSlot.closed)
        }
        // For facets, as written; a line each (names and tags hold no line break).
        if !attributes.tags.isEmpty {
            try document.addValue(Array(attributes.tags.joined(separator: "\n").utf8), slot: ValueSlot.tags)
        }
        if !attributes.assigneeNames.isEmpty {
            try document.addValue(
                Array(attributes.assigneeNames.joined(separator: "\n").utf8), slot: ValueSlot.assignees)
        }
        if !attributes.resolution.isEmpty {
            // Lowercased: trackers write FIXED, Fixed and fixed for one resolution, and the facet counts them as one.
            try document.addValue(Array(attributes.resolution.lowercased().utf8), slot: ValueSlot.resolution)
        }
        return document
    }

    /// The terms of an item's tracker fields; none for a document without them (an index of a store that uses none
    /// is no larger for them).
    private func addTrackingTerms(_ attributes: SearchableItemAttributeSet, to document: Document) throws(XapianError) {
        var has: [String] = []
        if attributes.kind == .item, attributes.authorNames.contains(where: { !$0.isEmpty }) { has.append("author") }
        for name in attributes.assigneeNames where !name.isEmpty {
            try document.addBooleanTerm(TermPrefix.nameTerm(TermPrefix.assignee, name))
        }
        if !attributes.assigneeNames.isEmpty { has.append("assignee") }
        for name in attributes.commenterNames where !name.isEmpty {
            try document.addBooleanTerm(TermPrefix.nameTerm(TermPrefix.commenter, name))
        }
        for tag in attributes.tags where !tag.isEmpty {
            try document.addBooleanTerm(TermPrefix.nameTerm(TermPrefix.tag, tag))
        }
        if !attributes.tags.isEmpty { has.append("tag") }
        if !attributes.resolution.isEmpty {
            try document.addBooleanTerm(TermPrefix.nameTerm(TermPrefix.resolution, attributes.resolution))
            has.append("resolution")
        }
        if !attributes.sourceKey.isEmpty {
            // With a wdf of 1, not as a boolean term: the key typed alone ranks its item by this term's weight.
            try document.addTerm(TermPrefix.nameTerm(TermPrefix.sourceKey, attributes.sourceKey), wdfIncrement: 1)
            has.append("key")
        }
        for link in attributes.links {
            try document.addBooleanTerm(TermPrefix.linkKind + link.kind)
            if link.kind == "duplicate-of", let term = TermPrefix.duplicateTerm(link.targetItemID) {
                try document.addBooleanTerm(term)
            }
        }
        if !attributes.links.isEmpty { has.append("link") }
        for field in has { try document.addBooleanTerm(TermPrefix.has + field) }
    }
}
