import CXapian

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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

    /// One database over all of `paths` (Xapian's multi-database): searched together, with term statistics over the
    /// whole, so that scores compare across them. `paths` must not be empty.
    public init(paths: [String]) throws(XapianError) {
        var handle: OpaquePointer?
        let copies = paths.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        try copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { buffer throws(XapianError) in
            try check { cxapian_database_open_many(buffer.baseAddress, buffer.count, &handle, $0) }
        }
        self.handle = handle!
    }

    deinit { cxapian_database_free(handle) }

    /// Moves to the latest committed revision; returns whether anything changed.
    @discardableResult
    public func reopen() throws(XapianError) -> Bool {
        var changed = false
        try check { cxapian_database_reopen(handle, &changed, $0) }
        if changed { moves &+= 1 }
        return changed
    }

    /// How many times ``reopen()`` has moved this view to another revision: what was read at one value of it (the
    /// metadata, say) holds until it changes.
    public private(set) var moves = 0

    /// How many tables were made at the asking of this reader's searches with `keptTables`: a table another reader
    /// of the same database has made at the same revision, in this process, is used instead of made again.
    public var tablesMade: Int { Int(clamping: cxapian_database_tables_made(handle)) }

    /// Returns once no table is being made. Tables are made on a thread of their own, off the searches that ask for
    /// them, which go on without one until it is there: tests and benchmarks that need them made wait here.
    public static func waitForTables() { cxapian_tables_wait() }

    /// The number of documents.
    public func documentCount() throws(XapianError) -> Int {
        var count: UInt32 = 0
        try check { cxapian_database_doccount(handle, &count, $0) }
        return Int(count)
    }

    /// Whether any document holds a position in Xapian's position table (an index that packs its positions into
    /// each document's data, ``PositionTerms``, holds only its long documents' there).
    public var hasPositions: Bool {
        get throws(XapianError) {
            var holds = false
            try check { cxapian_database_has_positions(handle, &holds, $0) }
            return holds
        }
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
    /// `part`: which of the databases of ``init(paths:)`` (its position; 0 is the first, and the only one of
    /// ``init(path:)``).
    public func metadata(_ key: String, part: Int = 0) throws(XapianError) -> String {
        var bytes: UnsafeMutablePointer<CChar>?
        var length = 0
        // A negative part is no part: the C side refuses one past the end.
        let position = part >= 0 ? part : Int.max
        try key.withBytes { (pointer, count) throws(XapianError) in
            try check { cxapian_database_get_metadata(handle, position, pointer, count, &bytes, &length, $0) }
        }
        return takeText(bytes, length)
    }

    /// The word of the spelling table nearest `word` (at most `maxEditDistance` edits; of equals, the most
    /// frequent), or nil.
    public func spellingSuggestion(for word: String, maxEditDistance: Int = 2) throws(XapianError) -> String? {
        var bytes: UnsafeMutablePointer<CChar>?
        var length = 0
        try word.withBytes { (pointer, count) throws(XapianError) in
            try check {
                cxapian_database_spelling_suggestion(
                    handle, pointer, count, UInt32(clamping: maxEditDistance), &bytes, &length, $0)
            }
        }
        let suggestion = takeText(bytes, length)
        return suggestion.isEmpty ? nil : suggestion
    }

    /// Every term that starts with `prefix`, with the value in `slot` of the first document it indexes.
    ///
    /// Meant for unique-identifier terms (one document per term). Cost: one walk of the term list plus
    /// one document read per term.
    public func termsWithValue(prefix: String, slot: UInt32) throws(XapianError) -> [(term: String, value: [UInt8])] {
        var rows: [(term: String, value: [UInt8])] = []
        try appendTermsWithValue(prefix: prefix, slot: slot, to: &rows)
        return rows
    }

    /// Like ``termsWithValue(prefix:slot:)``, appending to `rows` as it goes, and starting after the term `after`
    /// when given: a walk that throws (``XapianError/Kind-swift.struct/modified``, say) keeps what it read, and
    /// can go on from its last row after a ``reopen()``.
    public func appendTermsWithValue(
        prefix: String, slot: UInt32, after: String? = nil, to rows: inout [(term: String, value: [UInt8])]
    ) throws(XapianError) {
        final class Sink { var rows: [(term: String, value: [UInt8])] = [] }
        let sink = Sink()
        defer { rows += sink.rows }
        let context = Unmanaged.passUnretained(sink).toOpaque()
        let visitor: cxapian_term_visitor = { context, term, termLength, value, valueLength in
            let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
            let name = String(decoding: UnsafeRawBufferPointer(start: term, count: termLength), as: UTF8.self)
            sink.rows.append((name, Array(UnsafeRawBufferPointer(start: value, count: valueLength))))
            return true
        }
        func visit(after: UnsafePointer<CChar>?, _ afterCount: Int) throws(XapianError) {
            try prefix.withBytes { (pointer, count) throws(XapianError) in
                try check {
                    cxapian_database_visit_terms(handle, pointer, count, after, afterCount, slot, visitor, context, $0)
                }
            }
        }
        try withExtendedLifetime(sink) { () throws(XapianError) in
            if let after {
                try after.withBytes { (pointer, count) throws(XapianError) in try visit(after: pointer, count) }
            } else {
                try visit(after: nil, 0)
            }
        }
    }
}

extension Database {
    /// Checks the integrity of the database at `path`, as `xapian-check` does: every block of every table, and
    /// the tables against each other. Returns nil when it is sound, else what is wrong.
    ///
    /// Reads the whole database, so it takes time in proportion to its size. Meant for a database no writer is changing: a commit
    /// during the check can make it report damage that is not there.
    public static func checkIntegrity(path: String) -> String? {
        var problems = 0
        var report: UnsafeMutablePointer<CChar>?
        var length = 0
        do throws(XapianError) {
            try check { cxapian_database_check(path, &problems, &report, &length, $0) }
        } catch {
            return "\(error.errorClass): \(error.message)"
        }
        let text = takeText(report, length)
        guard problems > 0 else { return nil }
        let lines = text.split(separator: "\n").filter { !$0.contains("checked OK") && !$0.contains("checked okay") }
        return "\(problems) inconsistencies found: " + lines.suffix(3).joined(separator: "; ")
    }
}

extension Database {
    /// "More like this": a query for documents like the one indexed by `uniqueTerm` — its title's words, then the
    /// detail words relevance feedback weighs highest, up to `maxWords`, each as (detail term OR title term) for
    /// `ranking`; the feedback words weigh `feedbackWeight` times a title word. `layout` says which stem terms the
    /// index leaves out. The document itself matches too.
    ///
    /// Throws ``XapianError/Kind-swift.struct/invalidArgument`` if no document has `uniqueTerm`.
    public func similarQuery(
        uniqueTerm: String, maxWords: Int, ranking: FieldedRanking, layout: IndexLayout?, feedbackWeight: Double
    ) throws(XapianError) -> Query {
        var result: OpaquePointer?
        try uniqueTerm.withBytes { (pointer, count) throws(XapianError) in
            try FieldedRanking.withRaw(ranking) { ranking throws(XapianError) in
                try IndexLayout.withRaw(layout) { layout throws(XapianError) in
                    try check {
                        cxapian_query_new_similar(
                            handle, pointer, count, UInt32(clamping: maxWords), ranking, layout, feedbackWeight,
                            &result, $0)
                    }
                }
            }
        }
        return Query(handle: result!)
    }
}
