import TrackerStore

/// The parameters of a URL's query, decoded as HTML forms and browsers encode them
/// (`application/x-www-form-urlencoded`): `+` is a space, `%XX` a byte of UTF-8, a name without `=` has the value
/// "". The first of a repeated name counts.
///
/// Decoded a byte at a time: every search request is parsed here, and Foundation's `removingPercentEncoding` and
/// `replacingOccurrences` (through CFString) cost more than the rest of the request's parsing together.
struct FormQuery: Sendable {
    private var values: [String: String] = [:]

    /// Decodes `query` (the text after `?`, nil for none); a malformed `%` escape or bytes that are not UTF-8 are a
    /// 400 naming the parameter.
    init(_ query: String?) throws {
        guard let query, !query.isEmpty else { return }
        for pair in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = try Self.decode(parts[0]) { String(decoding: parts[0], as: UTF8.self) }
            let value = parts.count > 1 ? try Self.decode(parts[1]) { name } : ""
            if values[name] == nil { values[name] = value }
        }
    }

    subscript(name: String) -> String? { values[name] }

    /// `text` with `+` read as a space and each `%XX` as the byte it names; a 400 naming `parameter` where an escape
    /// is not two hex digits or the bytes are not UTF-8.
    private static func decode(_ text: Substring.UTF8View, parameter: () -> String) throws -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count)
        var index = text.startIndex
        while index < text.endIndex {
            let byte = text[index]
            text.formIndex(after: &index)
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard index < text.endIndex, let high = text[index].hexDigitValue else { throw malformed(parameter()) }
                text.formIndex(after: &index)
                guard index < text.endIndex, let low = text[index].hexDigitValue else { throw malformed(parameter()) }
                text.formIndex(after: &index)
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else { throw malformed(parameter()) }
        return decoded
    }

    private static func malformed(_ parameter: String) -> Problem {
        Problem(
            .badRequest,
            "the parameter '\(parameter.prefix(40))' is not URL-encoded UTF-8; encode it with "
                + "encodeURIComponent or curl --data-urlencode", code: .usage)
    }
}
