import Foundation
import SearchIndex
import TrackerStore

/// The one way a search runs, whatever it reads and whoever asks: one store's index or several opened as one
/// (``StoreSet``), a one-shot `spotlite search`, a kept ``SearchSession``, the server. The query is parsed once (with
/// the reader's parser; a parse made before the index was opened is taken over when the index cannot change it),
/// matched, checked for a spelling correction when it finds few, resolved against the stores, given snippets, facet
/// labels and project suggestions; a search a writer's commit overtakes starts again on the new revision.
///
/// What differs between one store and several is only where hits are resolved: in the store whose URI a hit has, or
/// in every store of the set, the copy modified last shown.
struct SearchPipeline {
    /// A store the search reads, with how its index was brought up to date.
    struct Source {
        /// The store's name in a search across stores; nil in a one-store search.
        var name: String?
        /// Where its rows are read: the store on this host, or a remote store's `serve`.
        var rows: any RowSource
        /// Its index's path, for errors.
        var indexPath: String
        var fresh: StoreIndexer.FreshReader

        init(name: String?, indexer: StoreIndexer, fresh: StoreIndexer.FreshReader) {
            self.init(name: name, rows: indexer, indexPath: indexer.location.root, fresh: fresh)
        }

        init(name: String?, rows: any RowSource, indexPath: String, fresh: StoreIndexer.FreshReader) {
            self.name = name
            self.rows = rows
            self.indexPath = indexPath
            self.fresh = fresh
        }

        var storeID: String { rows.storeID }
    }

    /// The stores searched, in the set's order (at least one).
    let sources: [Source]
    /// The reader of their indexes: the one store's own, or one over all of them.
    let reader: SearchReader
    let options: SearchOptions

    /// A query with this many hits or fewer is checked for a spelling correction that finds more.
    static let fewHits = 2
    /// How many times a search starts again on a newer revision when a writer moved the index under it.
    static let modifiedRetries = 5

    private var path: String { sources.map(\.indexPath).joined(separator: ", ") }
    private var isAcrossStores: Bool { sources.count > 1 || sources[0].name != nil }

    /// Parses `text` as `options` say, with `reader`'s parser (whose words wildcards expand to), or without one to
    /// refuse a bad query before any index is opened, built or caught up.
    static func parse(_ text: String, options: SearchOptions, reader: SearchReader?, path: String)
        throws(IndexerError) -> SearchQuery
    {
        try indexer(path) {
            let words = try reader?.queryParser(clock: options.clock) ?? SearchQueryParser(clock: options.clock)
            switch options.syntax {
            case .spotlite:
                return try words.parse(text, partial: options.partial)
            case .spotlight:
                return try SpotlightQueryParser(words: words, clock: options.clock).parse(text)
            }
        }
    }

    /// Whether a parse of `text` depends on the index it is made for: a wildcard or a partial last word expands to
    /// the index's words. Any other query parses the same with or without a reader.
    static func parseReadsIndex(_ text: String, options: SearchOptions) -> Bool {
        options.partial || text.utf8.contains(UInt8(ascii: "*"))
    }

    /// Searches `text`. `checked` is its parse made before the index was opened, if one was: taken over when the
    /// index cannot change it (``parseReadsIndex(_:options:)``).
    func run(_ text: String, checked: SearchQuery? = nil) throws(IndexerError) -> SearchOutcome {
        var parsed = Self.parseReadsIndex(text, options: options) ? nil : checked
        var attempt = 0
        while true {
            do {
                let query: SearchQuery
                if let parsed {
                    query = parsed
                } else {
                    query = try Self.parse(text, options: options, reader: reader, path: path)
                }
                parsed = query
                return try runOnce(query)
            } catch  where error.indexError?.code == .modified && attempt < Self.modifiedRetries {
                // A wildcard's expansion, the spelling data or the match met a newer revision: start again on it.
                attempt += 1
                if Self.parseReadsIndex(text, options: options) { parsed = nil }
                try indexer(path) { try reader.reopen() }
            }
        }
    }

    private func runOnce(_ query: SearchQuery) throws(IndexerError) -> SearchOutcome {
        let (shown, results, suggestion, searchedSuggestion) = try match(query)
        let words = StoreIndexer.snippetWords(shown.text)
        var (hits, dropped, failures) = try resolve(results.hits, details: details(around: words))
        if options.snippets { try addSnippets(to: &hits, from: results, words: words) }
        let behind = sources.compactMap(\.fresh.behind).reduce(0, +)
        let stale = sources.compactMap { source in
            source.fresh.staleReason.map { reason in source.name.map { "\($0): \(reason)" } ?? reason }
        }
        return SearchOutcome(
            query: shown.text, parsedQuery: shown.description, filters: shown.filters, hits: hits,
            total: results.total, isExact: results.isExact, offset: options.request.offset,
            limit: options.request.limit, facets: try facetCounts(results), suggestion: suggestion,
            searchedSuggestion: searchedSuggestion,
            projectSuggestions: results.total == 0 ? try projectSuggestions(for: shown.projectTitles) : [],
            dropped: dropped, changesBehind: behind == 0 ? nil : behind,
            // Across stores, only a rebuild is worth telling: it is why the search took longer.
            catchUp: isAcrossStores
                ? sources.lazy.compactMap(\.fresh.catchUp).first { $0.rebuildReason != nil } : sources[0].fresh.catchUp,
            staleReason: stale.isEmpty ? nil : stale.joined(separator: "; "), failures: failures,
            isAcrossStores: isAcrossStores)
    }

