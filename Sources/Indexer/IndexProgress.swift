/// How far a long run of index work has come, for a progress line: ``StoreIndexer/catchUp(lockTimeout:batchSize:progress:)``
/// and ``StoreIndexer/rebuild(lockTimeout:options:progress:)`` report it before they start (`done` 0) and as they go.
public struct IndexProgress: Sendable, Equatable {
    public enum Work: Sendable, Equatable {
        /// Applying the change log: `done` of `total` changes.
        case applyingChanges
        /// Building a fresh index from the store's rows: `done` of `total` rows read and handed to the builders.
        case rebuilding
    }

    public var work: Work
    public var done: Int
    public var total: Int
    /// The changes the index was behind when the work began (for a rebuild, those it makes up for; 0 when a
    /// rebuild was asked for or the index was missing).
    public var backlog: Int

    public init(work: Work, done: Int, total: Int, backlog: Int = 0) {
        self.work = work
        self.done = done
        self.total = total
        self.backlog = backlog
    }
}
