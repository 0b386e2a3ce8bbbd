import Foundation
import SearchIndex
import TrackerStore

/// A store of a search across stores that could not answer, and why; the others' hits still come back.
public struct StoreFailure: Error, Sendable, Equatable {
    /// The store's name (``StoreSet/Member/name``).
    public var store: String
    /// What failed, for tools to match on: `missing-store`, `not-a-store`, `unsupported-version` (a newer schema),
    /// `busy` (locked past the wait), `locked`, `index` (damaged or unreadable), `database`, `duplicate-store`.
    public var code: String
    /// A sentence for people.
    public var message: String

    public init(store: String, code: String, message: String) {
        self.store = store
        self.code = code
        self.message = message
    }

    /// The failure of `store` for an error of the layers below.
    public init(store: String, error: any Error) {
        let code: String
        let message: String
        switch error {
        case let error as StoreError:
            (code, message) = (error.code.name, error.message)
        case let error as IndexerError:
            (code, message) = (error.storeError?.code.name ?? error.code.name, error.message)
        case let error as SearchIndexError:
            (code, message) = ("index", error.message)
        default:
            (code, message) = ("index", "\(error)")
        }
        self.init(store: store, code: code.replacingSpaces(), message: message)
    }
}

extension String {
    fileprivate func replacingSpaces() -> String { String(map { $0 == " " ? "-" : $0 }) }
}

/// Several stores searched as one: each store's index (caught up first, as a one-store search does) is opened
/// into one Xapian multi-database, so that term statistics are those of the whole and the ranking is the one an
/// index of their union would give — not a merge of separate top-N lists. A store that fails is reported in
/// ``SearchOutcome/failures`` while the others answer.
///
/// An item held by several stores (a shared project a sync engine copied into the private store) is one hit: the
/// copy with the newest `modified` is shown (ties: the first store in the set's order), and the hit says which
/// other stores hold it.
public final class StoreSet: @unchecked Sendable {
    /// One store of the set: its name, and how to open it (opening may fail: that store is then a failure).
    public struct Member: Sendable {
        public var name: String
        public var open: @Sendable () throws -> StoreIndexer

        public init(name: String, open: @escaping @Sendable () throws -> StoreIndexer) {
            self.name = name
            self.open = open
        }
    }

    public let members: [Member]
    /// The members opened so far, by position: each is opened once and kept for later searches (one that failed
    /// to open is tried again at the next search). Guarded by `lock`.
    private var indexers: [Int: StoreIndexer] = [:]
    private let lock = NSLock()
    /// Readers kept from one search to the next (each member's, and the combined one with the paths it reads), so a
    /// search reopens them rather than opening them anew. Readers are not thread-safe: one search at a time uses
    /// them, under `searchLock`.
    private var readers: [Int: SearchReader] = [:]
    private var combined: (paths: [String], reader: SearchReader)?
    private let searchLock = NSLock()

    public init(members: [Member]) { self.members = members }

    /// The member at `position`, opened at its first use, and again when its file has gone (a long-lived set, in a
    /// server, would otherwise go on reading a deleted file through its open handle).
    private func member(at position: Int) throws -> StoreIndexer {
        lock.lock()
        defer { lock.unlock() }
        if let open = indexers[position] {
            if FileManager.default.fileExists(atPath: open.store.path) { return open }
            indexers[position] = nil
        }
        let opened = try members[position].open()
        indexers[position] = opened
        return opened
    }

    /// The row behind a URI of one of the set's stores (found by the store UUID inside it), and that store's name;
    /// nil when no store of the set is the URI's (those that fail to open are passed over). Throws the store's
    /// ``StoreError`` when the row is not there.
    public func entity(for uri: TrackerURI) throws(StoreError) -> (entity: StoreEntity, store: String)? {
        for (position, member) in members.enumerated() {
            guard let indexer = try? self.member(at: position), indexer.store.uuid == uri.storeID else { continue }
            return (try indexer.store.entity(for: uri), member.name)
        }
        return nil
    }

    /// A store that opened, with its index brought up to date as far as it can be.
    struct Opened {
        var name: String
        var indexer: StoreIndexer
        var fresh: StoreIndexer.FreshReader
    }

