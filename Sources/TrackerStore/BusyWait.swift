import Foundation

/// How long the store's connections wait for a lock another process holds: up to ``TrackerStore/busyTimeout``
/// for each statement that meets one, and never past a deadline a caller sets for a whole task
/// (``TrackerStore/withBusyDeadline(_:_:)``), so that a search across stores waits for a locked store once, for
/// one documented bound, however many reads it makes of it.
///
/// SQLite calls ``retry(after:)`` each time a lock is refused; it sleeps a little longer each time (SQLite's own
/// steps, the pauses below) and says whether to try again.
final class BusyWait: @unchecked Sendable {
    private let lock = NSLock()
    private var deadline: ContinuousClock.Instant?

    /// SQLite's default busy handler's pauses, in milliseconds; the last repeats.
    static let pauses: [Int] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]

    /// Milliseconds slept before the try numbered `tries` (0 for the first).
    static func slept(before tries: Int) -> Int {
        let steps = min(tries, pauses.count)
        return pauses.prefix(steps).reduce(0, +) + max(0, tries - pauses.count) * pauses[pauses.count - 1]
    }

    /// Whether to try again after `tries` refusals of the same lock, having slept first.
    func retry(after tries: Int) -> Bool {
        let pause = Self.pauses[min(tries, Self.pauses.count - 1)]
        if Self.slept(before: tries) + pause > Int(TrackerStore.busyTimeout * 1_000) { return false }
        if let deadline = currentDeadline(), ContinuousClock.now + .milliseconds(pause) > deadline { return false }
        usleep(useconds_t(pause * 1_000))
        return true
    }

    private func currentDeadline() -> ContinuousClock.Instant? {
        lock.lock()
        defer { lock.unlock() }
        return deadline
    }

    /// Runs `body` with no wait for a lock going past `seconds` from now (nor past an earlier deadline already set).
    func withDeadline<T>(_ seconds: Double, _ body: () throws -> T) rethrows -> T {
        let new = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
        lock.lock()
        let previous = deadline
        deadline = previous.map { min($0, new) } ?? new
        lock.unlock()
        defer {
            lock.lock()
            deadline = previous
            lock.unlock()
        }
        return try body()
    }
}
