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
    /// A store of the set, opened: on this host, or remote (a replica of its index here, its rows from its host).
    public enum Opened: Sendable {
        case local(StoreIndexer)
        case remote(RemoteStore)

        public var storeID: String {
            switch self {
            case .local(let indexer): indexer.store.uuid
            case .remote(let remote): remote.storeID
            }
        }

        var rows: any RowSource {
            switch self {
            case .local(let indexer): indexer
            case .remote(let remote): remote.rows
            }
        }

        /// The row behind `uri`, a URI of this store. Throws ``StoreError/Code-swift.struct/notFound`` when the row
        /// is gone, and a remote store's host's failure.
        func entity(for uri: TrackerURI) throws -> StoreEntity {
            switch self {
            case .local(let indexer):
                return try indexer.store.entity(for: uri)
            case .remote(let remote):
                func id(_ kind: TrackerURI.Kind) -> [String] { uri.kind == kind ? [uri.entityID] : [] }
                let rows = try remote.rows.entities(items: id(.item), projects: id(.project), messages: id(.message))
                guard let entity = rows[uri.kind]?[uri.entityID] else {
                    throw StoreError(.notFound, "\(uri) is not in its store (deleted, or never there)")
                }
                return entity
            }
        }
    }

    /// One store of the set: its name, and how to open it (opening may fail: that store is then a failure).
    public struct Member: Sendable {
        public var name: String
        public var open: @Sendable () throws -> Opened

        /// A store on this host.
        public init(name: String, open: @escaping @Sendable () throws -> StoreIndexer) {
            self.name = name
            self.open = { .local(try open()) }
        }

        /// A store on this host or a remote one.
        public init(name: String, opening: @escaping @Sendable () throws -> Opened) {
            self.name = name
            self.open = opening
        }
    }

    public let members: [Member]
    /// The members opened so far, by position: each is opened once and kept for later searches (one that failed
    /// to open is tried again at the next search). Guarded by `lock`.
    private var opened: [Int: Opened] = [:]
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
    private func member(at position: Int) throws -> Opened {
        lock.lock()
        defer { lock.unlock() }
        if let open = opened[position] {
            guard case .local(let indexer) = open, !FileManager.default.fileExists(atPath: indexer.store.path) else {
                return open
            }
            opened[position] = nil
        }
        let made = try members[position].open()
        opened[position] = made
        return made
    }

    /// The member on this host whose store has the UUID `storeID`, with its name; nil when none has (members that
    /// fail to open are passed over).
    public func member(storeID: String) -> (name: String, indexer: StoreIndexer)? {
        for position in members.indices {
            if case .local(let indexer)? = try? member(at: position), indexer.store.uuid == storeID {
                return (members[position].name, indexer)
            }
        }
        return nil
    }

    /// The remote member whose store has the UUID `storeID`, with its name; nil when none has.
    public func remoteMember(storeID: String) -> (name: String, store: RemoteStore)? {
        for position in members.indices {
            if case .remote(let remote)? = try? member(at: position), remote.storeID == storeID {
                return (members[position].name, remote)
            }
        }
        return nil
    }

    /// The remote members, with their names (those that fail to open are passed over).
    public func remoteMembers() -> [(name: String, store: RemoteStore)] {
        members.indices.compactMap { position in
            guard case .remote(let remote)? = try? member(at: position) else { return nil }
            return (members[position].name, remote)
        }
    }

    /// The opened member whose store has the UUID `storeID`, with its name.
    private func anyMember(storeID: String) -> (name: String, store: Opened)? {
        for position in members.indices {
            if let opened = try? member(at: position), opened.storeID == storeID {
                return (members[position].name, opened)
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
    /// when the row is not there, or a remote store's host's failure.
    public func row(for uri: TrackerURI, newestCopy: Bool = false) throws -> (copy: Copy, alsoIn: [String])? {
        guard let home = anyMember(storeID: uri.storeID) else { return nil }
        let own = Copy(store: home.name, uri: uri, entity: try home.store.entity(for: uri))
        guard newestCopy else { return (own, []) }
        let stores = members.indices.compactMap { position in
            (try? self.member(at: position)).map { (name: self.members[position].name, store: $0) }
        }
        let copies = Array(
            stores.compactMap { other -> Copy? in
                let copy = TrackerURI(storeID: other.store.storeID, kind: uri.kind, entityID: uri.entityID)
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
                let store = try self.member(at: position)
                if let other = seen[store.storeID] {
                    failures.append(
                        StoreFailure(
                            store: member.name, code: "duplicate-store",
                            message:
                                "store '\(member.name)' is the same store as '\(other)' (\(store.storeID)); searched once"
                        ))
                    continue
                }
                seen[store.storeID] = member.name
                switch store {
                case .local(let indexer):
                    // A bad query is the query's fault, not a store's: it fails the whole search, before any index
                    // is caught up.
                    if checked == nil {
                        checked = try SearchPipeline.parse(
                            text, options: options, reader: nil, path: indexer.location.root)
                    }
                    try indexer.checkLocation()
                    let waited = ContinuousClock.now - started
                    let left = max(0.05, TrackerStore.busyTimeout - Double(waited.components.seconds))
                    let fresh = try indexer.store.withBusyDeadline(left) {
                        try indexer.freshReader(reusing: readers[position], onLargeBacklog: options.onLargeBacklog)
                    }
                    readers[position] = fresh.reader
                    opened.append(SearchPipeline.Source(name: member.name, indexer: indexer, fresh: fresh))
                case .remote(let remote):
                    // A replica is read as copied: `spotlite replica` keeps it current, and says how current it is.
                    if checked == nil {
                        checked = try SearchPipeline.parse(
                            text, options: options, reader: nil, path: remote.replica.copyPath)
                    }
                    let reader = try remote.reader(reusing: readers[position])
                    readers[position] = reader
                    let fresh = StoreIndexer.FreshReader(reader: reader, staleReason: remote.staleReason())
                    opened.append(
                        SearchPipeline.Source(
                            name: member.name, rows: remote.rows, indexPath: remote.replica.copyPath, fresh: fresh))
                }
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
        let paths = opened.map(\.indexPath)
        let combined = try indexer(paths.joined(separator: ", ")) { () throws -> SearchReader in
            if let kept = self.combined, kept.paths == paths, (try? kept.reader.reopen()) != nil { return kept.reader }
            let reader = try SearchReader(paths: paths)
            self.combined = (paths, reader)
            return reader
        }
        var outcome = try SearchPipeline(sources: opened, reader: combined, options: options).run(
            text, checked: checked)
        outcome.failures = failures + outcome.failures
        return outcome
    }
}