    /// Opens every member and brings its index up to date; what fails is a failure (all of them thrown as the
    /// first's error when `strict`).
    func open(_ text: String, options: SearchOptions, strict: Bool) throws(IndexerError) -> ([Opened], [StoreFailure]) {
        var opened: [Opened] = []
        var failures: [StoreFailure] = []
        var seen: [String: String] = [:]
        for (position, member) in members.enumerated() {
            do {
                let indexer = try self.member(at: position)
                if let other = seen[indexer.store.uuid] {
                    failures.append(StoreFailure(
                        store: member.name, code: "duplicate-store",
                        message: "store '\(member.name)' is the same store as '\(other)' (\(indexer.store.uuid)); searched once"))
                    continue
                }
                seen[indexer.store.uuid] = member.name
                // A bad query is the query's fault, not a store's: it fails the whole search.
                _ = try indexer.parse(text, options: options, reader: nil)
                try indexer.checkLocation()
                let fresh = try indexer.freshReader(reusing: readers[position], onLargeBacklog: options.onLargeBacklog)
                readers[position] = fresh.reader
                opened.append(Opened(name: member.name, indexer: indexer, fresh: fresh))
            } catch let error as IndexerError where error.code == .querySyntax {
                throw error
            } catch {
                let failure = StoreFailure(store: member.name, error: error)
                if strict {
                    // The store's own error, named: a store problem stays one (exit 5), an index problem too (6).
                    let isStore = error is StoreError || (error as? IndexerError)?.storeError != nil
                    let code = isStore ? IndexerError.Code.store : (error as? IndexerError)?.code ?? .index
                    throw IndexerError(code, "store '\(member.name)' failed (\(failure.code)): \(failure.message)")
                }
                failures.append(failure)
            }
        }
        return (opened, failures)
    }

    /// Searches every store as one index. Throws when the query is bad, when no store could answer (the first
    /// failure's error), and with `strict` when any store fails.
    public func search(_ text: String, options: SearchOptions, strict: Bool = false) throws(IndexerError) -> SearchOutcome {
        searchLock.lock()
        defer { searchLock.unlock() }
        let (opened, failures) = try open(text, options: options, strict: strict)
        guard let first = opened.first else {
            let names = failures.map { "\($0.store): \($0.message)" }.joined(separator: "; ")
            throw IndexerError(.store, members.isEmpty ? "no stores to search" : "no store could be searched (\(names))")
        }
        let paths = opened.map(\.indexer.location.root)
        let combined = try indexer(paths.joined(separator: ", ")) { () throws -> SearchReader in
            if let kept = self.combined, kept.paths == paths, (try? kept.reader.reopen()) != nil { return kept.reader }
            let reader = try SearchReader(paths: paths)
            self.combined = (paths, reader)
            return reader
        }
        var attempt = 0
        while true {
            do {
                var outcome = try searchOnce(text, options: options, opened: opened, reader: combined, first: first)
                outcome.failures = failures
                outcome.isAcrossStores = true
                return outcome
            } catch where error.indexError?.code == .modified && attempt < StoreIndexer.modifiedRetries {
                attempt += 1
                try indexer(first.indexer.location.root) { try combined.reopen() }
            }
        }
    }

    private func searchOnce(
        _ text: String, options: SearchOptions, opened: [Opened], reader: SearchReader, first: Opened
    ) throws(IndexerError) -> SearchOutcome {
        let (query, results, suggestion, searchedSuggestion) = try first.indexer.match(text, options: options, on: reader)
        var (hits, dropped) = try resolve(results.hits, opened: opened)
        if options.snippets { try first.indexer.addSnippets(to: &hits, from: results, words: StoreIndexer.snippetWords(query.text)) }
        let behind = opened.compactMap(\.fresh.behind).reduce(0, +)
        let stale = opened.compactMap { member in member.fresh.staleReason.map { "\(member.name): \($0)" } }
        return SearchOutcome(
            query: query.text, parsedQuery: query.description, filters: query.filters, hits: hits,
            total: results.total, isExact: results.isExact, offset: options.request.offset,
            limit: options.request.limit, facets: try facetCounts(results, opened: opened), suggestion: suggestion,
            searchedSuggestion: searchedSuggestion,
            projectSuggestions: results.total == 0 ? try projectSuggestions(for: query.projectTitles, opened: opened) : [],
            dropped: dropped, changesBehind: behind == 0 ? nil : behind,
            catchUp: opened.lazy.compactMap(\.fresh.catchUp).first { $0.rebuildReason != nil },
            staleReason: stale.isEmpty ? nil : stale.joined(separator: "; "))
    }