    /// Matches `query`. Few or no hits: each word the index does not know is corrected on its own (Xapian's nearest
    /// word in the spelling table), the rest of the query kept as typed; the correction is offered only if it finds
    /// more, and searched instead with ``SearchOptions/correct``.
    private func match(_ query: SearchQuery) throws(IndexerError)
        -> (query: SearchQuery, results: SearchResults, suggestion: String?, searchedSuggestion: Bool)
    {
        let results = try indexer(path) { try reader.search(query, options.request) }
        guard options.syntax == .spotlite, results.total <= Self.fewHits,
            let corrected = try correctedSpelling(of: query.text, matched: results), corrected != query.text
        else { return (query, results, nil, false) }
        let correctedQuery = try Self.parse(corrected, options: options, reader: reader, path: path)
        let correctedResults = try indexer(path) { try reader.search(correctedQuery, options.request) }
        guard correctedResults.total > results.total else { return (query, results, nil, false) }
        return options.correct
            ? (correctedQuery, correctedResults, corrected, true) : (query, results, corrected, false)
    }

    /// `text` with each word the index does not know replaced by its nearest known word, or nil if there is none
    /// to replace. Operators, filters (`field:value`), wildcards and numbers are left as they are, and so is
    /// everything around the words: quotes and parentheses are never added or taken away. Whether a word is known
    /// is read from `matched`, the results of `text`, whose match read its words' frequencies (a lost revision:
    /// from the reader, which reopens).
    private func correctedSpelling(of text: String, matched: SearchResults) throws(IndexerError) -> String? {
        var corrected = text
        var changed = false
        for range in StoreIndexer.correctableWordRanges(text).reversed() {
            let word = String(text[range])
            let known = try indexer(path) { () throws(SearchIndexError) in
                if let known = try? matched.knowsWord(word) { return known }
                return try reader.knowsWord(word)
            }
            guard !known, let replacement = try indexer(path, { try reader.correction(for: word) }) else { continue }
            corrected.replaceSubrange(range, with: replacement)
            changed = true
        }
        return changed ? corrected : nil
    }

    /// Resolves hits against the stores, one read per store (a page of items: one statement, or one request to a
    /// remote store's host): each hit is shown from the copy modified last among the stores that hold its row (ties:
    /// the first in the set's order), and says which others hold it. A hit whose own store no longer has its row is
    /// dropped: its document goes at the next catch-up. Across stores, a store whose rows cannot be read (a remote
    /// host down, slow or refusing) is a failure, and its hits are dropped; the others' come back.
    func resolve(_ hits: [SearchHit], details: @escaping DetailPart) throws(IndexerError) -> (
        hits: [ResolvedHit], dropped: Int, failures: [StoreFailure]
    ) {
        let storeIDs = sources.map(\.storeID)
        let uris = hits.map { TrackerURI.canonical($0.uniqueIdentifier, inStores: storeIDs) }
        func ids(_ kind: TrackerURI.Kind) -> [String] { uris.compactMap { $0?.kind == kind ? $0!.entityID : nil } }
        var failures: [StoreFailure] = []
        var rows: [[TrackerURI.Kind: [String: StoreEntity]]] = []
        for source in sources {
            do {
                rows.append(
                    try indexer(source.indexPath) {
                        try source.rows.entities(
                            items: ids(.item), projects: ids(.project), messages: ids(.message), details: details)
                    })
            } catch {
                guard isAcrossStores, let name = source.name else { throw error }
                failures.append(StoreFailure(store: name, error: error))
                rows.append([:])
            }
        }
        let failed = Set(failures.map(\.store))
        let resolved = zip(hits, uris).compactMap { hit, uri -> ResolvedHit? in
            guard let uri else { return nil }
            guard isAcrossStores else {
                return rows[0][uri.kind]?[uri.entityID].map { ResolvedHit(uri: uri, entity: $0, score: hit.score) }
            }
            // Every store's copy, in the set's order.
            let copies = sources.indices.compactMap { index in rows[index][uri.kind]?[uri.entityID].map { (index, $0) }
            }
            // Its own store must hold it; unless that store failed, when another store's copy is shown.
            let ownFailed = sources.contains { $0.storeID == uri.storeID && failed.contains($0.name ?? "") }
            guard ownFailed || copies.contains(where: { sources[$0.0].storeID == uri.storeID }),
                let best = StoreSet.newest(copies, modifiedAt: \.1.modifiedAt)
            else { return nil }
            let (index, entity) = copies[best]
            var resolved = ResolvedHit(
                uri: TrackerURI(storeID: sources[index].storeID, kind: uri.kind, entityID: uri.entityID),
                entity: entity, score: hit.score)
            resolved.store = sources[index].name
            resolved.alsoIn = copies.filter { $0.0 != index }.compactMap { sources[$0.0].name }
            return resolved
        }
        // A failed store's hits are not "dropped" rows: its failure says why they are missing.
        guard !failures.isEmpty else { return (resolved, hits.count - resolved.count, failures) }
        let resolvedEntities = Set(resolved.map { Entity(kind: $0.uri.kind, id: $0.uri.entityID) })
        let ofFailed = zip(hits, uris).filter { _, uri in
            guard let uri, !resolvedEntities.contains(Entity(kind: uri.kind, id: uri.entityID)) else { return false }
            return sources.contains { $0.storeID == uri.storeID && failed.contains($0.name ?? "") }
        }.count
        return (resolved, hits.count - resolved.count - ofFailed, failures)
    }

