import Xapian

/// Turns a ``SearchableItem`` into a Xapian document following ``TermPrefix`` and ``ValueSlot``.
final class DocumentBuilder {
    private let generator: TermGenerator
    private let spellingDatabase: WritableDatabase?


    /// With `spellingDatabase`, every indexed word also feeds the spelling data behind "did you mean".
    init(spellingDatabase: WritableDatabase? = nil) throws(XapianError) {
        // Words over 64 bytes (Xapian's default) are skipped; the rest of the text is still indexed.
        generator = try TermGenerator(stemmingLanguage: SearchQueryParser.stemmingLanguage, maxWordLength: 64)
        generator.enableCJKNgrams()
        self.spellingDatabase = spellingDatabase
        if let spellingDatabase { try generator.enableSpelling(in: spellingDatabase) }
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
        // No document data: the unique identifier is read back from its value slot (kept for sorting anyway),
        // and the text lives in the store. Nothing is stored twice.
        try document.addBooleanTerm(TermPrefix.uniqueIdentifier + item.uniqueIdentifier)
        try document.addBooleanTerm(TermPrefix.domain + item.domainIdentifier)
        // The kind term carries a wdf of 1: with the title's wdf 0, a document with no detail would have length 0,
        // which Xapian's consistency check takes for "no terms" (and BM25's normalisation barely notices the 1).
        try document.addTerm(TermPrefix.kind + attributes.kind.rawValue, wdfIncrement: 1)
        try document.addBooleanTerm(TermPrefix.status + attributes.status)
        if let priority = attributes.priority {
            try document.addBooleanTerm(TermPrefix.priority + String(priority))
            try document.addValue(SortableNumber.encode(Double(priority)), slot: ValueSlot.priority)
        }
        if !attributes.containerTitle.isEmpty {
            try document.addBooleanTerm(TermPrefix.containerTitleTerm(attributes.containerTitle))
        }

        try generator.setDocument(document)
        // The title's terms carry no wdf: a document's length is its detail's, and a title word counts by being
        // there (the ranking's title bonus; see SearchRanking). Positions are kept for phrases.
        let title = TextNormalizer.indexed(attributes.title)
        try generator.indexText(title, wdfIncrement: 0, prefix: TermPrefix.title)
        if let spellingDatabase {
            // Xapian records spelling only for unprefixed text; title words must be able to correct queries too.
            for word in Self.spellingWords(title) { try spellingDatabase.addSpelling(word) }
        }
        generator.increaseTermPosition()
        try generator.indexText(TextNormalizer.indexed(attributes.contentDescription), prefix: TermPrefix.detail)

        try document.addValue(SortableNumber.encode(Double(attributes.createdAt)), slot: ValueSlot.created)
        try document.addValue(SortableNumber.encode(Double(attributes.modifiedAt)), slot: ValueSlot.modified)
        try document.addValue(Array(item.fingerprint.utf8), slot: ValueSlot.fingerprint)
        try document.addValue(TitleCollation.key(attributes.title), slot: ValueSlot.titleSortKey)
        try document.addValue(SortableNumber.encode(Double(Self.distinctWords(title))), slot: ValueSlot.titleWords)
        try document.addValue(Array(item.domainIdentifier.utf8), slot: ValueSlot.domain)
        try document.addValue(Array(attributes.status.utf8), slot: ValueSlot.status)
        try document.addValue(Array(item.uniqueIdentifier.utf8), slot: ValueSlot.uniqueIdentifier)
        return document
    }
}
