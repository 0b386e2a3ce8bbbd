import Foundation
import SearchIndex
import TrackerStore

/// What `verify` found: store rows missing from the index, documents that are stale, and documents of rows
/// that are gone.
public struct VerifyReport: Sendable {
    public var missing: [String] = []
    public var stale: [String] = []
    public var extra: [String] = []
    /// Rows in the store and documents in the index that were compared (of a damaged index: counted as far as
    /// they can be; nil when the index cannot say how many documents it holds).
    public var storeRows = 0
    public var indexDocuments: Int? = 0
    /// Changes logged after the index's cursor when verifying.
    public var changesBehind = 0
    /// Documents fixed by `--repair`.
    public var repaired = 0
    /// What Xapian's full check of the index's tables found wrong, if anything.
    public var damage: String?
    /// Set when `--repair` rebuilt a damaged index (and why).
    public var rebuilt: String?
    /// Links in the store to items of this store that are gone: the store's own state, which `--repair` leaves
    /// (the store is the source of truth), reported so that a person can remove or mend them.
    public var danglingLinks: [DanglingLink] = []

    /// A link whose target item is gone: the linking item's URI, the link's kind, the target's URI.
    public struct DanglingLink: Sendable, Equatable {
        public var from: String
        public var kind: String
        public var to: String
    }

    /// True when store and index agree and the index's tables are sound.
    public var isClean: Bool { missing.isEmpty && stale.isEmpty && extra.isEmpty && damage == nil }
}

extension StoreIndexer {
    /// The write lock's purpose while `spotlite verify --repair` writes.
    static let repairPurpose = "spotlite verify --repair"

    /// Checks every table of the index with Xapian's full check, then compares every store row with its index
    /// document (by fingerprint); read-only unless `repair`.
    ///
    /// With `repair`, takes the write lock and rebuilds a damaged index, or re-indexes missing and stale rows and
    /// deletes extra documents; then returns the report of a second comparison (with ``VerifyReport/repaired`` or
    /// ``VerifyReport/rebuilt`` set).
    public func verify(repair: Bool = false, lockTimeout: TimeInterval = defaultLockTimeout) throws(IndexerError)
        -> VerifyReport
    {
        try checkLocation()
        guard let generation = location.currentGeneration(), location.exists else {
            throw IndexerError(.index, "there is no index at \(location.root); build it with `spotlite index`")
        }
        // A repair writes: refused at once while a watcher keeps the index live, clean or not, as a rebuild is.
        if repair { try refuseIfKeptLive(purpose: Self.repairPurpose) }
        if liveWatcher() != nil {
            // Compare once the watcher has applied what the store holds now, not mid-way.
            _ = try waitUntilCurrent(timeout: lockTimeout)
        }
        if let damage = health.damage(generation) {
            var report = VerifyReport()
            report.damage = damage
            // What can still be counted: the store's rows, and the documents the index's header says it holds.
            report.storeRows = try indexer(location.root) {
                try store.read { try $0.projectCount() + $0.itemCount() + $0.messageCount() }
            }
            report.indexDocuments = try? indexer(location.root) { try openReader().documentCount() }
            guard repair else { return report }
            let lock = try acquireLock(timeout: lockTimeout, purpose: Self.repairPurpose)
            let rebuilt = try withExtendedLifetime(lock) { () throws(IndexerError) in
                try rebuildHoldingLock(reason: "the index is damaged (\(damage))")
            }
            report = try compare()
            report.rebuilt = rebuilt.rebuildReason
            return report
        }
        var report = try compare()
        guard repair, !report.isClean else { return report }
        let lock = try acquireLock(timeout: lockTimeout, purpose: Self.repairPurpose)
        try withExtendedLifetime(lock) { () throws(IndexerError) in
            try indexer(location.root) {
                guard let generation = location.currentGeneration() else { return }
                let index = try SearchableIndex(
                    path: location.path(of: generation), identifierBase: mapping.identifierBase)
                let wanted = Set(report.missing + report.stale)
                var documents: [SearchableItem] = []
                try store.read { reader in
                    let projects = Dictionary(uniqueKeysWithValues: try reader.allProjects().map { ($0.id, $0) })
                    for project in projects.values where wanted.contains(mapping.uri(.project, project.id)) {
                        documents.append(mapping.searchableItem(for: project))
                    }
                    let uris = wanted.compactMap { try? TrackerURI(parsing: $0) }
                    let itemIDs = uris.filter { $0.kind == .item }.map(\.entityID)
                    for item in try reader.items(ids: itemIDs).values {
                        if let project = projects[item.projectID] {
                            documents.append(mapping.searchableItem(for: item, in: project))
                        }
                    }
                    let messageIDs = uris.filter { $0.kind == .message }.map(\.entityID)
                    for message in try reader.messages(ids: messageIDs).values {
                        if let project = try reader.projectID(of: message).flatMap({ projects[$0] }) {
                            documents.append(mapping.searchableItem(for: message, in: project))
                        }
                    }
                }
                try index.beginIndexBatch()
                try index.deleteSearchableItems(withIdentifiers: report.extra)
                try index.indexSearchableItems(documents)
                try index.endIndexBatch(clientState: try index.fetchLastClientState() ?? "0")
                try index.close()
                health.record(generation)
            }
        }
        let fixed = report.missing.count + report.stale.count + report.extra.count
        report = try compare()
        report.repaired = fixed
        return report
    }

    /// Compares store and index; when they differ while a writer moved the index or the store meanwhile, compares
    /// again (up to three times), so that a change in flight is not reported as a difference.
    private func compare() throws(IndexerError) -> VerifyReport {
        var report = VerifyReport()
        for _ in 0..<3 {
            let before = try indexer(location.root) { (try openReader().fetchLastClientState(), try lastChange()) }
            report = try compareOnce()
            if report.isClean { return report }
            let after = try indexer(location.root) { (try openReader().fetchLastClientState(), try lastChange()) }
            if before == after { return report }
        }
        return report
    }

    private func compareOnce() throws(IndexerError) -> VerifyReport {
        try indexer(location.root) {
            let reader = try openReader()
            let indexed = try reader.fingerprints()
            let cursor = Int64(try reader.fetchLastClientState() ?? "0") ?? 0
            var report = VerifyReport()
            report.indexDocuments = indexed.count
            var seen = Set<String>()
            try store.read { storeReader in
                report.changesBehind = try storeReader.changeCount(after: cursor)
                report.danglingLinks = try storeReader.danglingLinks().map { link in
                    .init(from: mapping.uri(.item, link.itemID), kind: link.kind, to: mapping.uri(.item, link.targetID))
                }
                try mapping.forEachDocument(in: storeReader) { document in
                    seen.insert(document.uniqueIdentifier)
                    report.storeRows += 1
                    switch indexed[document.uniqueIdentifier] {
                    case nil: report.missing.append(document.uniqueIdentifier)
                    case document.fingerprint?: break
                    default: report.stale.append(document.uniqueIdentifier)
                    }
                }
            }
            report.extra = indexed.keys.filter { !seen.contains($0) }.sorted()
            return report
        }
    }
}
