import Indexer
import SearchIndex
import TrackerStore

/// What went wrong, in the terms of the documented exit codes (docs/exit-codes-and-files.md; success is 0): the CLI exits
/// with it, the server answers with its HTTP status and names it in the problem document.
public enum ErrorCode: Int32, Sendable, CaseIterable {
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
    /// A search across stores (`--stores`) found nothing among the stores that answered, and some failed.
    case partial = 7

    /// The error's code and its sentence, for any error of the layers below.
    public static func classify(_ error: any Error) -> (code: ErrorCode, message: String) {
        switch error {
        case let error as StoreError:
            return (code(for: error.code), error.message)
        case let error as IndexerError:
            if let storeError = error.storeError { return classify(storeError) }
            switch error.code {
            case .querySyntax, .badIndexPath: return (.usage, error.message)
            case .store, .remote: return (.store, error.message)
            default: return (.index, error.message)
            }
        case let error as SearchIndexError:
            return (error.code == .querySyntax ? .usage : .index, error.message)
        default:
            return (.index, "\(error)")
        }
    }

    static func code(for code: StoreError.Code) -> ErrorCode {
        switch code {
        case .invalidInput, .ambiguous, .limitReached: return .usage
        case .notFound: return .notFound
        case .foreignStore: return .foreignStore
        default: return .store
        }
    }

    /// The name tools match on (`query-syntax` and the like are the messages' business): `usage`, `not-found`…
    public var name: String {
        switch self {
        case .noResults: return "no-results"
        case .usage: return "usage"
        case .notFound: return "not-found"
        case .foreignStore: return "foreign-store"
        case .store: return "store"
        case .index: return "index"
        case .partial: return "partial"
        }
    }

    /// The HTTP status the server answers with: 400 for bad input, 404 for a row that is not there (or of another
    /// store), 503 for a store or index that cannot serve now.
    public var httpStatus: Int {
        switch self {
        case .noResults, .notFound, .foreignStore: return 404
        case .usage: return 400
        case .store, .index, .partial: return 503
        }
    }

    /// The reason phrase of ``httpStatus``.
    public var httpReason: String {
        switch httpStatus {
        case 400: return "Bad Request"
        case 404: return "Not Found"
        default: return "Service Unavailable"
        }
    }
}
