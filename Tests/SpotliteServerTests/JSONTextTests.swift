import Foundation
import Indexer
import SpotliteJSON
import Testing

/// The JSON every answer is written as: numbers as `%.6g` prints them, keys in order, strings escaped, and a
/// snippet's marks turned into highlights over multi-byte text.
@Suite struct JSONTextTests {
    @Test func numbersAreWrittenAsPrintfWritesThem() {
        for value in [0, -0.0, 1, -1.5, 0.1, 1e-7, 123_456_789, 1e21, 3.141_592_653_5, 2.5e-300, 9.999_995] {
            #expect(JSON.double(value).text == String(format: "%.6g", value), "\(value)")
        }
        for value in [Double.nan, .infinity, -.infinity] { #expect(JSON.double(value).text == "null") }
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

    @Test func snippetMarksBecomeHighlightsOverMultiByteText() {
        let snippet = Snippet(marked: "日本 \u{2}Größe\u{3} and \u{2}😀x\u{3} end \u{2}open")
        #expect(snippet.plain == "日本 Größe and 😀x end open")
        #expect(snippet.highlighted(start: "<b>", end: "</b>") == "日本 <b>Größe</b> and <b>😀x</b> end <b>open")
        #expect(snippet.matches == ["Größe", "😀x", "open"])
        // An end with no start is text's; a second start begins the word again.
        #expect(Snippet(marked: "\u{3}a \u{2}b\u{2}c\u{3} \u{2}\u{3}").matches == ["c", ""])
    }
}
