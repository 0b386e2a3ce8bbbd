import Foundation
import Indexer
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
                        $0.key("l\n")
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
}
