import CXapian

/// A Xapian query tree. Immutable; combine with ``combined(_:with:)``.
public final class Query: CustomStringConvertible {
    let handle: OpaquePointer

    init(handle: OpaquePointer) { self.handle = handle }

    deinit { cxapian_query_free(handle) }

    /// How two queries combine.
    public enum Operator: Sendable {
        /// Both must match; weights add.
        case and
        /// Either may match; weights add.
        case or
        /// The left must match and the right must not.
        case andNot
        /// The left must match and the right must too, adding no weight (a filter).
        case filter
        /// The left must match; the right adds weight where it matches too (a bonus).
        case andMaybe
    }

    /// A query for one term.
    public convenience init(term: String) {
        let handle = term.utf8CString.withUnsafeBufferPointer {
            cxapian_query_new_term($0.baseAddress, $0.count - 1)
        }
        guard let handle else { fatalError("out of memory allocating a Xapian query") }
        self.init(handle: handle)
    }

    /// A query for the documents indexed by any of `terms` (none for no terms). Terms hold no NUL byte.
    public convenience init(anyOf terms: [String]) {
        var buffer: [CChar] = []
        for term in terms {
            buffer += term.utf8CString  // each with its terminating NUL
        }
        let handle = buffer.withUnsafeBufferPointer { cxapian_query_new_any_term($0.baseAddress, $0.count) }
        guard let handle else { fatalError("out of memory allocating a Xapian query") }
        self.init(handle: handle)
    }

    /// A query that matches every document.
    public static func matchAll() -> Query {
        guard let handle = cxapian_query_new_match_all() else { fatalError("out of memory allocating a Xapian query") }
        return Query(handle: handle)
    }

    /// A query that matches nothing.
    public static func matchNothing() -> Query {
        guard let handle = cxapian_query_new_match_nothing() else {
            fatalError("out of memory allocating a Xapian query")
        }
        return Query(handle: handle)
    }

    /// The boolean term `term`, which exactly the documents holding `value` in `slot` hold (a status, a priority: the
    /// index writes both from one field). It matches as the term does; a search with kept tables checks a candidate
    /// in its table of the slot, one look-up where the term's list would be read up to the candidate.
    public static func slotTerm(_ term: String, slot: UInt32, value: [UInt8]) throws(XapianError) -> Query {
        var result: OpaquePointer?
        let termBytes = Array(term.utf8).map { CChar(bitPattern: $0) }
        let valueBytes = value.map { CChar(bitPattern: $0) }
        try check { error in
            termBytes.withUnsafeBufferPointer { termPointer in
                valueBytes.withUnsafeBufferPointer { valuePointer in
                    cxapian_query_new_slot_term(
                        termPointer.baseAddress, termPointer.count, slot, valuePointer.baseAddress, valuePointer.count,
                        &result, error)
                }
            }
        }
        guard let result else { fatalError("out of memory allocating a Xapian query") }
        return Query(handle: result)
    }

    /// Documents whose value in `slot` lies between `lower` and `upper` (inclusive; nil = open).
    public static func valueRange(slot: UInt32, lower: [UInt8]?, upper: [UInt8]?) throws(XapianError) -> Query {
        var result: OpaquePointer?
        let lowerBytes = lower.map { $0.map { CChar(bitPattern: $0) } }
        let upperBytes = upper.map { $0.map { CChar(bitPattern: $0) } }
        try check { error in
            withOptionalBuffer(lowerBytes) { lowerPointer, lowerCount in
                withOptionalBuffer(upperBytes) { upperPointer, upperCount in
                    cxapian_query_new_value_range(
                        slot, lowerPointer, lowerCount, upperPointer, upperCount, &result, error)
                }
            }
        }
        return Query(handle: result!)
    }

    /// `self op other`.
    public func combined(_ op: Operator, with other: Query) throws(XapianError) -> Query {
        let cop: cxapian_query_op
        switch op {
        case .and: cop = CXAPIAN_OP_AND
        case .or: cop = CXAPIAN_OP_OR
        case .andNot: cop = CXAPIAN_OP_AND_NOT
        case .filter: cop = CXAPIAN_OP_FILTER
        case .andMaybe: cop = CXAPIAN_OP_AND_MAYBE
        }
        var result: OpaquePointer?
        try check { cxapian_query_combine(cop, handle, other.handle, &result, $0) }
        return Query(handle: result!)
    }

    /// This query with the leaves of each compound word of `compounds` (the word, then its parts, lowercased, as
    /// the query text wrote them out) grouped so that the word counts once in a ranking: at the weight of whichever
    /// of its forms a document holds best. Terms are made as a parser stemming `stemmingLanguage` words makes them;
    /// title terms start with `titlePrefix`. Compounds not found as written are left as they are.
    public func groupingCompounds(_ compounds: [[String]], stemmingLanguage: String, titlePrefix: String)
        throws(XapianError) -> Query
    {
        let lines = compounds.filter { $0.count > 1 }.map { $0.joined(separator: " ") }
        guard !lines.isEmpty else { return self }
        let text = lines.joined(separator: "\n")
        var result: OpaquePointer?
        try check { error in
            text.utf8CString.withUnsafeBufferPointer { buffer in
                cxapian_query_group_compounds(
                    handle, buffer.baseAddress, buffer.count - 1, stemmingLanguage, titlePrefix, &result, error)
            }
        }
        return Query(handle: result!)
    }

    /// Whether the query is empty (parsed from a string with no terms).
    public var isEmpty: Bool { cxapian_query_is_empty(handle) }

    /// Xapian's description, e.g. `Query((Zleak@1 AND Ztap@2))`.
    public var description: String {
        guard let text = cxapian_query_description(handle) else { return "Query(?)" }
        defer { cxapian_free(text) }
        return String(cString: text)
    }
}

/// Calls body with a pointer to the bytes (non-nil even when empty), or nil for nil.
private func withOptionalBuffer<R>(_ bytes: [CChar]?, _ body: (UnsafePointer<CChar>?, Int) -> R) -> R {
    guard let bytes else { return body(nil, 0) }
    let padded = bytes + [0]
    return padded.withUnsafeBufferPointer { body($0.baseAddress, bytes.count) }
}
