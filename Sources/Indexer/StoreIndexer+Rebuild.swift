import Foundation
import SearchIndex
import TrackerStore

extension StoreIndexer {
    /// How a rebuild builds the new index.
    public struct RebuildOptions: Sendable, Equatable {
        /// Databases built side by side, one writer thread each, fed by one reader of the store, then merged by
        /// Xapian's compaction. A single Xapian writer keeps one core busy; this keeps them all busy.
        public var shards: Int
        /// Whether the result is compacted (always, when there is more than one shard). A compacted index is much
        /// smaller and its posting lists are read faster, for a small part of a rebuild's time.
        public var compacted: Bool
        public init(shards: Int = RebuildOptions.defaultShards, compacted: Bool = true) {
            self.shards = max(1, shards)
            self.compacted = compacted || self.shards > 1
        }

        /// One shard per core, at most 4 (each buffers up to 10,000 documents before Xapian flushes them:
        /// ≈ 120 MB of the synthetic corpus).
        public static var defaultShards: Int { min(4, max(1, ProcessInfo.processInfo.activeProcessorCount)) }

        /// One writer into the new directory, nothing merged: what a plain Xapian indexer does.
        public static let singleWriter = RebuildOptions(shards: 1, compacted: false)
    }

    /// Builds a fresh index from the store's rows into a new generation and swaps it in atomically.
    ///
    /// One read transaction of the store feeds every shard, so the index is one snapshot with its cursor. Shard
    /// K gets the K-th consecutive run of the store's rows and the merge joins the shards in that order, so the
    /// index's document order (which breaks ties in search results) is the store's, whatever the shard count
    /// and whichever builder is faster. No fsync while building: the generation is flushed to disk once,
    /// complete, before it is made current. A failure or a kill leaves the current index as it was; the
    /// half-built directories go at the next write.
    ///
    /// `backlog`: the changes the rebuild makes up for, for ``IndexProgress/backlog``.
    func rebuildHoldingLock(
        reason: String, options: RebuildOptions = RebuildOptions(), backlog: Int = 0, progress: Progress? = nil
    ) throws(IndexerError) -> Report {
        var report = Report()
        report.rebuildReason = reason
        // What an earlier build left (a kill, a full disk) goes first: holding the lock, nobody is building it.
        location.removeStaleGenerations()
        let generation = location.nextGeneration()
        let path = location.path(of: generation)
        let shardPaths = options.compacted ? (0..<options.shards).map { "\(path).shard-\($0)" } : [path]
        do {
            // Each directory is made and marked as this index's before Xapian writes in it, so that whatever is
            // left of it after a kill can be proved Spotlite's, and removed.
            for directory in Set(shardPaths + [path]) {
                try location.createGeneration(String(directory.dropFirst(location.root.count + 1)))
            }
            let rows = progress.map { tell in
                { (done: Int, total: Int) in
                    tell(IndexProgress(work: .rebuilding, done: done, total: total, backlog: backlog))
                }
            }
            try build(generation: generation, shardPaths: shardPaths, options: options, report: &report, progress: rows)
        } catch {
            // A failed build gives its space back at once (a full disk most of all); the current index stays.
            for shard in shardPaths where shard != path {
                location.removeGeneration(String(shard.dropFirst(location.root.count + 1)))
            }
            if location.currentGeneration() != generation { location.removeGeneration(generation) }
            throw error
        }
        try location.updateMarker(layout: SearchIndexLayout.version, storeID: store.uuid)
        return report
    }

    private func build(
        generation: String, shardPaths: [String], options: RebuildOptions, report: inout Report,
        progress: ((_ rows: Int, _ total: Int) -> Void)?
    ) throws(IndexerError) {
        let path = location.path(of: generation)
        try indexer(location.root) {
            // The index's common words, from a sample of the store's items read before the build (see
            // SearchableIndex.commonWords(of:)): every shard, and every document written later, uses the same.
            let sample = try store.read {
                try mapping.sampleDocuments(in: $0, count: SearchableIndex.commonWordSampleSize)
            }
            let build = ShardedBuild(
                paths: shardPaths, identifierBase: mapping.identifierBase,
                commonWords: try SearchableIndex.commonWords(of: sample),
                metadata: [Self.storeKey: store.uuid, SearchIndexLayout.versionKey: SearchIndexLayout.version])
            let cursor: Int64
            do {
                cursor = try store.read { reader -> Int64 in
                    let cursor = try reader.lastChangeSequence()
                    let runs = shardPaths.count
                    let total = progress == nil ? 0 : try reader.projectCount() + reader.itemCount()
                    var read = 0
                    progress?(0, total)
                    try mapping.forEachDocument(in: reader, runs: runs, batch: StoreReader.streamBatch) { run, chunk in
                        try build.add(chunk, to: run)
                        read += chunk.count
                        progress?(read, max(read, total))
                    }
                    return cursor
                }
            } catch {
                // A builder's failure is the cause when there is one; the reader only stopped because of it.
                try build.finish(clientState: nil)
                throw error
            }
            let built = try build.finish(clientState: String(cursor))
            report.documentsWritten = built.documents
            report.skipped = built.skipped.map { Report.Skipped(uri: $0.uri, reason: $0.reason) }
            try SearchableIndex.addSpellings(toShards: shardPaths)
            if options.compacted { try SearchableIndex.merge(shardPaths, into: path) }
            try location.makeCurrent(generation)
            health.record(generation)
            location.removeStaleGenerations()  // the old generation and the shards (`db-N.shard-K`)
            report.cursor = cursor
        }
    }
}

