import Foundation

/// The parameters of a URL's query, decoded as HTML forms and browsers encode them
/// (`application/x-www-form-urlencoded`): `+` is a space, `%XX` a byte of UTF-8, a name without `=` has the value
/// "". The first of a repeated name counts.
struct FormQuery: Sendable {
    private var values: [String: String] = [:]

    /// Decodes `query` (the text after `?`, nil for none); a malformed `%` escape or bytes that are not UTF-8 are a
    /// 400 naming the parameter.
    init(_ query: String?) throws {
        guard let query, !query.isEmpty else { return }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try Self.decode(parts[0], parameter: String(parts[0]))
            let value = parts.count > 1 ? try Self.decode(parts[1], parameter: name) : ""
            if values[name] == nil { values[name] = value }
        }
    }

    subscript(name: String) -> String? { values[name] }

    private static func decode(_ text: Substring, parameter: String) throws -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        guard let decoded = spaced.removingPercentEncoding else {
            throw Problem(
                .badRequest,
                "the parameter '\(parameter.prefix(40))' is not URL-encoded UTF-8; encode it with "
                    + "encodeURIComponent or curl --data-urlencode", code: .usage)
        }
        return decoded
    }
}
