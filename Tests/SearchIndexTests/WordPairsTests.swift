import Foundation
import SearchIndex
import TestSupport
import Testing
import Xapian

/// The pair terms of an index's common words (``SearchableIndex/commonWords``): a phrase of two common words is looked
/// up in its pair's posting list instead of checked position by position. They must change how fast a phrase is
/// found, never what it finds or how it ranks.
@Suite struct WordPairsTests {
    let directory = TemporaryDirectory("wordpairs")

    static func item(_ id: String, title: String, detail: String) -> SearchableItem {
        SearchableItem(
            uniqueIdentifier: id, domainIdentifier: "home",
            attributeSet: SearchableItemAttributeSet(
                title: title, contentDescription: detail, kind: .item, containerTitle: "Home", priority: 2,
                isCompleted: false, createdAt: 1_700_000_000, modifiedAt: 1_700_000_000))
    }

    /// The index's pair terms of one field (details by default), by name (word numbers of 0x80 and more read here as
    /// U+FFFD).
    static func pairTerms(_ path: String, prefix: String = TermPrefix.wordPair) throws -> [String] {
        let database = try Database(path: path)
        return try database.termsWithValue(prefix: prefix, slot: ValueSlot.uniqueIdentifier).map(\.term)
    }

    static func titlePairTerms(_ path: String) throws -> [String] {
        try pairTerms(path, prefix: TermPrefix.titleWordPair)
    }

    @Test func pairsOfCommonWordsNextToEachOtherInOneFieldGetTerms() throws {
        let path = directory.file("index")
        let index = try SearchableIndex(path: path, commonWords: ["alpha", "beta", "gamma"])
        #expect(index.commonWords == ["alpha", "beta", "gamma"])
        // Title pairs: (gamma, beta). Detail pairs: (alpha, gamma); "delta" is not common, and the title's last word
        // and the detail's first are in different fields: (beta, alpha) gets no term.
        try index.indexSearchableItems([Self.item("a", title: "Gamma beta", detail: "alpha gamma delta beta")])
        #expect(try Self.titlePairTerms(path).count == 1)
        #expect(try Self.pairTerms(path).count == 1)
        // (beta, alpha) and (alpha, beta): the comma is no gap. A pair in a title and the same pair in a detail are
        // two terms: a phrase in one field is matched by its pair alone.
        try index.indexSearchableItems([Self.item("b", title: "gamma beta", detail: "beta alpha, beta alpha")])
        #expect(try Self.titlePairTerms(path).count == 1)
        #expect(try Self.pairTerms(path).count == 3)
        // The words are the index's for its life: opened again, it keeps them, whatever it is given.
        try index.close()
        let again = try SearchableIndex(path: path, commonWords: ["delta"])
        #expect(again.commonWords == ["alpha", "beta", "gamma"])
        try again.indexSearchableItems([Self.item("c", title: "delta delta", detail: "gamma gamma")])
        #expect(try Self.pairTerms(path).count == 4)
        #expect(try Self.titlePairTerms(path).count == 1)
        // A word list read back is the one written, and an index made without words has no pair terms.
        let plain = try SearchableIndex(path: directory.file("plain"))
        #expect(plain.commonWords.isEmpty)
        try plain.indexSearchableItems([Self.item("a", title: "Gamma beta", detail: "alpha gamma delta beta")])
        #expect(try Self.pairTerms(directory.file("plain")).isEmpty)
        #expect(try Self.titlePairTerms(directory.file("plain")).isEmpty)
    }

    static func items(_ ids: Range<Int>, _ texts: inout RandomTexts) -> [SearchableItem] {
        ids.map { item("item-\($0)", title: texts.text(1...6), detail: texts.text(0...30)) }
    }

    /// Two indexes of the same items, one with common words and one without, answer every phrase (and every query a
    /// phrase bonus is added to) with the same hits, scores and totals, before and after items change.
    @Test func phrasesFindAndRankTheSameWithPairTermsAsWithout() throws {
        var texts = RandomTexts()
        let common = RandomTexts.common
        func word() -> String { texts.word() }
        func items(_ ids: Range<Int>) -> [SearchableItem] { Self.items(ids, &texts) }
        let plainPath = directory.file("plain")
        let pairedPath = directory.file("paired")
        let plain = try SearchableIndex(path: plainPath)
        let paired = try SearchableIndex(path: pairedPath, commonWords: common)
        let first = items(0..<300)
        try plain.indexSearchableItems(first)
        try paired.indexSearchableItems(first)
        #expect(try !Self.pairTerms(pairedPath).isEmpty)

        func queries() -> [String] {
            var queries: [String] = []
            for _ in 0..<60 {
                let words = (0..<Int.random(in: 2...3, using: &texts.random)).map { _ in word() }
                queries.append("\"" + words.joined(separator: " ") + "\"")
                queries.append("title:\"" + words.prefix(2).joined(separator: " ") + "\"")
                queries.append(words.joined(separator: " "))  // the phrase bonus
            }
            return queries + ["\"ant ant\"", "\"ant bee cat\"", "\"ant kiwi\" bee", "\"ant bee\" OR \"cat dog\""]
        }
        func expectSameAnswers(_ round: String) throws {
            let plainReader = try SearchReader(path: plainPath)
            let pairedReader = try SearchReader(path: pairedPath)
            for text in queries() {
                let query = try SearchQueryParser().parse(text)
                let requests = [
                    SearchRequest(limit: 10), SearchRequest(offset: 5, limit: 50), SearchRequest(sort: .modified),
                ]
                for request in requests {
                    let expected = try plainReader.search(query, request)
                    let found = try pairedReader.search(query, request)
                    #expect(found.total == expected.total, "\(round): \(text)")
                    let (ids, wanted) = (found.hits.map(\.uniqueIdentifier), expected.hits.map(\.uniqueIdentifier))
                    #expect(ids == wanted, "\(round): \(text)")
                    for (hit, want) in zip(found.hits, expected.hits) {
                        #expect(
                            abs(hit.score - want.score) < 1e-9, "\(round): \(text) \(hit.uniqueIdentifier), \(request)")
                    }
                }
            }
        }
        try expectSameAnswers("built")
        // Changed, added and deleted items: the paired index keeps its words and writes their pairs.
        let changed = items(0..<100) + items(300..<400)
        try plain.indexSearchableItems(changed)
        try paired.indexSearchableItems(changed)
        let gone = (100..<150).map { "item-\($0)" }
        try plain.deleteSearchableItems(withIdentifiers: gone)
        try paired.deleteSearchableItems(withIdentifiers: gone)
        try expectSameAnswers("changed")
    }

    @Test func commonWordsAreTheWordsOfAShareOfTheSample() throws {
        // 100 items: "often" in all of them, "sometimes" in 4 (above the 2 % share, under the minimum of documents),
        // "twice" in 2, and a word of its own in each of the others.
        func own(_ number: Int) -> String {
            let letters = [UInt8(ascii: "a") + UInt8(number / 26), UInt8(ascii: "a") + UInt8(number % 26)]
            return String(decoding: letters, as: UTF8.self)
        }
        let items = (0..<100).map { number in
            Self.item(
                "item-\(number)", title: "Often \(number % 33 == 0 ? "sometimes" : "q" + own(number))",
                detail: number < 2 ? "twice" : "")
        }
        let words = try SearchableIndex.commonWords(of: items)
        #expect(words == ["often"])
        #expect(SearchableIndex.commonWordMinimumDocuments > 3)
        #expect(try SearchableIndex.commonWords(of: []) == [])
    }
}
