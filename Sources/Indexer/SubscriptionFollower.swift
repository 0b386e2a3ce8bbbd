import Foundation
import SearchIndex
import TrackerStore

/// Follows one subscription's events from any process: `spotlite subscribe`. When a `watch` or `serve` keeps the
/// index live, it records the events and this only reads them; otherwise this catches the index up (when the
/// write lock is free) and records them itself. Wakes on the store's file events.
public final class SubscriptionFollower: Sendable {
    let source: StoreIndexer
    let subscriptionID: String
    private let notifier: ChangeNotifier

    public init(indexer: StoreIndexer, subscriptionID: String) throws(IndexerError) {
        self.source = indexer
        self.subscriptionID = subscriptionID
        do {
            notifier = try ChangeNotifier(storePath: indexer.store.path)
        } catch {
            throw IndexerError(.index, "cannot watch \(indexer.store.path): \(error)")
        }
    }

    /// Makes ``follow(after:deliver:)`` return. Safe from any thread (a signal handler's queue).
    public func stop() { notifier.stop() }

    /// Calls `deliver` with each event after `start` (`position`, `ordinal`), in order, as they are recorded, until
    /// ``stop()`` or the subscription is deleted. A start before the events the store still keeps gives a `reset`
    /// event first. Throws ``IndexerError``s, and what `deliver` throws, as it is.
    public func follow(after start: (position: Int64, ordinal: Int), deliver: ([SubscriptionEvent]) throws -> Void)
        throws
    {
        var last = start
        let prunedThrough = try indexer(source.location.root) {
            try source.store.read { try $0.subscription(id: subscriptionID) }?.eventsPrunedThrough ?? 0
        }
        if last.position < prunedThrough {
            let cursor = try current()?.cursor ?? last.position
            let reset = SubscriptionEvent(position: cursor, ordinal: Int.max, kind: .reset, member: nil)
            try deliver([reset])
            last = (cursor, Int.max)
        }
        while !notifier.isStopped {
            if source.liveWatcher() == nil {
                // Nobody keeps the index live: bring it (and so the subscriptions) up to date here.
                _ = try? source.catchUpIfUnlocked()
                try source.updateSubscriptions()
            }
            let from = last
            let events = try indexer(source.location.root) {
                try source.store.read {
                    try $0.subscriptionEvents(
                        id: subscriptionID, after: from.position, ordinal: from.ordinal, limit: 500)
                }
            }
            if let newest = events.last {
                try deliver(events)
                last = (newest.position, newest.ordinal)
                continue
            }
            guard try current() != nil else { return }  // deleted
            if notifier.wait(timeout: 1) == .stopped { return }
        }
    }

    private func current() throws(IndexerError) -> Subscription? {
        try indexer(source.location.root) { try source.store.read { try $0.subscription(id: subscriptionID) } }
    }
}
