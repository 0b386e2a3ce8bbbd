import SearchIndex

/// Searches one index many times: for a process that stays up (an app, an editor plugin, a server, a
/// benchmark) rather than the `spotlite search` command's one search per process.
///
/// The index stays open between searches. Each search checks the store's last change against the index's
/// cursor (one small read of each) and the index's stub (one `stat`, which a rebuild's swap changes); only
/// when either has moved does it reopen the index, catch it up, or wait for `spotlite watch`, exactly as
/// ``StoreIndexer/search(_:options:)`` does. Results are the same as that method's for the same index and store.
///
/// ```swift
/// let session = SearchSession(indexer)
/// for text in queries { print(try session.search(text).hits.map(\.uri)) }
/// ```
///
/// Not thread-safe: one per thread (each holds its own Xapian reader).
public final class SearchSession {
    public let indexer: StoreIndexer
    private var reader: SearchReader?
    /// The stub's identity when `reader` was opened: after a rebuild swaps generations, the reader is replaced
    /// even if the store has not changed, so that the old generation's files are not kept open (and their
    /// disk space held) after the rebuild removed them.
    private var readerStub: FileIdentity?

    public init(_ indexer: StoreIndexer) {
        self.indexer = indexer
    }

    public func search(_ text: String, options: SearchOptions = SearchOptions()) throws(IndexerError) -> SearchOutcome {
        // As the one-shot search: a bad query is refused before the index is built or caught up.
        let checked =
            reader == nil
            ? try SearchPipeline.parse(text, options: options, reader: nil, path: indexer.location.root) : nil
        let stub = indexer.location.stubIdentity()
        if stub != readerStub {
            reader = nil
            try indexer.checkLocation()
        }
        let fresh = try indexer.freshReader(reusing: reader, onLargeBacklog: options.onLargeBacklog)
        if fresh.reader !== reader { readerStub = stub }
        reader = fresh.reader
        // Kept for the session's searches: worth tables of the lengths, title-word counts and sort keys.
        fresh.reader.keepsTables = true
        return try indexer.pipeline(fresh, options: options).run(text, checked: checked)
    }
}
