/// An error as JSON: an RFC 9457 problem document with the CLI's error code. The body of every HTTP error, and what
/// `resolve --format json|jsonl` prints for a URI that does not resolve, so a tool reads the same either way.
///
/// ```json
/// {"type":"https://spotlite.invalid/problems/usage","title":"Bad Request","status":400,
///  "detail":"cannot parse the query 'tap AND': …","code":"usage","exit_code":2}
/// ```
public enum ProblemJSON {
    /// The problem types' base: a name under the reserved `.invalid` domain (RFC 2606), as the types are
    /// documented in the OpenAPI file rather than at a web address.
    public static let typeBase = "https://spotlite.invalid/problems/"

    /// The document for an HTTP status (`title` its reason phrase) and the CLI's code, which every error has.
    public static func object(status: Int, title: String, detail: String, code: ErrorCode) -> JSON {
        .object([
            ("type", .string(typeBase + code.name)),
            ("title", .string(title)),
            ("status", .int(status)),
            ("detail", .string(detail)),
            ("code", .string(code.name)),
            ("exit_code", .int(Int(code.rawValue))),
        ])
    }

    /// The document the server answers `code` with.
    public static func object(_ code: ErrorCode, detail: String) -> JSON {
        object(status: code.httpStatus, title: code.httpReason, detail: detail, code: code)
    }

    /// `{"uri": …, "error": {problem}}`: one input of a resolve that did not resolve, in its place among the rows.
    public static func failedURI(_ text: String, _ code: ErrorCode, detail: String) -> JSON {
        .object([("uri", .string(text)), ("error", object(code, detail: detail))])
    }
}