    /// An entity of any store: the same item in two stores is one.
    private struct Entity: Hashable {
        let kind: TrackerURI.Kind
        let id: String
    }

    /// What of a hit's detail ``resolve(_:details:)`` reads: a hit's detail serves its snippet only, so the
    /// snippet's window of it (`words` place it, as ``addSnippets(to:from:words:)`` is given them), or none of it for
    /// a page without snippets.
    func details(around words: [String]) -> DetailPart {
        options.snippets ? { StoreIndexer.snippetWindow(of: $0, words: words) } : { _ in 0..<0 }
    }

    /// Gives each hit a snippet of its detail where the query matched (`words` say where to look in a long one).
    func addSnippets(to hits: inout [ResolvedHit], from results: SearchResults, words: [String]) throws(IndexerError) {
        for index in hits.indices {
            let detail = hits[index].entity.detail
            guard !detail.isEmpty else { continue }
            let window = StoreIndexer.unmarked(StoreIndexer.snippetWindow(detail, words: words))
            let marked = try indexer(path) {
                try results.snippet(of: window, highlight: (Snippet.markStart, Snippet.markEnd))
            }
            hits[index].snippet = Snippet(marked: marked)
        }
    }

    /// Facet counts, project URIs labelled by their titles in their own store, store UUIDs by the stores' names.
    private func facetCounts(_ results: SearchResults) throws(IndexerError) -> [FacetCounts] {
        let facets = results.facets
        guard !facets.isEmpty else { return [] }
        let names = Dictionary(
            sources.compactMap { source in source.name.map { (source.storeID, $0) } }, uniquingKeysWith: { a, _ in a })
        let projectURIs = facets.filter { $0.facet == .project }.flatMap { $0.values.map(\.value) }
            .compactMap { try? TrackerURI(parsing: $0) }
        var titles: [String: String] = [:]
        for source in sources {
            let ids = projectURIs.filter { $0.storeID == source.storeID }.map(\.entityID)
            guard !ids.isEmpty else { continue }
            let projects: [String: String]
            do {
                projects = try indexer(source.indexPath) { try source.rows.projectTitles(ids: ids) }
            } catch {
                // Across stores, a store that cannot be read is a failure already (``resolve(_:)``): its projects go
                // unlabelled, and so unlisted.
                guard isAcrossStores else { throw error }
                continue
            }
            for (id, title) in projects {
                titles[TrackerURI(storeID: source.storeID, kind: .project, entityID: id).description] = title
            }
        }
        // Stores of equal counts come in the set's order (their UUIDs are random).
        let order = Dictionary(
            sources.enumerated().map { ($1.storeID, $0) }, uniquingKeysWith: { a, _ in a })
        return facets.map { facet, values in
            var counted = FacetCounts(
                facet: facet,
                values: values.compactMap { value, count in
                    switch facet {
                    case .project: return titles[value].map { .init(value: value, label: $0, count: count) }
                    case .store where isAcrossStores:
                        return names[value].map { .init(value: value, label: $0, count: count) }
                    default: return .init(value: value, label: value, count: count)
                    }
                })
            if facet == .store {
                counted.values.sort { ($1.count, order[$0.value] ?? 0) < ($0.count, order[$1.value] ?? 0) }
            }
            return counted
        }
    }

    /// Project titles the query filters on that no store has, with the nearest titles of any store.
    private func projectSuggestions(for titles: [String]) throws(IndexerError) -> [ProjectSuggestion] {
        guard !titles.isEmpty else { return [] }
        guard sources.count > 1 else {
            return try indexer(sources[0].indexPath) { try sources[0].rows.projectSuggestions(for: titles) }
        }
        var near: [String: [String]] = [:]
        var known = Set<String>()
        for source in sources {
            // A store that cannot be read is a failure already (``resolve(_:)``); the others suggest.
            guard let suggestions = try? source.rows.projectSuggestions(for: titles) else { continue }
            let typed = Set(suggestions.map(\.typed))
            known.formUnion(titles.filter { !typed.contains($0) })
            for suggestion in suggestions { near[suggestion.typed, default: []] += suggestion.titles }
        }
        return titles.filter { !known.contains($0) }.map { typed in
            var seen = Set<String>()
            return ProjectSuggestion(
                typed: typed, titles: Array((near[typed] ?? []).filter { seen.insert($0).inserted }.prefix(3)))
        }
    }
}
