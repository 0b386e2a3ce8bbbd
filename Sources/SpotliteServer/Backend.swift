import Dispatch
import Foundation
import Indexer
import SearchIndex
import TrackerStore

/// The store and index behind the server, and the threads their blocking work runs on (SQLite and Xapian block;
/// the server's event loops must not).
///
/// Reads go through a read-only handle of the store; the index is kept live by the server's own watcher, which a
/// search waits for briefly, so that it reads what was just written. Each search runs in a ``SearchSession`` of its
/// own for as long as it runs (sessions are kept for the next one: the index stays open).
final class Backend: Sendable {
    /// The store opened for writing: the watcher (which prunes the log) and subscriptions (kept in the store).
    let writer: StoreIndexer
    /// The store opened read-only, for searches, resolves and status.
    let reader: StoreIndexer
    private let sessions = SessionPool()
    /// The store sets of `/v1/search?stores=…`, by selection.
    private let storeSets = StoreSets()
    private let queue = DispatchQueue(label: "spotlite.serve.work", attributes: .concurrent)
    /// Blocking jobs running at once: a few per core keep the cores busy (one job waits on a read while another
    /// computes) without the switching and the open indexes of one thread per request in flight.
    private let slots = DispatchSemaphore(value: max(2, ProcessInfo.processInfo.activeProcessorCount * 2))

    init(storePath: String, indexPath: String) throws {
        let store = try TrackerStore.open(at: storePath)
        writer = StoreIndexer(store: store, indexPath: indexPath)
        let readOnly = try store.readOnlyHandle()
        reader = StoreIndexer(store: readOnly, indexPath: indexPath)
    }

    var storeID: String { reader.store.uuid }

    /// The store set kept for `key`, made by `make` the first time.
    func storeSet(key: String, make: () -> StoreSet) -> StoreSet { storeSets.get(key, make) }

    /// Runs `body` on a work thread and returns what it returns (or throws what it throws).
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [slots] in
                slots.wait()
                defer { slots.signal() }
                continuation.resume(with: Result { try body() })
            }
        }
    }

    /// A search in a session of its own.
    func search(_ text: String, options: SearchOptions) async throws -> SearchOutcome {
        try await run { [sessions, reader] in
            let session = sessions.take() ?? SearchSession(reader)
            defer { sessions.give(session) }
            return try session.search(text, options: options)
        }
    }
}

/// Search sessions not in use (each holds an open index): one per search running at once, kept for the next.
final class SessionPool: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [SearchSession] = []

    func take() -> SearchSession? {
        lock.lock()
        defer { lock.unlock() }
        return idle.popLast()
    }

    func give(_ session: SearchSession) {
        lock.lock()
        defer { lock.unlock() }
        if idle.count < 64 { idle.append(session) }
    }
}

/// The store sets searched so far, by selection (a few at most: each selection of the served stores).
final class StoreSets: @unchecked Sendable {
    private let lock = NSLock()
    private var sets: [String: StoreSet] = [:]

    func get(_ key: String, _ make: () -> StoreSet) -> StoreSet {
        lock.lock()
        defer { lock.unlock() }
        if let set = sets[key] { return set }
        let set = make()
        sets[key] = set
        return set
    }
}
