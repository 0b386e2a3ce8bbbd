import CXapian

/// A read-only view of a Xapian database at one committed revision.
///
/// Call ``reopen()`` to move to the latest revision; a search that throws ``XapianError/Kind-swift.struct/modified``
/// should reopen and retry. Not thread-safe: one per thread.
public final class Database {
    let handle: OpaquePointer

    /// Opens a database directory, a stub database file, or a directory holding a `XAPIANDB` stub.
    public init(path: String) throws(XapianError) {
        var handle: OpaquePointer?
        try check { cxapian_database_open(path, &handle, $0) }
        self.handle = handle!
    }

    deinit { cxapian_database_free(handle) }

    /// Moves to the latest committed revision; returns whether anything changed.
    @discardableResult
    public func reopen() throws(XapianError) -> Bool {
        var changed = false
        try check { cxapian_database_reopen(handle, &changed, $0) }
        return changed
    }

    /// The number of documents.
    public func documentCount() throws(XapianError) -> Int {
        var count: UInt32 = 0
        try check { cxapian_database_doccount(handle, &count, $0) }
        return Int(count)
    }

    /// Whether any document is indexed by `term`.
    public func termExists(_ term: String) throws(XapianError) -> Bool {
        var exists = false
        try term.withBytes { (pointer, count) throws(XapianError) in
            try check { cxapian_database_term_exists(handle, pointer, count, &exists, $0) }
        }
        return exists
    }

    /// The metadata value for `key`, or `""` when the key is absent.
    public func metadata(_ key: String) throws(XapianError) -> String {
        var bytes: UnsafeMutablePointer<CChar>?
        var length = 0
        try key.withBytes { (pointer, count) throws(XapianError) in
            try check { cxapian_database_get_metadata(handle, pointer, count, &bytes, &length, $0) }
        }
        return String(decoding: takeBytes(bytes, length), as: UTF8.self)
    }

    /// Every term that starts with `prefix`, with the value in `slot` of the first document it indexes.
    ///
    /// Meant for unique-identifier terms (one document per term). Cost: one walk of the term list plus
    /// one document read per term.
    public func termsWithValue(prefix: String, slot: UInt32) throws(XapianError) -> [(term: String, value: [UInt8])] {
        final class Sink { var rows: [(term: String, value: [UInt8])] = [] }
        let sink = Sink()
        let context = Unmanaged.passUnretained(sink).toOpaque()
        try prefix.withBytes { (pointer, count) throws(XapianError) in
            try check {
                cxapian_database_visit_terms(handle, pointer, count, slot, { context, term, termLength, value, valueLength in
                    let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
                    let name = String(decoding: UnsafeRawBufferPointer(start: term, count: termLength), as: UTF8.self)
                    let bytes = Array(UnsafeRawBufferPointer(start: value, count: valueLength))
                    sink.rows.append((name, bytes))
                    return true
                }, context, $0)
            }
        }
        return withExtendedLifetime(sink) { sink.rows }
    }
}