    /// Each hit resolved in its own store, then swapped for the newest copy among the stores that hold its row.
    private func resolve(_ hits: [SearchHit], opened: [Opened]) throws(IndexerError) -> ([ResolvedHit], Int) {
        var byStore: [String: [Int]] = [:]
        for (position, hit) in hits.enumerated() {
            guard let uri = try? TrackerURI(parsing: hit.uniqueIdentifier) else { continue }
            byStore[uri.storeID, default: []].append(position)
        }
        var resolved: [Int: ResolvedHit] = [:]
        for member in opened {
            guard let positions = byStore[member.indexer.store.uuid] else { continue }
            // resolve() keeps the order it is given and drops rows that are gone: match them back by URI.
            let (found, _) = try member.indexer.resolve(positions.map { hits[$0] })
            let byURI = Dictionary(found.map { ($0.uri.description, $0) }, uniquingKeysWith: { a, _ in a })
            for position in positions {
                if var hit = byURI[hits[position].uniqueIdentifier] {
                    hit.store = member.name
                    resolved[position] = hit
                }
            }
        }
        var ordered = hits.indices.compactMap { resolved[$0] }
        let dropped = hits.count - ordered.count
        guard opened.count > 1, !ordered.isEmpty else { return (ordered, dropped) }

        // Every store's copy of each hit's row, in the set's order.
        var copies: [[(store: Int, entity: StoreEntity)]] = Array(repeating: [], count: ordered.count)
        func ids(_ kind: TrackerURI.Kind) -> [String] { ordered.compactMap { $0.uri.kind == kind ? $0.uri.entityID : nil } }
        for (index, member) in opened.enumerated() {
            let rows = try indexer(member.indexer.location.root) {
                try member.indexer.store.read { reader in
                    try reader.entities(items: ids(.item), projects: ids(.project), messages: ids(.message))
                }
            }
            for (position, hit) in ordered.enumerated() {
                if let entity = rows[hit.uri.kind]?[hit.uri.entityID] { copies[position].append((index, entity)) }
            }
        }
        for position in ordered.indices where copies[position].count > 1 {
            let all = copies[position]
            // Newest modified wins; of equals, the first store (max(by:) would keep the last).
            var best = all[0]
            for copy in all.dropFirst() where copy.entity.modifiedAt > best.entity.modifiedAt { best = copy }
            ordered[position].entity = best.entity
            ordered[position].uri.storeID = opened[best.store].indexer.store.uuid
            ordered[position].store = opened[best.store].name
            ordered[position].alsoIn = all.filter { $0.store != best.store }.map { opened[$0.store].name }
        }
        return (ordered, dropped)
    }

    /// Facet counts, project URIs labelled by their titles in their own store, store UUIDs by the stores' names.
    private func facetCounts(_ results: SearchResults, opened: [Opened]) throws(IndexerError) -> [FacetCounts] {
        let facets = results.facets
        guard !facets.isEmpty else { return [] }
        let names = Dictionary(opened.map { ($0.indexer.store.uuid, $0.name) }, uniquingKeysWith: { a, _ in a })
        let projectURIs = facets.filter { $0.facet == .project }.flatMap { $0.values.map(\.value) }
            .compactMap { try? TrackerURI(parsing: $0) }
        var titles: [String: String] = [:]
        for member in opened {
            let ids = projectURIs.filter { $0.storeID == member.indexer.store.uuid }.map(\.entityID)
            guard !ids.isEmpty else { continue }
            let projects = try indexer(member.indexer.location.root) {
                try member.indexer.store.read { try $0.projects(ids: ids) }
            }
            for (id, project) in projects {
                titles[TrackerURI(storeID: member.indexer.store.uuid, kind: .project, entityID: id).description] = project.title
            }
        }
        // Stores of equal counts come in the set's order (their UUIDs are random).
        let order = Dictionary(opened.enumerated().map { ($1.indexer.store.uuid, $0) }, uniquingKeysWith: { a, _ in a })
        return facets.map { facet, values in
            var counted = FacetCounts(facet: facet, values: values.compactMap { value, count in
                switch facet {
                case .project: return titles[value].map { .init(value: value, label: $0, count: count) }
                case .store: return names[value].map { .init(value: value, label: $0, count: count) }
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
    private func projectSuggestions(for titles: [String], opened: [Opened]) throws(IndexerError) -> [ProjectSuggestion] {
        guard !titles.isEmpty else { return [] }
        var near: [String: [String]] = [:]
        var known = Set<String>()
        for member in opened {
            let suggestions = try member.indexer.projectSuggestions(for: titles)
            let typed = Set(suggestions.map(\.typed))
            known.formUnion(titles.filter { !typed.contains($0) })
            for suggestion in suggestions { near[suggestion.typed, default: []] += suggestion.titles }
        }
        return titles.filter { !known.contains($0) }.map { typed in
            var seen = Set<String>()
            return ProjectSuggestion(typed: typed, titles: Array((near[typed] ?? []).filter { seen.insert($0).inserted }.prefix(3)))
        }
    }
}
