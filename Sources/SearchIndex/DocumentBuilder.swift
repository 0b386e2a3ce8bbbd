import Xapian

/// Turns a ``SearchableItem`` into a Xapian document following ``TermPrefix`` and ``ValueSlot``.
final class DocumentBuilder {
    private let generator: TermGenerator
    private let spellingDatabase: WritableDatabase?

    /// Title words count this many times a detail word: BM25 then ranks title matches above detail ones.
    static let titleWeight: UInt32 = 2

    /// With `spellingDatabase`, every indexed word also feeds the spelling data behind "did you mean".
    init(spellingDatabase: WritableDatabase? = nil) throws(XapianError) {
        // Words over 64 bytes (Xapian's default) are skipped; the rest of the text is still indexed.
        generator = try TermGenerator(stemmingLanguage: "english", maxWordLength: 64)
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

    func document(for item: SearchableItem) throws(XapianError) -> Document {
        let attributes = item.attributeSet
        let document = Document()
        // No document data: the unique identifier is read back from its value slot (kept for sorting anyway),
        // and the text lives in the store. Nothing is stored twice.
        try document.addBooleanTerm(TermPrefix.uniqueIdentifier + item.uniqueIdentifier)
        try document.addBooleanTerm(TermPrefix.domain + item.domainIdentifier)
        try document.addBooleanTerm(TermPrefix.kind + attributes.kind.rawValue)
        try document.addBooleanTerm(TermPrefix.status + attributes.status)
        if let priority = attributes.priority {
            try document.addBooleanTerm(TermPrefix.priority + String(priority))
            try document.addValue(SortableNumber.encode(Double(priority)), slot: ValueSlot.priority)
        }
        if !attributes.containerTitle.isEmpty {
            try document.addBooleanTerm(TermPrefix.containerTitleTerm(attributes.containerTitle))
        }

        try generator.setDocument(document)
        try generator.indexText(attributes.title, wdfIncrement: Self.titleWeight, prefix: TermPrefix.title)
        if let spellingDatabase {
            // Xapian records spelling only for unprefixed text; title words must be able to correct queries too.
            for word in Self.spellingWords(attributes.title) { try spellingDatabase.addSpelling(word) }
        }
        generator.increaseTermPosition()
        try generator.indexText(attributes.contentDescription, prefix: TermPrefix.detail)

        try document.addValue(SortableNumber.encode(Double(attributes.createdAt)), slot: ValueSlot.created)
        try document.addValue(SortableNumber.encode(Double(attributes.modifiedAt)), slot: ValueSlot.modified)
        try document.addValue(Array(item.fingerprint.utf8), slot: ValueSlot.fingerprint)
        try document.addValue(Array(attributes.title.lowercased().utf8.prefix(64)), slot: ValueSlot.titleSortKey)
        try document.addValue(Array(item.domainIdentifier.utf8), slot: ValueSlot.domain)
        try document.addValue(Array(attributes.status.utf8), slot: ValueSlot.status)
        try document.addValue(Array(item.uniqueIdentifier.utf8), slot: ValueSlot.uniqueIdentifier)
        return document
    }
}
