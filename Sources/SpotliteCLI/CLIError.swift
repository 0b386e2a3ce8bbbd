import ArgumentParser
import Indexer
import SpotliteJSON

/// An error for people: one line on stderr and an exit status.
struct CLIError: Error, CustomStringConvertible {
    var message: String
    var status: ErrorCode

    init(_ message: String, status: ErrorCode) {
        self.message = message
        self.status = status
    }

    var description: String { message }

    /// Maps any error from the layers below to a line and an exit status.
    static func from(_ error: any Error) -> CLIError {
        if let error = error as? CLIError { return error }
        let (code, message) = ErrorCode.classify(error)
        return CLIError(message, status: code)
    }
}
