import Foundation
@testable import Indexer
import SpotliteJSON
import Testing
import TrackerStore

/// The JSON every answer is written as: numbers as `%.6g` prints them, keys in order, strings escaped, and a
/// snippet's marks turned into highlights over multi-byte text.
@Suite struct JSONTextTests {
    @Test func numbersAreWrittenAsPrintfWritesThem() {
        for value in [0, -0.0, 1, -1.5, 0.1, 1e-7, 123_456_789, 1e21, 3.141_592_653_5, 2.5e-300, 9.999_995] {
            #expect(JSON.double(value).text == String(format: "%.6g", value), "\(value)")
        }
        for value in [Double.nan, .infinity, -.infinity] { #expect(JSON.double(value).text == "null") }
    }

    /// A score is written without C's formatting, and must come out as C writes it all the same: every binade the
    /// short path takes and those around it, random significands, values that are exact halfway cases at the sixth
    /// digit (short binary fractions), and the edges where rounding carries into a new decimal exponent.
    @Test func theShortPathWritesNumbersAsPrintfDoes() {
        var state: UInt64 = 0x5EED_2026_1203
        func next() -> UInt64 {  // SplitMix64: the same values on every run
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var values: [Double] = [
            1e-5, 1e-5.nextUp, 1e-5.nextDown, 1e-4, 9.999_995e-5, 9.999_994_9e-5, 0.000_1, 999_999.5, 999_999.4,
            1e6.nextDown, 1e6, 1.015_625, 2.5, 0.5, 100_000, 123_456.5, 99_999.95, 9.999_995, 0.099_999_95, 1, -0.0, 0,
        ]
        for _ in 0..<20_000 {
            let exponent = 1_000 + next() % 50  // 2^-23 ... 2^26: the short path's range and past it both ways
            let bits = (exponent << 52) | (next() & ((1 << 52) - 1))
            values.append(Double(bitPattern: bits))
            values.append(Double(next() % (1 << 24) + 1) / Double(1 << (next() % 25)))
        }
        var differ = 0
        for value in values + values.map { -$0 } {
            let expected = String(format: "%.6g", value)
            let written = JSON.double(value).text
            if written != expected {
                differ += 1
                if differ <= 5 { Issue.record("\(value.bitPattern): \(written), printf \(expected)") }
            }
        }
        #expect(differ == 0)
    }

    @Test func valuesNestInOrder() throws {
        let value = JSON.object([
            ("b", .array([.int(-3), .bool(true), .null, .string("é \"q\"\n")])), ("a", .object([])),
            ("c", .array([])),
        ])
        #expect(value.text == #"{"b":[-3,true,null,"é \"q\"\n"],"a":{},"c":[]}"#)
        let read = try JSONSerialization.jsonObject(with: Data(value.text.utf8)) as? [String: Any]
        #expect((read?["b"] as? [Any])?.last as? String == "é \"q\"\n")
    }

    /// A page of hits is written straight to bytes, a tree through the same writer: both put their commas, keys and
    /// escapes alike, at every depth, and a value written before stands in a tree as it was written.
    @Test func aWriterPutsCommasAndEscapesAsATreeDoes() throws {
        let tree = JSON.object([
            ("a", .array([.object([]), .array([]), .object([("k", .int(1)), ("l\n", .null)]), .double(0.5)])),
            ("b", .object([("c", .array([.string("\u{2028}\"\\"), .bool(false)]))])), ("d", .int(-7)),
        ])
        let written = JSON.writing { out in
            out.object { out in
                out.key("a")
                out.array { out in
                    out.object { _ in }
                    out.array { _ in }
                    out.object {
                        $0.field("k", 1)
                        $0.key(escaping: "l\n")
                        $0.null()
                    }
                    out.double(0.5)
                }
                out.key("b")
                out.object {
                    $0.key("c");
                    $0.array {
                        $0.string("\u{2028}\"\\"); $0.bool(false)
                    }
                }
                out.field("d", -7)
            }
        }
        #expect(written.text == tree.text)
        #expect(tree.text == #"{"a":[{},[],{"k":1,"l\n":null},0.5],"b":{"c":["\u2028\"\\",false]},"d":-7}"#)
        let nested = JSON.array([written, .written(Array("[]".utf8)), .int(2)])
        #expect(nested.text == "[" + tree.text + ",[],2]")
        #expect(nested.line() == Array((nested.text + "\n").utf8))
    }

    /// A URI is written from its parts, each escaped as a string is: an ID a program wrote into the store with a
    /// quote or a control in it stays inside its string.
    @Test func aURIIsWrittenAsItsTextIs() throws {
        for id in ["b0bf35a7-f146-5c16-82d2-5ff1fa3f5159", "a\"b\\c\u{1B}[0m\u{202E}é"] {
            let uri = TrackerURI(storeID: "bbb6530e-8f25-475c-a590-096b19e4ec43", kind: .item, entityID: id)
            let written = JSON.writing { $0.uri(uri) }
            #expect(written.text == JSON.string(uri.description).text)
            let read = try JSONSerialization.jsonObject(with: Data(written.text.utf8), options: .fragmentsAllowed)
            #expect(read as? String == uri.description)
        }
    }

    @Test func snippetMarksBecomeHighlightsOverMultiByteText() {
        let snippet = Snippet(marked: "日本 \u{2}Größe\u{3} and \u{2}😀x\u{3} end \u{2}open")
        #expect(snippet.plain == "日本 Größe and 😀x end open")
        #expect(snippet.highlighted(start: "<b>", end: "</b>") == "日本 <b>Größe</b> and <b>😀x</b> end <b>open")
        #expect(snippet.matches == ["Größe", "😀x", "open"])
        // An end with no start is text's; a second start begins the word again.
        #expect(Snippet(marked: "\u{3}a \u{2}b\u{2}c\u{3} \u{2}\u{3}").matches == ["c", ""])
    }

    /// A hit's snippet and highlights are escaped straight from the marked text: what a client reads back is the
    /// text without its marks and the matched words, whatever the text holds and wherever a mark falls against the
    /// eight bytes the scans read at once.
    @Test func aHitsSnippetIsWrittenAsItsTextAndMatches() throws {
        let project = Project(
            id: "p", title: "P", createdAt: "2026-01-01T00:00:00Z", modifiedAt: "2026-01-01T00:00:00Z")
        let pieces = [
            "plain words", "\"quoted\"", "back\\slash", "tab\there", "line\nnext", "\u{1}ctl", "é日本", "😀",
            "\u{2028}sep", "\u{85}c1", "x",
        ]
        var texts = ["", "\u{2}", "\u{3}", "\u{2}open", "a\u{3}b", "\u{2}\u{3}", "\u{2}a\u{2}b\u{3}c"]
        for length in 1...24 {
            for offset in [0, 3, 7, 8, 9] {
                let words = (0..<length).map { pieces[($0 * 7 + offset) % pieces.count] }
                let marked = words.enumerated().map { $0.offset % 3 == 1 ? "\u{2}\($0.element)\u{3}" : $0.element }
                texts.append(String(repeating: "z", count: offset) + marked.joined(separator: " "))
            }
        }
        for text in texts {
            let snippet = Snippet(marked: text)
            let hit = ResolvedHit(
                uri: TrackerURI(storeID: "s", kind: .project, entityID: "p"), entity: .project(project),
                score: 1, snippet: snippet)
            let read = try JSONSerialization.jsonObject(with: Data(SearchJSON.hit(hit).text.utf8)) as? [String: Any]
            #expect(read?["snippet"] as? String == snippet.highlighted(start: "", end: ""), "\(text.debugDescription)")
            // The words between each start and the end after it, read here with no byte scan.
            var words: [String] = []
            var open: String?
            for character in text.unicodeScalars {
                if character == "\u{2}" {
                    open = ""
                } else if character == "\u{3}" {
                    if let word = open { words.append(word) }
                    open = nil
                } else if open != nil {
                    open?.unicodeScalars.append(character)
                }
            }
            if let word = open { words.append(word) }
            #expect(read?["highlights"] as? [String] == words, "\(text.debugDescription)")
        }
    }
}
