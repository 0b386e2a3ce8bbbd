import SearchIndex
import TrackerStore

/// An error from the indexer: a code, a sentence for people, and the store or index error behind it.
public struct IndexerError: Error, CustomStringConvertible, Sendable {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }

        /// Another process holds the index's write lock beyond the wait.
        public static let locked = Code("locked")
        /// The index could not be read or written.
        public static let index = Code("index")
        /// A query was not understood.
        public static let querySyntax = Code("query syntax")
        /// The store failed (see the cause).
        public static let store = Code("store")
        /// The index path is no place for this store's index: a file, a directory holding other things, the
        /// store's own directory, or another store's index. Nothing there was touched.
        public static let badIndexPath = Code("bad index path")
        /// A remote store's host did not answer in time, refused, or answered what Spotlite cannot read.
        public static let remote = Code("remote")

        public var description: String { name }
    }

    public var code: Code
    public var message: String
    public var storeError: StoreError?
    public var indexError: SearchIndexError?

    public init(_ code: Code, _ message: String, storeError: StoreError? = nil, indexError: SearchIndexError? = nil) {
        self.code = code
        self.message = message
        self.storeError = storeError
        self.indexError = indexError
    }

    public var description: String { message }

    init(_ error: StoreError) {
        self.init(.store, error.message, storeError: error)
    }

    init(_ error: SearchIndexError, path: String) {
        switch error.code {
        case .querySyntax:
            self.init(.querySyntax, error.message, indexError: error)
        case .locked:
            self.init(.locked, "the index \(path) is locked by another writer: \(error.message)", indexError: error)
        case .corrupt:
            self.init(
                .index, "the index \(path) is damaged (\(error.message)); rebuild it with `spotlite index --rebuild`",
                indexError: error)
        default:
            self.init(.index, "index \(path): \(error.message)", indexError: error)
        }
    }
}

/// Runs store and index calls, converting their errors into ``IndexerError``.
func indexer<T>(_ path: String, _ body: () throws -> T) throws(IndexerError) -> T {
    do {
        return try body()
    } catch let error as IndexerError {
        throw error
    } catch let error as StoreError {
        throw IndexerError(error)
    } catch let error as SearchIndexError {
        throw IndexerError(error, path: path)
    } catch {
        throw IndexerError(.index, "\(path): \(error)")
    }
}
