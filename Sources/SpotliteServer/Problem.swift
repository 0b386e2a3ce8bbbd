import Foundation
import HTTPTypes
import Hummingbird
import SpotliteJSON

/// An error answer: an RFC 9457 problem document (`application/problem+json`) with the CLI's error code.
///
/// ```json
/// {"type":"https://spotlite.invalid/problems/usage","title":"Bad Request","status":400,
///  "detail":"cannot parse the query 'tap AND': …","code":"usage","exit_code":2}
/// ```
struct Problem: Error, Sendable {
    var status: HTTPResponse.Status
    var detail: String
    /// The CLI's error code (docs/exit-codes-and-files.md) where one applies.
    var code: ErrorCode?
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ detail: String, code: ErrorCode? = nil) {
        self.status = status
        self.detail = detail
        self.code = code
    }

    /// The problem for an error of the layers below, by its error code.
    init(_ error: any Error) {
        if let problem = error as? Problem {
            self = problem
            return
        }
        if let error = error as? any HTTPResponseError {
            self.init(error.status, "\(error)")
            return
        }
        let (code, message) = ErrorCode.classify(error)
        self.init(Self.status(code.httpStatus), message, code: code)
    }

    /// 429: a bounded resource is taken (`detail` says which); the client may try again in a second.
    static func tooMany(_ detail: String) -> Problem {
        var problem = Problem(.tooManyRequests, detail)
        problem.headers[.retryAfter] = "1"
        return problem
    }

    /// The status for a code, with its reason phrase.
    static func status(_ code: Int) -> HTTPResponse.Status {
        switch code {
        case 400: return .badRequest
        case 404: return .notFound
        case 413: return .contentTooLarge
        case 429: return .tooManyRequests
        case 503: return .serviceUnavailable
        default: return .internalServerError
        }
    }

    /// The problem types' base: a name under the reserved `.invalid` domain (RFC 2606), as the types are
    /// documented in the OpenAPI file rather than at a web address.
    static let typeBase = "https://spotlite.invalid/problems/"

    var json: JSON {
        let name = code?.name ?? status.reasonPhrase.lowercased().replacingOccurrences(of: " ", with: "-")
        var pairs: [(String, JSON)] = [
            ("type", .string(Self.typeBase + name)),
            ("title", .string(status.reasonPhrase)),
            ("status", .int(status.code)),
            ("detail", .string(detail)),
        ]
        if let code { pairs += [("code", .string(code.name)), ("exit_code", .int(Int(code.rawValue)))] }
        return .object(pairs)
    }

    var response: Response {
        var fields = headers
        fields[.contentType] = "application/problem+json"
        return Response(
            status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: json.text + "\n")))
    }
}
