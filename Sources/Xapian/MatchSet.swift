import CXapian

/// One page of ranked matches for a query.
public struct MatchSet: Sendable {
    /// One match: its document data and BM25 weight.
    public struct Hit: Sendable, Equatable {
        public var data: String
        public var weight: Double
    }

    /// The hits of the requested page, best first (or in the requested sort order).
    public var hits: [Hit]
    /// Xapian's estimate of all matches (exact when ``isExact``).
    public var estimatedMatches: Int
    /// Bounds on all matches.
    public var lowerBound: Int
    public var upperBound: Int
    /// Whether the total is exact (lower bound == upper bound).
    public var isExact: Bool { lowerBound == upperBound }
}

/// How to order matches.
public enum MatchOrder: Sendable, Equatable {
    /// BM25 relevance, best first.
    case relevance
    /// By the bytes in a value slot (ascending unless `descending`), then relevance.
    case value(slot: UInt32, descending: Bool)
}

extension Database {
    /// Runs `query` and returns `limit` hits starting at `offset`.
    ///
    /// Throws ``XapianError/Kind-swift.struct/modified`` if a writer committed over the revision being read;
    /// ``reopen()`` and call again.
    public func match(_ query: Query, offset: Int = 0, limit: Int = 20, order: MatchOrder = .relevance)
        throws(XapianError) -> MatchSet
    {
        var slot: Int32 = -1
        var descending = false
        if case .value(let valueSlot, let isDescending) = order {
            slot = Int32(valueSlot)
            descending = isDescending
        }
        var mset: OpaquePointer?
        try check {
            cxapian_enquire(handle, query.handle, UInt32(clamping: offset), UInt32(clamping: limit), slot, descending,
                            &mset, $0)
        }
        defer { cxapian_mset_free(mset) }
        let size = cxapian_mset_size(mset)
        var hits: [MatchSet.Hit] = []
        hits.reserveCapacity(Int(size))
        for index in 0..<size {
            var weight = 0.0
            var data: UnsafeMutablePointer<CChar>?
            var length = 0
            try check { cxapian_mset_hit(mset, index, &weight, &data, &length, $0) }
            hits.append(.init(data: String(decoding: takeBytes(data, length), as: UTF8.self), weight: weight))
        }
        return MatchSet(
            hits: hits,
            estimatedMatches: Int(cxapian_mset_matches_estimated(mset)),
            lowerBound: Int(cxapian_mset_matches_lower_bound(mset)),
            upperBound: Int(cxapian_mset_matches_upper_bound(mset))
        )
    }
}
