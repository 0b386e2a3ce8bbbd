import CXapian

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A Xapian database open for writing; holds the database's write lock until freed or closed.
///
/// Only one writer can hold a database at a time: a second open waits up to 2 s for the lock (a database just closed
/// can stay locked while a forked child shares it), then fails with ``XapianError/Kind-swift.struct/lock``. Changes become visible to readers on ``commit()``; dropping the
/// object without committing discards them (and releases the lock). Not thread-safe.
public final class WritableDatabase {
    let handle: OpaquePointer

    /// How to open.
    public enum OpenMode: Sendable {
        /// Open an existing database, or create one.
        case createOrOpen
        /// Create a fresh database, replacing any at the path.
        case createOrOverwrite
        /// Open an existing database only.
        case open
    }

    /// Opens (or creates) the glass database at `path`.
    ///
    /// - Parameters:
    ///   - durable: `false` skips fsync on commit: only for a fresh build that is swapped in when complete.
    ///
    /// Xapian flushes every 10,000 changed documents (`XAPIAN_FLUSH_THRESHOLD` in the environment changes it;
    /// other thresholds built slower: docs/decisions/0011-flush-threshold.md).
    public init(path: String, mode: OpenMode = .createOrOpen, durable: Bool = true) throws(XapianError) {
        var flags: Int32
        switch mode {
        case .createOrOpen: flags = Int32(CXAPIAN_DB_CREATE_OR_OPEN)
        case .createOrOverwrite: flags = Int32(CXAPIAN_DB_CREATE_OR_OVERWRITE)
        case .open: flags = Int32(CXAPIAN_DB_OPEN)
        }
        if !durable { flags |= Int32(CXAPIAN_DB_NO_SYNC) }
        var handle: OpaquePointer?
        try check { cxapian_writable_database_open(path, flags, &handle, $0) }
        self.handle = handle!
    }

    deinit { cxapian_writable_database_free(handle) }

    /// Adds `document`, or replaces every document indexed by `uniqueTerm` with it.
    public func replaceDocument(uniqueTerm: String, with document: Document) throws(XapianError) {
        try uniqueTerm.withBytes { (pointer, count) throws(XapianError) in
            try check { cxapian_writable_database_replace_document(handle, pointer, count, document.handle, $0) }
        }
    }

    /// Adds `document` under a new id, without looking for a unique term: for a fresh database only.
    public func addDocument(_ document: Document) throws(XapianError) {
        try check { cxapian_writable_database_add_document(handle, document.handle, $0) }
    }

    /// Adds to the spelling table each of `words` it lacks that a title holds (a term `titlePrefix` + word) or that
    /// at least `minimumFrequency` documents hold, with the number of documents holding it (see `cxapian.h`).
    /// Uncommitted changes count. Words hold no newline.
    public func addSpellings(_ words: some Sequence<String>, titlePrefix: String, minimumFrequency: UInt32)
        throws(XapianError)
    {
        let text = words.joined(separator: "\n")
        try text.withBytes { (pointer, count) throws(XapianError) in
            try check {
                cxapian_writable_database_add_spellings(handle, pointer, count, titlePrefix, minimumFrequency, $0)
            }
        }
    }

    /// The spelling data of a database built in the shards at `paths` (closed, committed): each word of their text
    /// that a title holds or at least `minimumFrequency` documents of all of them hold, added to the first shard
    /// and committed, so that merging the shards carries it (see `cxapian.h`).
    public static func addSpellings(fromShards paths: [String], titlePrefix: String, minimumFrequency: UInt32)
        throws(XapianError)
    {
        var pointers = paths.map { strdup($0) }
        defer { for pointer in pointers { free(pointer) } }
        try pointers.withUnsafeMutableBufferPointer { buffer throws(XapianError) in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: UnsafePointer<CChar>?.self)
            try check { cxapian_add_spellings_from_shards(base, buffer.count, titlePrefix, minimumFrequency, $0) }
        }
    }

    /// Deletes every document indexed by `term`: one document for a unique id, a whole domain for a domain term.
    public func deleteDocuments(term: String) throws(XapianError) {
        try term.withBytes { (pointer, count) throws(XapianError) in
            try check { cxapian_writable_database_delete_documents(handle, pointer, count, $0) }
        }
    }

    /// Sets a metadata entry; it is committed with the documents of the same commit.
    public func setMetadata(_ key: String, _ value: String) throws(XapianError) {
        try key.withBytes { (keyPointer, keyCount) throws(XapianError) in
            try value.withBytes { (valuePointer, valueCount) throws(XapianError) in
                try check {
                    cxapian_writable_database_set_metadata(handle, keyPointer, keyCount, valuePointer, valueCount, $0)
                }
            }
        }
    }

    /// The metadata value for `key` as this writer sees it (including uncommitted changes), or `""`.
    public func metadata(_ key: String) throws(XapianError) -> String {
        var bytes: UnsafeMutablePointer<CChar>?
        var length = 0
        try key.withBytes { (pointer, count) throws(XapianError) in
            try check { cxapian_writable_database_get_metadata(handle, pointer, count, &bytes, &length, $0) }
        }
        return takeText(bytes, length)
    }

    /// The number of documents, including uncommitted changes.
    public func documentCount() throws(XapianError) -> Int {
        var count: UInt32 = 0
        try check { cxapian_writable_database_doccount(handle, &count, $0) }
        return Int(count)
    }

    /// Makes every change since the last commit visible and durable, atomically.
    public func commit() throws(XapianError) {
        try check { cxapian_writable_database_commit(handle, $0) }
    }

    /// Starts a transaction: its changes are committed together by ``commitTransaction()``.
    public func beginTransaction(flushed: Bool = true) throws(XapianError) {
        try check { cxapian_writable_database_begin_transaction(handle, flushed, $0) }
    }

    /// Commits the open transaction.
    public func commitTransaction() throws(XapianError) {
        try check { cxapian_writable_database_commit_transaction(handle, $0) }
    }

    /// Discards the open transaction's changes.
    public func cancelTransaction() throws(XapianError) {
        try check { cxapian_writable_database_cancel_transaction(handle, $0) }
    }

    /// Closes the database and releases the lock; uncommitted changes are discarded.
    public func close() throws(XapianError) {
        try check { cxapian_writable_database_close(handle, $0) }
    }

    /// Merges the databases at `sources` into one new, compacted database at `destination` (Xapian's
    /// `Database::compact`): documents are renumbered in the order given, spelling frequencies are summed, and a
    /// metadata key takes its value from the first source that has it, but `positionsKey`, which takes the largest
    /// of the sources' next numbers (``PositionTerms``: each shard of a build wrote the one it last knew).
    public static func compact(from sources: [String], to destination: String, positionsKey: String? = nil)
        throws(XapianError)
    {
        var pointers = sources.map { strdup($0) }
        defer { for pointer in pointers { free(pointer) } }
        try pointers.withUnsafeMutableBufferPointer { buffer throws(XapianError) in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: UnsafePointer<CChar>?.self)
            try (positionsKey ?? "").withBytes { (key, count) throws(XapianError) in
                try check {
                    cxapian_compact(base, buffer.count, destination, positionsKey == nil ? nil : key, count, $0)
                }
            }
        }
    }
}

/// The Xapian library's version, e.g. `1.4.22`.
public var xapianVersion: String { String(cString: cxapian_version()) }
