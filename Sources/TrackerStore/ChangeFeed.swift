import GRDB

/// What the index must do to catch up with a range of the change log, coalesced per entity: the last
/// change wins, and only the rows' current state matters.
public struct ChangeBatch: Sendable {
    /// The sequence number to record as the index's cursor once this batch is applied.
    public var throughSequence: Int64
    /// How many change-log rows the batch covers.
    public var changeCount: Int
    /// When the batch's first change was logged (seconds since 1970), nil for an empty batch.
    public var firstChangeTime: Int64?
    /// Projects that exist and changed (to index or re-index).
    public var projects: [Project]
    /// Items that exist and must be (re)indexed: those that changed, plus every item of a changed
    /// project (a renamed project changes what its items show and what `project:` finds).
    public var items: [Item]
    /// Every project referenced by ``items``, keyed by id.
    public var itemProjects: [String: Project]
    /// Items that changed and no longer exist.
    public var deletedItemIDs: [String]
    /// Projects that changed and no longer exist (their whole domain goes).
    public var deletedProjectIDs: [String]

    public var isEmpty: Bool { changeCount == 0 }
}

/// Why the log cannot bring an index up to date, so it must be rebuilt from the rows.
///
/// ``TrackerStore/read(_:)`` reports it as a ``StoreError`` with code ``StoreError/Code-swift.struct/changeLogGap``
/// and this as its cause.
public enum ChangeFeedGap: Error, Sendable, Equatable, CustomStringConvertible {
    /// The log was pruned past the cursor.
    case pruned(cursor: Int64, prunedThrough: Int64)
    /// The cursor is ahead of anything this store ever logged (another store, or a restored backup).
    case ahead(cursor: Int64, last: Int64)

    public var description: String {
        switch self {
        case .pruned(let cursor, let through):
            return "the change log was pruned through \(through), past the index's cursor \(cursor)"
        case .ahead(let cursor, let last):
            return "the index's cursor \(cursor) is ahead of the store's last change \(last)"
        }
    }
}

extension StoreReader {
    /// Reads up to `limit` changes after `cursor` (and none after `through`, when given) and the current rows they
    /// touch, in this one snapshot.
    ///
    /// Throws ``ChangeFeedGap`` when the log cannot serve `cursor`.
    public func changes(after cursor: Int64, limit: Int, through bound: Int64? = nil) throws -> ChangeBatch {
        let last = try lastChangeSequence()
        if cursor > last { throw ChangeFeedGap.ahead(cursor: cursor, last: last) }
        let pruned = try logPrunedThrough()
        if cursor < pruned { throw ChangeFeedGap.pruned(cursor: cursor, prunedThrough: pruned) }

        var through = cursor
        var count = 0
        var firstChangeTime: Int64?
        var itemIDs: [String] = []
        var projectIDs: [String] = []
        var seenItems = Set<String>()
        var seenProjects = Set<String>()
        let rows = try Row.fetchCursor(
            db,
            sql: "SELECT seq, entity, entity_id, changed_at FROM change_log WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?",
            arguments: [cursor, bound ?? Int64.max, limit])
        while let row = try rows.next() {
            through = row["seq"]
            if count == 0 { firstChangeTime = Timestamp.seconds(row["changed_at"]) }
            count += 1
            let id: String = row["entity_id"]
            if row["entity"] == "item" {
                if seenItems.insert(id).inserted { itemIDs.append(id) }
            } else if seenProjects.insert(id).inserted {
                projectIDs.append(id)
            }
        }

        let liveProjects = try projects(ids: projectIDs)
        let liveItems = try items(ids: itemIDs)
        var items = itemIDs.compactMap { liveItems[$0] }
        var itemSet = Set(items.map(\.id))
        for item in try self.items(inProjects: liveProjects.keys) where itemSet.insert(item.id).inserted {
            items.append(item)
        }
        var itemProjects = liveProjects
        let missing = Set(items.map(\.projectID)).subtracting(itemProjects.keys)
        for (id, project) in try self.projects(ids: missing) { itemProjects[id] = project }

        return ChangeBatch(
            throughSequence: through,
            changeCount: count,
            firstChangeTime: firstChangeTime,
            projects: projectIDs.compactMap { liveProjects[$0] },
            items: items,
            itemProjects: itemProjects,
            deletedItemIDs: itemIDs.filter { liveItems[$0] == nil },
            deletedProjectIDs: projectIDs.filter { liveProjects[$0] == nil }
        )
    }
}

extension TrackerStore {
    /// Deletes change-log rows with `seq <= sequence` (those every index has applied) and records that,
    /// so an index older than that is rebuilt rather than silently missing changes.
    @discardableResult
    public func pruneChangeLog(through sequence: Int64) throws(StoreError) -> Int {
        try write { db in
            try db.execute(sql: "DELETE FROM change_log WHERE seq <= ?", arguments: [sequence])
            let removed = db.changesCount
            try db.execute(
                sql: "UPDATE store_info SET log_pruned_through = max(log_pruned_through, ?)", arguments: [sequence])
            return removed
        }
    }
}
