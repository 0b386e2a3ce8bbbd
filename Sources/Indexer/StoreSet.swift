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

    /// The member whose store has the UUID `storeID`, with its name; nil when none has (members that fail to open
    /// are passed over).
    public func member(storeID: String) -> (name: String, indexer: StoreIndexer)? {
        for position in members.indices {
            if let indexer = try? member(at: position), indexer.store.uuid == storeID {
                return (members[position].name, indexer)
            }
        }
        return nil
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
        guard let home = member(storeID: uri.storeID) else { return nil }
        let own = Copy(store: home.name, uri: uri, entity: try home.indexer.store.entity(for: uri))
        guard newestCopy else { return (own, []) }
        let stores = members.indices.compactMap { position in
            (try? self.member(at: position)).map { (name: self.members[position].name, store: $0.store) }
        }
        let copies = Array(
            stores.compactMap { other -> Copy? in
                let copy = TrackerURI(storeID: other.store.uuid, kind: uri.kind, entityID: uri.entityID)
                return (try? other.store.entity(for: copy)).map { Copy(store: other.name, uri: copy, entity: $0) }
            })
        guard let best = Self.newest(copies, modifiedAt: \.entity.modifiedAt) else { return (own, []) }
        return (copies[best], copies.filter { $0.store != copies[best].store }.map(\.store))
    }

    /// Opens every member and brings its index up to date; what fails is a failure (all of them thrown as the
    /// first's error when `strict`).
    func open(_ text: String, options: SearchOptions, strict: Bool) throws(IndexerError)
        -> (opened: [SearchPipeline.Source], failures: [StoreFailure], checked: SearchQuery?)
    {
        var opened: [SearchPipeline.Source] = []
        var failures: [StoreFailure] = []
        var seen: [String: String] = [:]
        var checked: SearchQuery?
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
                if checked == nil {
                    checked = try SearchPipeline.parse(text, options: options, reader: nil, path: indexer.location.root)
                }
                try indexer.checkLocation()
                let waited = ContinuousClock.now - started
                let left = max(0.05, TrackerStore.busyTimeout - Double(waited.components.seconds))
                let fresh = try indexer.store.withBusyDeadline(left) {
                    try indexer.freshReader(reusing: readers[position], onLargeBacklog: options.onLargeBacklog)
                }
                readers[position] = fresh.reader
                opened.append(SearchPipeline.Source(name: member.name, indexer: indexer, fresh: fresh))
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
        return (opened, failures, checked)
    }

    /// Searches every store as one index. Throws when the query is bad, when no store could answer (the first
    /// failure's error), and with `strict` when any store fails.
    public func search(_ text: String, options: SearchOptions, strict: Bool = false) throws(IndexerError)
        -> SearchOutcome
    {
        searchLock.lock()
        defer { searchLock.unlock() }
        let (opened, failures, checked) = try open(text, options: options, strict: strict)
        guard !opened.isEmpty else {
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
        var outcome = try SearchPipeline(sources: opened, reader: combined, options: options).run(
            text, checked: checked)
        outcome.failures = failures
        return outcome
    }
}
