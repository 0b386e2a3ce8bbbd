import Foundation

/// Wakes the event streams of subscriptions that got events: the watcher's thread calls ``notify(_:)`` after it
/// records them, and each stream waits in ``wait(for:version:timeout:)`` between reads of the store.
///
/// A version per subscription, counted up at each notification: a stream that read the store at version V waits
/// only while the version is still V, so a notification between its read and its wait is never missed.
final class EventHub: @unchecked Sendable {
    private let lock = NSLock()
    private var versions: [String: UInt64] = [:]
    private var waiters: [String: [UUID: CheckedContinuation<Void, Never>]] = [:]
    /// Waits given up before their continuation was registered: it resumes at once when it comes.
    private var abandoned = Set<UUID>()
    private var closed = false

    /// The subscription's version now: read it before reading the store.
    func version(of subscription: String) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return versions[subscription] ?? 0
    }

    func notify(_ subscriptions: [String]) {
        var woken: [CheckedContinuation<Void, Never>] = []
        lock.lock()
        for id in subscriptions {
            versions[id, default: 0] += 1
            woken += waiters.removeValue(forKey: id)?.values.map { $0 } ?? []
        }
        lock.unlock()
        for continuation in woken { continuation.resume() }
    }

    /// Wakes every stream for good (the server is stopping): they see ``isClosed`` and end.
    func close() {
        lock.lock()
        closed = true
        let woken = waiters.values.flatMap(\.values)
        waiters.removeAll()
        lock.unlock()
        for continuation in woken { continuation.resume() }
    }

    var isClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closed
    }

    /// Wakes the wait that `key` names on `subscription` at once, or, if it is not waiting now, makes its next wait
    /// return at once: a stream whose client left calls it, so that it does not wait out its heartbeat first.
    func interrupt(_ key: UUID, of subscription: String) {
        lock.lock()
        let left = waiters[subscription]?.removeValue(forKey: key)
        if left == nil { abandoned.insert(key) }
        lock.unlock()
        left?.resume()
    }

    /// Forgets an interrupt that no wait took (the stream ended without waiting again).
    func forget(_ key: UUID) {
        lock.lock()
        abandoned.remove(key)
        lock.unlock()
    }

    /// Returns when the subscription's version moves past `version`, the hub closes, `timeout` seconds pass, or
    /// the wait is interrupted (``interrupt(_:of:)`` with `key`).
    func wait(for subscription: String, version: UInt64, timeout: Double, key: UUID = UUID()) async {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    self.lock.lock()
                    if self.closed || (self.versions[subscription] ?? 0) != version
                        || self.abandoned.remove(key) != nil
                    {
                        self.lock.unlock()
                        continuation.resume()
                        return
                    }
                    self.waiters[subscription, default: [:]][key] = continuation
                    self.lock.unlock()
                }
                return true
            }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1e9))
                return false
            }
            let woken = await group.next() ?? true
            group.cancelAll()
            guard !woken else { return }
            // Timed out: the waiter is let go, or, if it is not registered yet, told to go at once when it is.
            self.interrupt(key, of: subscription)
            await group.waitForAll()
            self.forget(key)
        }
    }
}
