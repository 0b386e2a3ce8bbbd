import Foundation
import SearchIndex
import TrackerStore

extension StoreIndexer {
    /// Marks the hits the store already links with `item` as duplicates: a `duplicate-of` either way, or both
    /// `duplicate-of` one item.
    static func markKnownDuplicates(of item: Item, in storeID: String, _ hits: inout [ResolvedHit]) {
        func originals(_ links: [ItemLink], _ store: String) -> Set<TrackerURI> {
            Set(links.filter { $0.kind == .duplicateOf }.map { $0.target(in: store) })
        }
        let me = TrackerURI(storeID: storeID, kind: .item, entityID: item.id)
        let mine = originals(item.tracking.links, storeID)
        for index in hits.indices {
            guard case .item(let hit, _) = hits[index].entity else { continue }
            let theirs = originals(hit.tracking.links, hits[index].uri.storeID)
            hits[index].isKnownDuplicate =
                mine.contains(hits[index].uri) || theirs.contains(me) || !mine.isDisjoint(with: theirs)
        }
    }

    /// How many times the page's end `similar` reads when ranking by groups, and the most it reads beyond the end.
    static let groupWindow = 3
    static let groupWindowMost = 100

    /// Ranks each item of a known duplicate group (``StoreReader/duplicateGroups(around:ignoring:limit:)``) as high
    /// as the best-matching other member, just below it, the item compared with counting with its own score: a
    /// group is one bug, so a report like one of its members is like all of them, and the item's own known
    /// duplicates come first. Hits keep their own score and likeness; among equals the better match goes first.
    func rankByGroups(
        _ hits: inout [ResolvedHit], like uri: TrackerURI, ownScore: Double?, ignoring: Set<TrackerURI>
    ) throws(IndexerError) {
        // Links join items of one store: only those hits can be in a group.
        func linkable(_ hit: ResolvedHit) -> Bool { hit.uri.kind == .item && hit.uri.storeID == uri.storeID }
        let items = hits.filter(linkable).map(\.uri.entityID)
        guard !items.isEmpty else { return }
        let around = uri.kind == .item ? items + [uri.entityID] : items
        let ignored = Set(ignoring.filter { $0.storeID == uri.storeID && $0.kind == .item }.map(\.entityID))
        let groups = try indexer(location.root) {
            try store.read { try $0.duplicateGroups(around: around, ignoring: ignored) }
        }
        guard !groups.isEmpty else { return }
        var scores: [String: Double] = [:]
        for hit in hits where linkable(hit) {
            scores[hit.uri.entityID] = max(scores[hit.uri.entityID] ?? 0, hit.score)
        }
        if uri.kind == .item, let ownScore { scores[uri.entityID] = ownScore }
        let ranked = hits.enumerated().map { index, hit -> (rank: Double, index: Int) in
            guard linkable(hit), let group = groups[hit.uri.entityID] else { return (hit.score, index) }
            let best = group.lazy.filter { $0 != hit.uri.entityID }.compactMap { scores[$0] }.max() ?? 0
            return (max(hit.score, best.nextDown), index)
        }
        hits = ranked.sorted { $0.rank != $1.rank ? $0.rank > $1.rank : $0.index < $1.index }.map { hits[$0.index] }
    }

    /// Items and projects like the one `uri` names, best first, it left out: "more like this", for finding duplicates.
    ///
    /// The query is built from the item as indexed — its title's words, then the detail words Xapian's relevance
    /// feedback weighs highest — and ranked as any search. Each hit's ``ResolvedHit/likeness`` is its score over the
    /// item's own score under the same query (0…1). Catches the index up first, as a search does.
    ///
    /// Throws ``IndexerError`` with the store's ``StoreError/Code-swift.struct/notFound`` or
    /// ``StoreError/Code-swift.struct/foreignStore`` for a URI that names nothing in this store.
    public func similar(
        to uri: TrackerURI, options: SearchOptions = SearchOptions(), maxWords: Int = SearchRanking.similarWords,
        feedbackWeight: Double = SearchRanking.similarFeedbackWeight, links: KnownDuplicateRanking = .groups()
    ) throws(IndexerError) -> SearchOutcome {
        let entity = try indexer(location.root) { try store.entity(for: uri) }
        try checkLocation()
        let fresh = try freshReader(reusing: nil, onLargeBacklog: options.onLargeBacklog)
        let title = entity.title
        let found: (results: SearchResults, selfScore: Double?)
        // Ranking by groups looks further down: a group's member may match less well than the hit it follows.
        var window = options.request
        let widened = links != .off && window.end <= Int.max / Self.groupWindow
        if widened {
            (window.offset, window.limit) = (0, min(window.end * Self.groupWindow, window.end + Self.groupWindowMost))
        }
        do {
            found = try fresh.reader.similar(
                to: uri.description, window, maxWords: maxWords, feedbackWeight: feedbackWeight)
        } catch  where error.code == .invalidArgument {
            throw IndexerError(
                .index, "\(uri) is in the store but not in the index yet; run `spotlite index`, then try again",
                indexError: error)
        } catch {
            throw IndexerError(error, path: location.root)
        }
        let pipeline = pipeline(fresh, options: options)
        let words = Self.snippetWords(title)
        var (hits, dropped, _) = try pipeline.resolve(found.results.hits, details: pipeline.details(around: words))
        if let own = found.selfScore, own > 0 {
            for index in hits.indices { hits[index].likeness = min(1, hits[index].score / own) }
        }
        if case .item(let item, _) = entity { Self.markKnownDuplicates(of: item, in: uri.storeID, &hits) }
        if case .groups(let ignoring) = links {
            try rankByGroups(&hits, like: uri, ownScore: found.selfScore, ignoring: ignoring)
        }
        if widened {
            let end = min(hits.count, options.request.end)
            hits = Array(hits[min(options.request.offset, end)..<end])
        }
        if options.snippets {
            try pipeline.addSnippets(to: &hits, from: found.results, words: words)
        }
        return SearchOutcome(
            query: "like \(uri)", parsedQuery: "more like \(title)", filters: [], hits: hits,
            total: found.results.total, isExact: found.results.isExact, offset: options.request.offset,
            limit: options.request.limit, facets: [], suggestion: nil, searchedSuggestion: false, dropped: dropped,
            changesBehind: fresh.behind, catchUp: fresh.catchUp, staleReason: fresh.staleReason)
    }
}

/// Whether ``StoreIndexer/similar(to:options:maxWords:feedbackWeight:links:)`` ranks with the `duplicate-of` links
/// already made.
public enum KnownDuplicateRanking: Sendable, Equatable {
    /// By likeness alone.
    case off
    /// Each member of a known duplicate group just below the group's best match (the item compared with included),
    /// leaving out the links from or to the items of `ignoring` (a relevance test's own answers).
    case groups(ignoring: Set<TrackerURI> = [])
}