/// Shard builders, each on its own thread with its own ``SearchableIndex``, each taking chunks of documents from
/// its own bounded queue that the store reader fills: reading never runs far ahead, and a failed builder stops
/// the reader at its next hand-over.
final class ShardedBuild: @unchecked Sendable {
    struct Outcome {
        var documents = 0
        var skipped: [(uri: String, reason: String)] = []
    }

    private let condition = NSCondition()
    // Guarded by `condition`:
    private var queues: [[[SearchableItem]]]
    private var readerDone = false
    private var clientState: String?
    private var failure: (any Error)?
    private var running: Int
    private var outcome = Outcome()

    /// Chunks a shard's queue holds before the reader waits for its builder.
    private static let capacity = 4

    init(paths: [String], identifierBase: String, commonWords: [String], metadata: [String: String]) {
        running = paths.count
        queues = Array(repeating: [], count: paths.count)
        // One numbering of the positional terms for all the shards: a term has one number in the merged index.
        let shards = SearchableIndex.Shards()
        for (shard, path) in paths.enumerated() {
            let thread = Thread { [self] in
                build(
                    shard: shard, path: path, identifierBase: identifierBase, commonWords: commonWords,
                    metadata: metadata, shards: shards)
            }
            thread.name = "spotlite rebuild"
            thread.start()
        }
    }

    /// Hands a chunk to the builder of `shard`, waiting while its queue is full. Throws the first builder's failure.
    func add(_ chunk: [SearchableItem], to shard: Int) throws {
        condition.lock()
        defer { condition.unlock() }
        while queues[shard].count >= Self.capacity && failure == nil { condition.wait() }
        if let failure { throw failure }
        queues[shard].append(chunk)
        condition.broadcast()
    }

    /// Tells the builders there is no more, waits for them, and returns what they wrote; throws the first
    /// builder's failure. With a nil `clientState` the builders stop without committing (the reader failed).
    @discardableResult
    func finish(clientState: String?) throws -> Outcome {
        condition.lock()
        defer { condition.unlock() }
        readerDone = true
        self.clientState = clientState
        if clientState == nil && failure == nil { failure = CancellationError() }
        condition.broadcast()
        while running > 0 { condition.wait() }
        if let failure, !(failure is CancellationError) { throw failure }
        return outcome
    }

    /// The next chunk of `shard`, or nil when the reader is done and the queue empty (or the build failed).
    private func next(for shard: Int) -> [SearchableItem]? {
        condition.lock()
        defer { condition.unlock() }
        while queues[shard].isEmpty && !readerDone && failure == nil { condition.wait() }
        guard failure == nil, !queues[shard].isEmpty else { return nil }
        let chunk = queues[shard].removeFirst()
        condition.broadcast()
        return chunk
    }

    private func build(
        shard: Int, path: String, identifierBase: String, commonWords: [String], metadata: [String: String],
        shards: SearchableIndex.Shards
    ) {
        var written = 0
        var skipped: [(uri: String, reason: String)] = []
        do {
            let index = try SearchableIndex(
                path: path, durable: false, bulkLoad: true, identifierBase: identifierBase, commonWords: commonWords,
                shards: shards)
            while let chunk = next(for: shard) {
                try index.indexSearchableItems(chunk) { item, error in
                    skipped.append((item.uniqueIdentifier, error.message))
                }
                written += chunk.count
            }
            condition.lock()
            let state = failure == nil ? clientState : nil
            condition.unlock()
            if let state {
                for (key, value) in metadata { try index.setMetadata(key, value) }
                try index.commit(clientState: state)
            }
            try index.close()
        } catch {
            condition.lock()
            if failure == nil { failure = error }
            condition.unlock()
        }
        condition.lock()
        outcome.documents += written - skipped.count
        outcome.skipped += skipped
        running -= 1
        condition.broadcast()
        condition.unlock()
    }
}
