import TestSupport
import Testing

@testable import Indexer

/// The words of a query a spelling correction may replace: an ASCII query is read from its bytes, and must give what
/// reading its characters gives.
@Suite struct SpellingWordsTests {
    @Test func anASCIIQueryGivesTheWordsItsCharactersGive() {
        let pieces = [
            "leak", "Pipe", "AND", "OR", "NOT", "ADJ", "x2", "42", "v1.2", "title:leak", "fix*", "\"", "(", ")", "-",
            "'s", ":", "*", ".", ",", " ", "  ", "\t", "\n", "kind:item", "e-mail", "HTTPServer", "a_b", "NEAR", "xor",
        ]
        var random = SeededRandom(seed: 5)
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...8, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined(separator: Bool.random(using: &random) ? " " : "")
            let bytes = StoreIndexer.asciiCorrectableWordRanges(text).map { text[$0] }
            let characters = StoreIndexer.characterCorrectableWordRanges(text).map { text[$0] }
            #expect(bytes == characters, "\(text.debugDescription)")
        }
        let text = "\"leek pipe\" AND title:lek OR fx*"
        #expect(StoreIndexer.correctableWordRanges(text).map { String(text[$0]) } == ["leek", "pipe"])
    }
}
