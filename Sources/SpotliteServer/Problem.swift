import Foundation
import HTTPTypes
import Hummingbird
import SpotliteJSON

/// An error answer: an RFC 9457 problem document (`application/problem+json`, ``ProblemJSON``) with the CLI's
/// error code.
struct Problem: Error, Sendable {
    var status: HTTPResponse.Status
    var detail: String
    /// The CLI's error code (docs/exit-codes-and-files.md): every error has one.
    var code: ErrorCode
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ detail: String, code: ErrorCode? = nil) {
        self.status = status
        self.detail = detail
        self.code = code ?? Self.code(for: status)
    }

    /// The code of an answer made without one: 404 is not found, another refusal bad usage, a failure the index's.
    static func code(for status: HTTPResponse.Status) -> ErrorCode {
        switch status.code {
        case 404: return .notFound
        case 400..<500: return .usage
        default: return .index
        }
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

    var json: JSON {
        ProblemJSON.object(status: status.code, title: status.reasonPhrase, detail: detail, code: code)
    }

    var response: Response {
        var fields = headers
        fields[.contentType] = "application/problem+json"
        return Response(
            status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: json.text + "\n")))
    }
}
