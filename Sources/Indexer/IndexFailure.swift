import SearchIndex
import TrackerStore

/// What a failure to write the index calls for: a retry, a rebuild, or patience with a full disk. One place that
/// knows, for the watcher and for a search's catch-up.
enum IndexFailure {
    /// Whether a failure is a full disk or quota (the index's, or the store's when pruning): nothing is damaged,
    /// and a rebuild would only need more room.
    static func isOutOfSpace(_ error: any Error) -> Bool {
        switch error {
        case let error as SearchIndexError: return error.code == .noSpace
        case let error as IndexerError:
            if let indexError = error.indexError { return isOutOfSpace(indexError) }
            if let storeError = error.storeError { return isOutOfSpace(storeError) }
            return SearchIndexError.isOutOfSpace(error.message)
        case let error as StoreError:
            return error.message.contains("database or disk is full") || SearchIndexError.isOutOfSpace(error.message)
        default:
            return SearchIndexError.isOutOfSpace("\(error)")
        }
    }

    /// Why a failure calls for a rebuild rather than a retry, if it does.
    static func rebuildReason(for error: any Error) -> String? {
        switch error {
        case let error as StoreError where error.code == .changeLogGap:
            return error.message
        case let error as SearchIndexError where error.code == .corrupt || error.code == .unavailable:
            return "the index is damaged (\(error.message))"
        case let error as IndexerError:
            if let indexError = error.indexError { return rebuildReason(for: indexError) }
            if let storeError = error.storeError { return rebuildReason(for: storeError) }
            return nil
        default:
            return nil
        }
    }

    /// Consecutive failures of the index itself (not the store) after which it is rebuilt rather than retried.
    static let failuresBeforeRebuild = 3

    /// Whether a failure is the index's own (not the store's, a lock's or the disk's).
    static func isIndexError(_ error: any Error) -> Bool {
        switch error {
        case let error as SearchIndexError: return error.code != .locked && error.code != .noSpace
        case let error as IndexerError: return error.indexError.map(isIndexError) ?? false
        default: return false
        }
    }

    /// The failure in one line.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as IndexerError: return error.message
        case let error as StoreError: return error.message
        case let error as SearchIndexError: return error.message
        default: return "\(error)"
        }
    }
}
