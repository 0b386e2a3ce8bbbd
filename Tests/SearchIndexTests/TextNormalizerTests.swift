import Foundation
import PropertyBased
import TestSupport
import Testing

@testable import SearchIndex

/// What the index holds of text: folded, compound words followed by their parts. ASCII text takes a byte-level path
/// of its own (most text is ASCII, and long); it must say exactly what the character path says.
@Suite struct TextNormalizerTests {
    @Test(arguments: [
        ("NativeAzureFsOutputStream leaks", "NativeAzureFsOutputStream Native Azure Fs Output Stream leaks"),
        ("check HADOOP_CONF_DIR now", "check HADOOP_CONF_DIR HADOOP CONF DIR now"),
        ("upgrade to 9.4.43.", "upgrade to 9.4.43 9 4 43."),
        ("S3AFileSystem", "S3AFileSystem S 3 A File System"),
        ("HTTPServer", "HTTPServer HTTP Server"),
        ("Batch APIs, UUIDs", "Batch APIs, UUIDs"),
        ("IDsFor URLs2", "IDsFor IDs For URLs2 URLs 2"),
        ("HTTPSServer", "HTTPSServer HTTPS Server"),
        ("a plain sentence, nothing to split.", "a plain sentence, nothing to split."),
        ("Café Zürich", "Cafe Zurich"),
        ("ＡＢＣ résumé", "ABC resume"),
        ("ZürichHauptbahnhof", "ZurichHauptbahnhof Zurich Hauptbahnhof"),
    ])
    func compoundWordsAreFollowedByTheirParts(text: String, indexed: String) {
        #expect(TextNormalizer.indexed(text) == indexed)
    }

    /// ASCII pieces around the rules' corners: case changes, digits, dots and underscores at word edges.
    static let asciiText = Gen.element(
        of: [
            "a", "Z", "q", "7", "0", ".", "_", " ", "-", "fooBar", "HTTP", "Server", "9.4", "x_", "_y", "..", "__", ",",
        ]
    ).array(of: 0...10).map { $0.compactMap { $0 }.joined() }

    @Test(arguments: ["", ".", "_", "9.", "9._", "a_.b", "A1b2C3", "__init__", "v1.2.3-rc.4", "x.y", "1_2.3"])
    func theASCIIPathSaysWhatTheCharacterPathSaysOnCorners(text: String) {
        #expect(TextNormalizer.asciiIndexed(text) == TextNormalizer.characterIndexed(text))
    }

