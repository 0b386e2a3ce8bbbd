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
        feedbackWeight: Double = SearchRanking.similarFeedbackWeight
    ) throws(IndexerError) -> SearchOutcome {
        let entity = try indexer(location.root) { try store.entity(for: uri) }
        try checkLocation()
        let fresh = try freshReader(reusing: nil, onLargeBacklog: options.onLargeBacklog)
        let title = entity.title
        let found: (results: SearchResults, selfScore: Double?)
        do {
            found = try fresh.reader.similar(
                to: uri.description, options.request, maxWords: maxWords, feedbackWeight: feedbackWeight)
        } catch  where error.code == .invalidArgument {
            throw IndexerError(
                .index, "\(uri) is in the store but not in the index yet; run `spotlite index`, then try again",
                indexError: error)
        } catch {
            throw IndexerError(error, path: location.root)
        }
        let pipeline = pipeline(fresh, options: options)
        var (hits, dropped, _) = try pipeline.resolve(found.results.hits)
        if let own = found.selfScore, own > 0 {
            for index in hits.indices { hits[index].likeness = min(1, hits[index].score / own) }
        }
        if case .item(let item, _) = entity { Self.markKnownDuplicates(of: item, in: uri.storeID, &hits) }
        if options.snippets {
            try pipeline.addSnippets(to: &hits, from: found.results, words: Self.snippetWords(title))
        }
        return SearchOutcome(
            query: "like \(uri)", parsedQuery: "more like \(title)", filters: [], hits: hits,
            total: found.results.total, isExact: found.results.isExact, offset: options.request.offset,
            limit: options.request.limit, facets: [], suggestion: nil, searchedSuggestion: false, dropped: dropped,
            changesBehind: fresh.behind, catchUp: fresh.catchUp, staleReason: fresh.staleReason)
    }
}
