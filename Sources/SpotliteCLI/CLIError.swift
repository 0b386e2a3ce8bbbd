import ArgumentParser
import Indexer
import SearchIndex
import TrackerStore

/// The documented exit codes (README "Exit codes").
public enum ExitStatus: Int32, Sendable {
    /// Success; `search` found hits, `verify` found no difference, `resolve` found every URI.
    case success = 0
    /// `search` found nothing; `verify` found differences.
    case noResults = 1
    /// Bad usage or bad input: arguments, a malformed URI, a query syntax error, a bad import file.
    case usage = 2
    /// A URI or project name refers to nothing in the store (deleted, or never there).
    case notFound = 3
    /// A URI of another store.
    case foreignStore = 4
    /// The store is missing, not a Spotlite store, or stayed locked.
    case store = 5
    /// The index is locked by another writer beyond the wait, or cannot be read or written.
    case index = 6
}

/// An error for people: one line on stderr and an exit status.
struct CLIError: Error, CustomStringConvertible {
    var message: String
    var status: ExitStatus

    init(_ message: String, status: ExitStatus) {
        self.message = message
        self.status = status
    }

    var description: String { message }

    /// Maps any error from the layers below to a line and an exit status.
    static func from(_ error: any Error) -> CLIError {
        switch error {
        case let error as CLIError:
            return error
        case let error as StoreError:
            return CLIError(error.message, status: status(for: error.code))
        case let error as IndexerError:
            if let storeError = error.storeError { return from(storeError) }
            switch error.code {
            case .querySyntax, .badIndexPath: return CLIError(error.message, status: .usage)
            case .store: return CLIError(error.message, status: .store)
            default: return CLIError(error.message, status: .index)
            }
        case let error as SearchIndexError:
            return CLIError(error.message, status: error.code == .querySyntax ? .usage : .index)
        default:
            return CLIError("\(error)", status: .index)
        }
    }

    static func status(for code: StoreError.Code) -> ExitStatus {
        switch code {
        case .invalidInput, .ambiguous: return .usage
        case .notFound: return .notFound
        case .foreignStore: return .foreignStore
        default: return .store
        }
    }
}
