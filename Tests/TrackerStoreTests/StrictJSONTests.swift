import Foundation
import Testing

@testable import TrackerStore

/// The import's JSON parser: RFC 8259 and nothing else, with errors that say where.
@Suite struct StrictJSONTests {
    func parse(_ text: String) throws(StrictJSON.Failure) -> JSONValue { try StrictJSON.parse(Array(text.utf8)) }

    @Test(arguments: [
        (#"{"a":"x"}"#, JSONValue.object(["a": .string("x")])),
        (
            #" {"a" : [1, 2, {"b": null}] , "c": true} "#,
            .object(["a": .array([.number(1), .number(2), .object(["b": .null])]), "c": .bool(true)])
        ),
        (#"{"e":"\u00e9\ud83d\ude00\n\t\"\\\/"}"#, .object(["e": .string("é😀\n\t\"\\/")])),
        (#"-0.5e-3"#, .number(-0.0005)),
        (#"[]"#, .array([])),
    ])
    func validJSONParses(text: String, expected: JSONValue) throws {
        #expect(try parse(text) == expected)
    }

    @Test(arguments: [
        (#"{"a":1,"a":2}"#, #"the key "a" appears twice at byte 8"#),
        (#"{"a":"\ud800"}"#, #"\ud800 is a lone UTF-16 surrogate, not a character at byte 7"#),
        (#"{"a":"\ud800\u0041"}"#, "lone UTF-16 surrogate"),
        (#"{"a":1e400}"#, "the number 1e400 is out of range at byte 6"),
        (#"{"a":01}"#, "cannot start with 0"),
        (#"{"a":1,}"#, "expected a \"key\""),
        (#"{"a":NaN}"#, "unexpected character"),
        (#"{"a":"x"} x"#, "unexpected text after the JSON value at byte 11"),
        (#"{"a":"\x"}"#, #"\x is not a JSON escape at byte 7"#),
        (#"{"a":"x"#, "a string is not closed"),
        (String(repeating: "[", count: 100_000), "nest deeper than 32"),
    ])
    func invalidJSONIsNamedWithItsPlace(text: String, message: String) {
        #expect {
            _ = try parse(text)
        } throws: { error in
            guard let failure = error as? StrictJSON.Failure else { return false }
            return failure.text.contains(message)
        }
    }
}
