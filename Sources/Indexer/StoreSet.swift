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

    /// One store's copy of a row.
    public struct Copy: Sendable {
        /// The store's name.
        public var store: String
        public var uri: TrackerURI
        public var entity: StoreEntity
    }

    /// Of copies of one row in the set's order, the position of the one modified last; of equals, the first.
    static func newest<C: Collection>(_ copies: C, modifiedAt: (C.Element) -> String) -> C.Index? {
        var best = copies.startIndex
        guard best != copies.endIndex else { return nil }
        for index in copies.indices where modifiedAt(copies[index]) > modifiedAt(copies[best]) { best = index }
        return best
    }

    /// The row behind a URI of one of the set's stores (found by the store UUID inside it), nil when no store of
    /// the set is the URI's (those that fail to open are passed over); with `newestCopy`, the copy modified last
    /// among the set's stores that hold it, and the names of the others. Throws the URI's store's ``StoreError``
    /// when the row is not there.
    public func row(for uri: TrackerURI, newestCopy: Bool = false) throws(StoreError) -> (copy: Copy, alsoIn: [String])?
    {
        let stores = members.indices.lazy.compactMap { position in
            (try? self.member(at: position)).map { (name: self.members[position].name, store: $0.store) }
        }
        guard let home = stores.first(where: { $0.store.uuid == uri.storeID }) else { return nil }
        let own = Copy(store: home.name, uri: uri, entity: try home.store.entity(for: uri))
        guard newestCopy else { return (own, []) }
        // Read once each (`stores` is lazy: it opens stores only as far as the home one above).
        let copies = Array(
            stores.compactMap { other -> Copy? in
                let copy = TrackerURI(storeID: other.store.uuid, kind: uri.kind, entityID: uri.entityID)
                return (try? other.store.entity(for: copy)).map { Copy(store: other.name, uri: copy, entity: $0) }
            })
        guard let best = Self.newest(copies, modifiedAt: \.entity.modifiedAt) else { return (own, []) }
        return (copies[best], copies.filter { $0.store != copies[best].store }.map(\.store))
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
        var parsed = false
        for (position, member) in members.enumerated() {
            // Each store gets one bound for the locks other processes hold on it, however many reads opening it and
            // catching its index up take: past it, it is a failure (`busy`), and the others answer.
            let started = ContinuousClock.now
            do {
                let indexer = try self.member(at: position)
                if let other = seen[indexer.store.uuid] {
                    failures.append(
                        StoreFailure(
                            store: member.name, code: "duplicate-store",
                            message:
                                "store '\(member.name)' is the same store as '\(other)' (\(indexer.store.uuid)); searched once"
                        ))
                    continue
                }
                seen[indexer.store.uuid] = member.name
                // A bad query is the query's fault, not a store's: it fails the whole search, before any index is
                // caught up.
                if !parsed {
                    _ = try indexer.parse(text, options: options, reader: nil)
                    parsed = true
                }
                try indexer.checkLocation()
                let waited = ContinuousClock.now - started
                let left = max(0.05, TrackerStore.busyTimeout - Double(waited.components.seconds))
                let fresh = try indexer.store.withBusyDeadline(left) {
                    try indexer.freshReader(reusing: readers[position], onLargeBacklog: options.onLargeBacklog)
                }
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
    public func search(_ text: String, options: SearchOptions, strict: Bool = false) throws(IndexerError)
        -> SearchOutcome
    {
        searchLock.lock()
        defer { searchLock.unlock() }
        let (opened, failures) = try open(text, options: options, strict: strict)
        guard let first = opened.first else {
            let names = failures.map { "\($0.store): \($0.message)" }.joined(separator: "; ")
            throw IndexerError(
                .store, members.isEmpty ? "no stores to search" : "no store could be searched (\(names))")
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
            } catch  where error.indexError?.code == .modified && attempt < StoreIndexer.modifiedRetries {
                attempt += 1
                try indexer(first.indexer.location.root) { try combined.reopen() }
            }
        }
    }

    private func searchOnce(
        _ text: String, options: SearchOptions, opened: [Opened], reader: SearchReader, first: Opened
    ) throws(IndexerError) -> SearchOutcome {
        let (query, results, suggestion, searchedSuggestion) = try first.indexer.match(
            text, options: options, on: reader)
        var (hits, dropped) = try resolve(results.hits, opened: opened)
        if options.snippets {
            try first.indexer.addSnippets(to: &hits, from: results, words: StoreIndexer.snippetWords(query.text))
        }
        let behind = opened.compactMap(\.fresh.behind).reduce(0, +)
        let stale = opened.compactMap { member in member.fresh.staleReason.map { "\(member.name): \($0)" } }
        return SearchOutcome(
            query: query.text, parsedQuery: query.description, filters: query.filters, hits: hits,
            total: results.total, isExact: results.isExact, offset: options.request.offset,
            limit: options.request.limit, facets: try facetCounts(results, opened: opened), suggestion: suggestion,
            searchedSuggestion: searchedSuggestion,
            projectSuggestions: results.total == 0
                ? try projectSuggestions(for: query.projectTitles, opened: opened) : [],
            dropped: dropped, changesBehind: behind == 0 ? nil : behind,
            catchUp: opened.lazy.compactMap(\.fresh.catchUp).first { $0.rebuildReason != nil },
            staleReason: stale.isEmpty ? nil : stale.joined(separator: "; "))
    }

    /// Each hit's row read in every store (one read per store), then shown from the copy modified last among
    /// those that hold it. A hit whose own store no longer has its row is dropped, as in a one-store search.
    private func resolve(_ hits: [SearchHit], opened: [Opened]) throws(IndexerError) -> ([ResolvedHit], Int) {
        let uris = hits.map { try? TrackerURI(parsing: $0.uniqueIdentifier) }
        func ids(_ kind: TrackerURI.Kind) -> [String] { uris.compactMap { $0?.kind == kind ? $0!.entityID : nil } }
        let rows = try opened.map { member throws(IndexerError) in
            try indexer(member.indexer.location.root) {
                try member.indexer.store.read { reader in
                    try reader.entities(items: ids(.item), projects: ids(.project), messages: ids(.message))
                }
            }
        }
        let resolved = zip(hits, uris).compactMap { hit, uri -> ResolvedHit? in
            guard let uri else { return nil }
            // Every store's copy, in the set's order.
            let copies = opened.indices.compactMap { index in rows[index][uri.kind]?[uri.entityID].map { (index, $0) } }
            guard copies.contains(where: { opened[$0.0].indexer.store.uuid == uri.storeID }),
                let best = Self.newest(copies, modifiedAt: \.1.modifiedAt)
            else { return nil }
            let (index, entity) = copies[best]
            var resolved = ResolvedHit(
                uri: TrackerURI(storeID: opened[index].indexer.store.uuid, kind: uri.kind, entityID: uri.entityID),
                entity: entity, score: hit.score)
            resolved.store = opened[index].name
            resolved.alsoIn = copies.filter { $0.0 != index }.map { opened[$0.0].name }
            return resolved
        }
        return (resolved, hits.count - resolved.count)
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
                titles[TrackerURI(storeID: member.indexer.store.uuid, kind: .project, entityID: id).description] =
                    project.title
            }
        }
        // Stores of equal counts come in the set's order (their UUIDs are random).
        let order = Dictionary(opened.enumerated().map { ($1.indexer.store.uuid, $0) }, uniquingKeysWith: { a, _ in a })
        return facets.map { facet, values in
            var counted = FacetCounts(
                facet: facet,
                values: values.compactMap { value, count in
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
    private func projectSuggestions(for titles: [String], opened: [Opened]) throws(IndexerError) -> [ProjectSuggestion]
    {
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
            return ProjectSuggestion(
                typed: typed, titles: Array((near[typed] ?? []).filter { seen.insert($0).inserted }.prefix(3)))
        }
    }
}