    @Test func theASCIIPathSaysWhatTheCharacterPathSays() async {
        await propertyCheck(count: 2_000, input: Self.asciiText) { text in
            #expect(
                TextNormalizer.asciiIndexed(text) == TextNormalizer.characterIndexed(text), "\(text.debugDescription)")
        }
    }

    /// Text the quick check finds no compound in is indexed as it is (and, lowercase, queried as it is).
    @Test func textWithoutACompoundIsIndexedAsItIs() async {
        await propertyCheck(count: 2_000, input: Self.asciiText) { text in
            if !TextNormalizer.hasCompound(text) {
                #expect(TextNormalizer.characterIndexed(text) == text, "\(text.debugDescription)")
            }
        }
        for text in ["9.", "1..2", "2.x", "a_ b", "a.b", "x_"] { #expect(!TextNormalizer.hasCompound(text), "\(text)") }
        for text in ["9.4", "a_b", "1_2", "v2", "fooBar"] { #expect(TextNormalizer.hasCompound(text), "\(text)") }
    }

    /// A query's compound words are split from their bytes when they are ASCII (`HTTPServer`, `IDsFor`, `9.4_x`).
    @Test func compoundPartsFromBytesAreThePartsFromCharacters() async {
        await propertyCheck(count: 2_000, input: Self.asciiText) { text in
            #expect(
                TextNormalizer.asciiCompoundParts(text) == TextNormalizer.unicodeCompoundParts(text),
                "\(text.debugDescription)")
        }
        #expect(TextNormalizer.asciiCompoundParts("Zürich") == nil)
        #expect(TextNormalizer.compoundParts("ZürichHauptbahnhof") == ["Zürich", "Hauptbahnhof"])
    }

    /// Lowercase words, spaces and quotes, the query most people type, in any arrangement (quotes unbalanced, spaces
    /// doubled or at either end, words that are operators in capitals), and now and then what takes it off the short
    /// path: a capital, a digit, a field's colon, a `-`, a wildcard, a parenthesis.
    static let lowercaseQuery = Gen.element(
        of: [
            "a", "zq", "and", "or", "not", "near", "title", " ", "  ", "\"", "\"", "  ", "A", "7", ":", "-", "*", "(",
            ")", ".", "..", "_", "2024-05-01", "priority:", "is:", "3", "tracker://s/item/1", "\r\n", "\t", "OR", "é",
        ]
    ).array(of: 0...10).map { $0.compactMap { $0 }.joined() }

    /// A lowercase query, or ASCII without a capital or a compound word (`fix priority:3 is:open`,
    /// `(leak OR tap) created:2024-05`), takes a short path past the Character scan: it must read as the scan reads
    /// it.
    @Test func aLowercaseQueryReadsAsTheCharacterScanReadsIt() async {
        await propertyCheck(count: 2_000, input: Self.lowercaseQuery) { text in
            #expect(
                TextNormalizer.normalizedQuery(text) == TextNormalizer.characterNormalizedQuery(text),
                "\(text.debugDescription)")
        }
        // A capital or a compound word is read by the scan.
        #expect(TextNormalizer.query("fooBar baz") == "(foobar OR (foo bar)) baz")
        #expect(TextNormalizer.query("Fixes v2") == "fixes (v2 OR (v 2))")
        #expect(TextNormalizer.query("fix v2 priority:3") == "fix (v2 OR (v 2)) priority:3")
        #expect(TextNormalizer.query("fix 9.4 is:open") == "fix (9.4 OR (9 4)) is:open")
    }

    /// The quick character classes a query is read with answer what the standard library's do, for every ASCII
    /// character, `"\r\n"` and a few others.
    @Test func quickCharacterClassesAreTheStandardOnes() {
        let characters =
            (0..<128).map { Character(Unicode.Scalar(UInt8($0))) }
            + ["\r\n", "é", "ß", "٣", "Ⅻ", "\u{00A0}", "\u{2028}", "\u{3000}", "e\u{301}", "中", "🙂"]
        for character in characters {
            let name = character.unicodeScalars.map { String($0.value, radix: 16) }
            #expect(character.isLetterOrNumber == (character.isLetter || character.isNumber), "\(name)")
            #expect(character.isLetterQuick == character.isLetter, "\(name)")
            #expect(character.isNumberQuick == character.isNumber, "\(name)")
            #expect(character.isWhitespaceQuick == character.isWhitespace, "\(name)")
        }
    }

    /// `trimmingSpaces()` is Foundation's trim of `.whitespaces`, with or without anything to trim at either end.
    @Test func trimmingSpacesIsFoundationsTrimOfWhitespaces() {
        let ends = ["", " ", "\t", "\n", "\r\n", "\u{00A0}", "\u{3000}", "\u{2028}", "é", "x", "\t \u{2009}"]
        for start in ends {
            for end in ends {
                for middle in ["", "a", " ", "20", "a b", "é\u{301}"] {
                    let text = start + middle + end
                    let name = text.unicodeScalars.map { String($0.value, radix: 16) }
                    #expect(text.trimmingSpaces() == text.trimmingCharacters(in: .whitespaces), "\(name)")
                    #expect(text[...].trimmingSpaces() == text.trimmingCharacters(in: .whitespaces), "\(name)")
                }
            }
        }
    }
}

@Suite struct TitleCollationTests {
    @Test func keysSortAsTheCollationOrderAndStayShortWithoutTieBreaks() {
        let titles = ["apple", "Apple", "apples", "Éclair", "resume", "Resume", "résumé", "Résumé", "zebra"]
        let sorted = titles.sorted { TitleCollation.key($0).lexicographicallyPrecedes(TitleCollation.key($1)) }
        #expect(sorted == titles)
        // A lowercase title without accents needs no tie-break: its key is its text and two zero bytes.
        #expect(TitleCollation.key("apple pie") == Array("apple pie".utf8) + [0, 0])
        #expect(TitleCollation.key(String(repeating: "Long title ", count: 20)).count <= 50)
    }
}

@Suite struct ContainerTitleTermTests {
    @Test func projectTitleTermsAreShortAndMatchAnyCase() {
        #expect(TermPrefix.containerTitleTerm("Garden") == "XPTgarden")
        let long = TermPrefix.containerTitleTerm("Home renovation")
        #expect(long.hasPrefix("XPT#") && long.utf8.count == 15, "\(long)")
        #expect(TermPrefix.containerTitleTerm("HOME RENOVATION") == long)
        #expect(TermPrefix.containerTitleTerm("Home renovations") != long)
        // A short title that starts with # is 11 bytes at most, a hash 12: they never meet.
        #expect(TermPrefix.containerTitleTerm("#abcdefghij").utf8.count == 14)
    }
}
