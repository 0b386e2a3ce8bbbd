import Foundation
import PropertyBased
import TestSupport
import Testing

@testable import SearchIndex

/// Every search reads its query several times before Xapian parses it (limits, empty fields, negations, the phrase
/// bonus, a tracker key). ASCII queries are read from their bytes: each such reading must say what the Character
/// reading says, on any ASCII text and on the corners that differ between the two (`"\r\n"` is one Character).
@Suite struct QueryBytesTests {
    static let queryText = Gen.frequency(
        (
            3,
            Gen.element(of: QueryPropertyTests.pieces + ["\r\n", "\t", "NO", "T", "don't", "9.4", "x-y"]).array(
                of: 0...12
            )
            .map { $0.compactMap { $0 }.joined() }
        ),
        (1, Gen.ascii.string(of: 0...30))
    )

    @Test func theNestingCountedOnBytesIsTheNestingCountedOnCharacters() async {
        await propertyCheck(count: 2_000, input: Self.queryText) { text in
            for open: Set<Character> in [["("], ["(", "!"]] {
                #expect(
                    SearchQueryParser.deepestNesting(text, open: open)
                        == SearchQueryParser.characterDeepestNesting(text, open: open), "\(text.debugDescription)")
            }
        }
        #expect(SearchQueryParser.deepestNesting("((a) \"(((\" (b", open: ["("]) == 2)
        #expect(SearchQueryParser.deepestNesting("!(!(a))", open: ["(", "!"]) == 4)
    }

    @Test func thePhraseBonusReadOnBytesIsThePhraseBonusReadOnCharacters() async {
        await propertyCheck(count: 2_000, input: Self.queryText) { text in
            guard !text.utf8.contains(UInt8(ascii: "\"")), text.isAllASCII else { return }
            #expect(
                SearchQueryParser.asciiPhraseBonus(for: text) == SearchQueryParser.characterPhraseBonus(for: text),
                "\(text.debugDescription)")
        }
        #expect(SearchQueryParser.phraseBonus(for: " leaking\r\ntap ", partial: false) == "\"leaking tap\"")
        #expect(SearchQueryParser.phraseBonus(for: "don't 9.4 x-y", partial: false) == "\"don't 9.4 x-y\"")
        #expect(SearchQueryParser.phraseBonus(for: "leaking OR tap", partial: false) == nil)
        #expect(SearchQueryParser.phraseBonus(for: "leaking -tap", partial: false) == nil)
        #expect(SearchQueryParser.phraseBonus(for: "leaking is:open", partial: false) == nil)
        #expect(SearchQueryParser.phraseBonus(for: "a b c d e f g h", partial: false) != nil)
        #expect(SearchQueryParser.phraseBonus(for: "a b c d e f g h i", partial: false) == nil)
        #expect(SearchQueryParser.phraseBonus(for: "leaking", partial: false) == nil)
        #expect(SearchQueryParser.phraseBonus(for: "tête leaking", partial: false) == "\"tête leaking\"")
    }

    /// A query is tokenized for an empty field only where a word may end in a colon: where the bytes say none can,
    /// none does.
    @Test func aQueryWithoutAColonAtAWordsEndHasNoEmptyField() async {
        await propertyCheck(count: 2_000, input: Self.queryText) { text in
            if !SearchQueryParser.mayEndAField(text) {
                #expect(
                    !NotBinding.tokenize(text).contains { $0.kind == .term && $0.text.hasSuffix(":") },
                    "\(text.debugDescription)")
            }
        }
        #expect(!SearchQueryParser.mayEndAField("fix priority:3 is:open author:\"Ann\""))
        #expect(SearchQueryParser.mayEndAField("fix author:"))
        #expect(SearchQueryParser.mayEndAField("fix (is:) tap"))
        #expect(SearchQueryParser.mayEndAField("is:\u{A0}open"))
    }

    @Test func bytesOfAWordAreFoundWhereTheUTF8ViewFindsThem() async {
        await propertyCheck(count: 2_000, input: Self.queryText) { text in
            #expect(text.containsBytes(of: "NOT") == (text.utf8.firstRange(of: "NOT".utf8) != nil))
        }
        #expect("leak NOT tap".containsBytes(of: "NOT"))
        #expect("NOT".containsBytes(of: "NOT"))
        #expect(!"NO T".containsBytes(of: "NOT"))
        #expect(!"NO".containsBytes(of: "NOT"))
        #expect("é NOT\u{301}".containsBytes(of: "NOT"))
    }

    /// Exclusions are looked for only where a `-` may begin a word: where the bytes say none can, no token begins
    /// with one and no filter is negated.
    @Test func aQueryWithoutADashAtAWordsStartExcludesNothing() async {
        await propertyCheck(count: 2_000, input: Self.queryText) { text in
            guard !NotBinding.mayExclude(text) else { return }
            #expect(
                !NotBinding.tokenize(text).contains { $0.kind == .term && $0.text.hasPrefix("-") },
                "\(text.debugDescription)")
            #expect(NotBinding.excludingAlone(text) == text, "\(text.debugDescription)")
        }
        #expect(!NotBinding.mayExclude("leak created:2024-05-01..2024-12-31 x-ray"))
        #expect(NotBinding.mayExclude("-draft"))
        #expect(NotBinding.mayExclude("leak (-draft)"))
        #expect(NotBinding.mayExclude("leak\t-draft"))
        #expect(NotBinding.mayExclude("leak\u{A0}-draft"))
        #expect(SearchQueryParser.negatingFilters("leak created:2024-05-01") == "leak created:2024-05-01")
        #expect(SearchQueryParser.negatingFilters("leak -is:open") == "leak NOT is:open")
        #expect(SearchQueryParser.negatedFilters(in: "leak created:2024-05-01..2024-06") == [])
        #expect(SearchQueryParser.negatedFilters(in: "leak (-is:open)") == ["is:open"])
    }

    @Test func numbersArePaddedAsCFormatsThem() {
        for number in [0, 7, 42, 999, 2024, 12345, -5, -42, -1234] {
            for width in [2, 4] {
                #expect(zeroPadded(number, width) == String(format: "%0\(width)d", number), "\(number) \(width)")
            }
        }
    }

    @Test(arguments: [
        ("HADOOP-1234", "HADOOP-1234"), (" gh-12\t", "gh-12"), ("HADOOP_X-7", "HADOOP_X-7"), ("HADOOP-12a", nil),
        ("HADOOP 1234", nil), ("fix HADOOP-1234", nil), ("-1234", nil), ("1A-2", nil), ("HADOOP-1234\n", nil),
        ("ÄB-12", nil), ("HADOOP-", nil), ("leak", nil),
    ])
    func aTrackerKeyTypedAloneIsReadFromItsBytes(text: String, key: String?) {
        #expect(SearchQueryParser.sourceKey(typedAlone: text) == key)
    }
}
