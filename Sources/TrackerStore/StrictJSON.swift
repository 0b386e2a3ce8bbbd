import Foundation

/// A JSON parser for one line of an import file, stricter than Foundation's and with errors people can act on:
/// a key given twice, a lone UTF-16 surrogate (`"\ud800"`), a number out of range (`1e400`) or nesting deeper than
/// ``maximumDepth`` are errors with the byte where they start, not a silent pick or a vague "not valid JSON".
///
/// RFC 8259, with no extensions: no comments, no trailing commas, no NaN. It recurses at most ``maximumDepth``
/// levels, so no input can exhaust the stack.
///
/// The server reads request bodies with it too: `{"spotlight": "yes"}` is a string, not a boolean, and a key given
/// twice is an error, not the last one's value.
public enum StrictJSON {
    /// Arrays and objects nest at most this deep.
    public static let maximumDepth = 32

    /// Why a text is not acceptable JSON, and where (1-based byte offset in the line).
    public struct Failure: Error, Equatable {
        public var message: String
        public var offset: Int
        public var text: String { "\(message) at byte \(offset)" }
    }

    /// Parses `bytes` as one JSON value (with white space around it allowed).
    public static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        var parser = Parser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        if parser.position < bytes.count { throw parser.fail("unexpected text after the JSON value") }
        return value
    }

    struct Parser {
        let bytes: [UInt8]
        var position = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        func fail(_ message: String, at offset: Int? = nil) -> Failure {
            Failure(message: message, offset: (offset ?? position) + 1)
        }

        var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func skipSpace() {
            while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
        }

        mutating func expect(_ literal: String, _ value: JSONValue) throws(Failure) -> JSONValue {
            let utf8 = Array(literal.utf8)
            guard position + utf8.count <= bytes.count, Array(bytes[position..<position + utf8.count]) == utf8 else {
                throw fail("not valid JSON (expected \(literal))")
            }
            position += utf8.count
            return value
        }

        mutating func value(depth: Int) throws(Failure) -> JSONValue {
            guard let byte = peek else { throw fail("the line ends where a value was expected") }
            switch byte {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try expect("true", .bool(true))
            case UInt8(ascii: "f"): return try expect("false", .bool(false))
            case UInt8(ascii: "n"): return try expect("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw fail("not valid JSON (unexpected character)")
            }
        }

        mutating func object(depth: Int) throws(Failure) -> JSONValue {
            if depth > StrictJSON.maximumDepth {
                throw fail("objects and arrays nest deeper than \(StrictJSON.maximumDepth)")
            }
            position += 1
            var members: [String: JSONValue] = [:]
            skipSpace()
            if peek == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard peek == UInt8(ascii: "\"") else { throw fail("not valid JSON (expected a \"key\")") }
                let keyStart = position
                let key = try string()
                if members[key] != nil {
                    throw fail("the key \(JSONLines.quote(key)) appears twice", at: keyStart)
                }
                skipSpace()
                guard peek == UInt8(ascii: ":") else { throw fail("not valid JSON (expected : after a key)") }
                position += 1
                skipSpace()
                members[key] = try value(depth: depth)
                skipSpace()
                switch peek {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "}"):
                    position += 1
                    return .object(members)
                default: throw fail("not valid JSON (expected , or } in an object)")
                }
            }
        }

        mutating func array(depth: Int) throws(Failure) -> JSONValue {
            if depth > StrictJSON.maximumDepth {
                throw fail("objects and arrays nest deeper than \(StrictJSON.maximumDepth)")
            }
            position += 1
            var elements: [JSONValue] = []
            skipSpace()
            if peek == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            while true {
                skipSpace()
                elements.append(try value(depth: depth))
                skipSpace()
                switch peek {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "]"):
                    position += 1
                    return .array(elements)
                default: throw fail("not valid JSON (expected , or ] in an array)")
                }
            }
        }

        mutating func string() throws(Failure) -> String {
            let start = position
            position += 1
            var scalars = String.UnicodeScalarView()
            var run = position  // start of the current run of plain bytes
            func flush(_ end: Int) throws(Failure) {
                guard end > run else { return }
                guard let text = String(validating: bytes[run..<end], as: UTF8.self) else {
                    throw fail("a string is not valid UTF-8", at: run)
                }
                scalars.append(contentsOf: text.unicodeScalars)
            }
            while true {
                guard let byte = peek else { throw fail("a string is not closed (missing \")", at: start) }
                switch byte {
                case UInt8(ascii: "\""):
                    try flush(position)
                    position += 1
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    try flush(position)
                    let escape = position
                    position += 1
                    guard let code = peek else { throw fail("a string is not closed (missing \")", at: start) }
                    position += 1
                    switch code {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{8}")
                    case UInt8(ascii: "f"): scalars.append("\u{C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"): scalars.append(try unicodeEscape(startingAt: escape))
                    default: throw fail("\\\(Character(UnicodeScalar(code))) is not a JSON escape", at: escape)
                    }
                    run = position
                case 0..<0x20:
                    throw fail("a string holds a raw control character (write it as \\u00XX)")
                default:
                    position += 1
                }
            }
        }

        /// After `\u`: four hex digits, or a surrogate pair written as two escapes.
        mutating func unicodeEscape(startingAt escape: Int) throws(Failure) -> Unicode.Scalar {
            let high = try hex4(escape)
            if (0xDC00...0xDFFF).contains(high) {
                throw fail("\\u\(String(high, radix: 16)) is a lone UTF-16 surrogate, not a character", at: escape)
            }
            guard (0xD800...0xDBFF).contains(high) else { return Unicode.Scalar(high)! }
            guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                bytes[position + 1] == UInt8(ascii: "u")
            else {
                throw fail("\\u\(String(high, radix: 16)) is a lone UTF-16 surrogate, not a character", at: escape)
            }
            position += 2
            let low = try hex4(escape)
            guard (0xDC00...0xDFFF).contains(low) else {
                throw fail("\\u\(String(high, radix: 16)) is a lone UTF-16 surrogate, not a character", at: escape)
            }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
        }

        mutating func hex4(_ escape: Int) throws(Failure) -> UInt32 {
            guard position + 4 <= bytes.count else { throw fail("\\u needs four hex digits", at: escape) }
            var value: UInt32 = 0
            for byte in bytes[position..<position + 4] {
                guard let digit = byte.hexDigitValue else { throw fail("\\u needs four hex digits", at: escape) }
                value = value << 4 | UInt32(digit)
            }
            position += 4
            return value
        }

        mutating func number() throws(Failure) -> Double {
            let start = position
            func digits() -> Int {
                let first = position
                while let byte = peek, byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") { position += 1 }
                return position - first
            }
            if peek == UInt8(ascii: "-") { position += 1 }
            let integerStart = position
            guard digits() > 0 else { throw fail("not valid JSON (a number needs digits)", at: start) }
            if bytes[integerStart] == UInt8(ascii: "0") && position - integerStart > 1 {
                throw fail("not valid JSON (a number cannot start with 0)", at: start)
            }
            if peek == UInt8(ascii: ".") {
                position += 1
                guard digits() > 0 else { throw fail("not valid JSON (a number needs digits after .)", at: start) }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                position += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { position += 1 }
                guard digits() > 0 else { throw fail("not valid JSON (a number needs digits after e)", at: start) }
            }
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            guard let value = Double(text), value.isFinite else {
                throw fail("the number \(text.prefix(40)) is out of range", at: start)
            }
            return value
        }
    }
}

/// A JSON value, objects with their members by key.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension UInt8 {
    /// The value of this byte as a hex digit (`0`–`9`, `a`–`f`, `A`–`F`), or nil: JSON's `\u` escapes, a URL's `%XX`.
    public var hexDigitValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
