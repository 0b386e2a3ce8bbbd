import Foundation
import SearchIndex
import TrackerStore

/// The one way changes reach an index: the current generation open for writing at its cursor, and the store's change
/// log after that cursor applied in batches, each batch written and committed with its cursor in one Xapian commit.
///
/// Catch-up (`spotlite index`, a search's catch-up) and the watcher (`watch`, `serve`) write through it; a rebuild
/// hands its new generation to one (``StoreIndexer/openCurrentForWriting()``). A crash at any point leaves the index at
/// some committed cursor, and the next applier resumes there. Owned by one thread: not `Sendable`.
final class ChangeApplier {
    let indexer: StoreIndexer
    /// The index being written.
    let index: SearchableIndex
    /// The generation directory `index` is in.
    let generation: String
    /// The last change applied (and committed).
    private(set) var cursor: Int64

    init(indexer: StoreIndexer, index: SearchableIndex, generation: String, cursor: Int64) {
        self.indexer = indexer
        self.index = index
        self.generation = generation
        self.cursor = cursor
    }

    /// Applies every change logged after the cursor (through `through`, if given), `batchSize` changes a commit at
    /// most, until none is left or `shouldStop` says so between batches. `afterBatch` is told of each batch committed
    /// and what it wrote. A failed batch is cancelled (nothing of it is committed) and its error thrown.
    @discardableResult
    func applyPending(
        through: Int64? = nil, batchSize: Int, shouldStop: () -> Bool = { false },
        afterBatch: (ChangeBatch, StoreIndexer.Report) -> Void = { _, _ in }
    ) throws -> StoreIndexer.Report {
        var total = StoreIndexer.Report()
        total.cursor = cursor
        // What the log holds ahead of the cursor, read once a batch would reach past what it has seen: a row changed
        // again later in the backlog is left for that change, so that each row is written once.
        var horizon = ChangeHorizon(through: cursor)
        while !shouldStop() {
            let after = cursor
            // Nothing logged since the cursor: one statement says so, where the batch's read is a transaction and a
            // dozen. A watcher wakes at every file event of a commit, and looks again for the commits it could not yet
            // see, so most of its reads find nothing. (A log behind the cursor is read, and refused as a gap.)
            if (try? indexer.store.lastChangeSequence()) == after { break }
            let batch = try indexer.store.read { reader in
                if !horizon.isComplete && horizon.through - after < Int64(batchSize) {
                    horizon = try reader.changeHorizon(after: after, through: through)
                }
                return try reader.changes(after: after, limit: batchSize, through: through, horizon: horizon)
            }
            if batch.isEmpty { break }
            var report = StoreIndexer.Report()
            do {
                try apply(batch, report: &report)
            } catch {
                try? index.cancelIndexBatch()
                throw error
            }
            total.add(report)
            afterBatch(batch, report)
        }
        return total
    }

    /// Applies one batch of the change log in one Xapian transaction, committed with the batch's cursor.
    /// Documents Xapian refuses are skipped and added to `report`; everything else is written.
    func apply(_ batch: ChangeBatch, report: inout StoreIndexer.Report) throws(SearchIndexError) {
        let mapping = indexer.mapping
        try index.beginIndexBatch()
        try index.deleteSearchableItems(
            withDomainIdentifiers: batch.deletedProjectIDs.map { mapping.uri(.project, $0) })
        try index.deleteSearchableItems(
            withIdentifiers: batch.deletedItemIDs.map { mapping.uri(.item, $0) }
                + batch.deletedMessageIDs.map { mapping.uri(.message, $0) })
        var documents = batch.projects.map(mapping.searchableItem(for:))
        for item in batch.items {
            guard let project = batch.itemProjects[item.projectID] else { continue }
            documents.append(mapping.searchableItem(for: item, in: project))
        }
        for message in batch.messages {
            guard let project = batch.messageProjectIDs[message.id].flatMap({ batch.itemProjects[$0] }) else {
                continue
            }
            documents.append(mapping.searchableItem(for: message, in: project))
        }
        var skipped: [StoreIndexer.Report.Skipped] = []
        try index.indexSearchableItems(documents) { document, error in
            skipped.append(.init(uri: document.uniqueIdentifier, reason: error.message))
        }
        try index.endIndexBatch(clientState: String(batch.throughSequence))
        cursor = batch.throughSequence
        report.batches += 1
        report.changesApplied += batch.changeCount
        report.documentsWritten += documents.count - skipped.count
        report.skipped += skipped
        report.cursor = batch.throughSequence
    }

    /// Commits what is applied and closes the index.
    func close() throws(SearchIndexError) {
        try index.close()
    }
}

extension StoreIndexer.Report {
    /// Adds what `other`, a later step, did.
    mutating func add(_ other: StoreIndexer.Report) {
        batches += other.batches
        changesApplied += other.changesApplied
        documentsWritten += other.documentsWritten
        skipped += other.skipped
        cursor = other.cursor
    }
}
