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
    /// Projects that exist and changed (to index or re-index), but for those a later change rewrites.
    public var projects: [Project]
    /// Items that exist and must be (re)indexed: those that changed, plus every item of a changed
    /// project (a renamed project changes what its items show and what `project:` finds), but for those a later
    /// change rewrites (see ``ChangeHorizon``).
    public var items: [Item]
    /// Every project referenced by ``items``, keyed by id.
    public var itemProjects: [String: Project]
    /// Messages that must be (re)indexed: those that changed, plus those on a changed project or item (their
    /// domain and project title come from there), but for those a later change rewrites.
    public var messages: [Message] = []
    /// The project of each message of ``messages`` (its own, or its item's), keyed by message id; the projects
    /// are in ``itemProjects``.
    public var messageProjectIDs: [String: String] = [:]
    /// Messages that changed and no longer exist.
    public var deletedMessageIDs: [String] = []
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

/// The last change of each row in a stretch of the change log, read ahead of a catch-up: a row that changes again
/// later in the stretch is written only then, so that a catch-up writes each document once, however often its row
/// (or, for an item, its project) changed. A bulk import logs each project before its items: without this, a batch
/// that ended among those items wrote them once as the project's and again as their own.
public struct ChangeHorizon: Sendable {
    /// The last change the horizon saw; changes after it are unknown to it.
    public private(set) var through: Int64
    /// Whether the horizon read every change up to the bound it was read with (not cut at ``maximumChanges``).
    public internal(set) var isComplete = false
    private var lastItemChange: [String: Int64] = [:]
    private var lastProjectChange: [String: Int64] = [:]
    private var lastMessageChange: [String: Int64] = [:]

    /// Changes read ahead at most: the horizon's memory is bounded; rows changed beyond it may be written twice.
    public static let maximumChanges = 200_000

    /// A horizon that knows of no later change (nothing is held back).
    public init(through: Int64 = 0) { self.through = through }

    /// Whether the project changes again after `sequence` (within the horizon).
    public func projectChanges(_ id: String, after sequence: Int64) -> Bool {
        (lastProjectChange[id] ?? 0) > sequence
    }

    /// Whether an item of `projectID` is rewritten after `sequence` (within the horizon): the item changes again, or
    /// its project does (which re-indexes its items).
    public func itemChanges(_ id: String, in projectID: String, after sequence: Int64) -> Bool {
        (lastItemChange[id] ?? 0) > sequence || (lastProjectChange[projectID] ?? 0) > sequence
    }

    /// Whether a message is rewritten after `sequence` (within the horizon): it changes again, or what it is on
    /// does (which re-indexes its messages).
    public func messageChanges(_ message: Message, in projectID: String, after sequence: Int64) -> Bool {
        (lastMessageChange[message.id] ?? 0) > sequence || (lastProjectChange[projectID] ?? 0) > sequence
            || (message.itemID.map { (lastItemChange[$0] ?? 0) > sequence } ?? false)
    }

    mutating func note(entity: String, id: String, sequence: Int64) {
        switch entity {
        case "item": lastItemChange[id] = sequence
        case "message": lastMessageChange[id] = sequence
        default: lastProjectChange[id] = sequence
        }
        through = sequence
    }
}

extension StoreReader {
    /// The last change of each row among the changes after `cursor` (through `bound`, and at most
    /// ``ChangeHorizon/maximumChanges`` of them): what ``changes(after:limit:through:horizon:)`` holds back.
    public func changeHorizon(after cursor: Int64, through bound: Int64? = nil) throws -> ChangeHorizon {
        var horizon = ChangeHorizon(through: cursor)
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: "SELECT seq, entity, entity_id FROM change_log WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?"),
            arguments: [cursor, bound ?? Int64.max, ChangeHorizon.maximumChanges])
        var count = 0
        while let row = try rows.next() {
            horizon.note(entity: row[1], id: row[2], sequence: row[0])
            count += 1
        }
        horizon.isComplete = count < ChangeHorizon.maximumChanges
        return horizon
    }

    /// Reads up to `limit` changes after `cursor` (and none after `through`, when given) and the current rows they
    /// touch, in this one snapshot. A row that `horizon` says changes again later is left for that change: not
    /// written now (deletions always are).
    ///
    /// Throws ``ChangeFeedGap`` when the log cannot serve `cursor`.
    public func changes(
        after cursor: Int64, limit: Int, through bound: Int64? = nil, horizon: ChangeHorizon = ChangeHorizon()
    ) throws -> ChangeBatch {
        let last = try lastChangeSequence()
        if cursor > last { throw ChangeFeedGap.ahead(cursor: cursor, last: last) }
        let pruned = try logPrunedThrough()
        if cursor < pruned { throw ChangeFeedGap.pruned(cursor: cursor, prunedThrough: pruned) }

        var through = cursor
        var count = 0
        var firstChangeTime: Int64?
        var itemIDs: [String] = []
        var projectIDs: [String] = []
        var messageIDs: [String] = []
        var seenItems = Set<String>()
        var seenProjects = Set<String>()
        var seenMessages = Set<String>()
        // Cached, as the horizon's is: a watcher reads the log after every commit to the store.
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql:
                    "SELECT seq, entity, entity_id, changed_at FROM change_log WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?"
            ),
            arguments: [cursor, bound ?? Int64.max, limit])
        while let row = try rows.next() {
            through = row["seq"]
            if count == 0 { firstChangeTime = Timestamp.seconds(row["changed_at"]) }
            count += 1
            let id: String = row["entity_id"]
            switch row["entity"] as String {
            case "item":
                if seenItems.insert(id).inserted { itemIDs.append(id) }
            case "message":
                if seenMessages.insert(id).inserted { messageIDs.append(id) }
            default:
                if seenProjects.insert(id).inserted { projectIDs.append(id) }
            }
        }

        let liveProjects = try projects(ids: projectIDs)
        let liveItems = try items(ids: itemIDs)
        var items = itemIDs.compactMap { liveItems[$0] }
        var itemSet = Set(items.map(\.id))
        // A project that changes again later is written then, and its items with it.
        let written = liveProjects.filter { !horizon.projectChanges($0.key, after: through) }
        let projectItems = try self.items(inProjects: written.keys)
        for item in projectItems where itemSet.insert(item.id).inserted {
            items.append(item)
        }
        // Every item read so far, by id: the messages on them need their projects.
        var knownItems = liveItems
        for item in projectItems { knownItems[item.id] = item }
        items.removeAll { horizon.itemChanges($0.id, in: $0.projectID, after: through) }
        // Messages: those that changed, and those on what changed (a project's or an item's, whose title and domain
        // their documents carry).
        let liveMessages = try self.messages(ids: messageIDs)
        var messages = messageIDs.compactMap { liveMessages[$0] }
        var messageSet = Set(messages.map(\.id))
        let changedItems = itemIDs.filter { liveItems[$0] != nil }
        // (What `messages(inProjects:)` reads, from the items read above rather than reading them again.)
        let onWritten = try self.messages(onProjects: written.keys) + self.messages(onItems: projectItems.map(\.id))
        for message in try onWritten + self.messages(onItems: changedItems) where messageSet.insert(message.id).inserted
        {
            messages.append(message)
        }
        var messageProjectIDs: [String: String] = [:]
        let unread = messages.compactMap(\.itemID).filter { knownItems[$0] == nil }
        for (id, item) in try self.items(ids: unread) { knownItems[id] = item }
        messages.removeAll { message in
            guard let projectID = message.projectID ?? knownItems[message.itemID ?? ""]?.projectID else { return true }
            messageProjectIDs[message.id] = projectID
            return horizon.messageChanges(message, in: projectID, after: through)
        }

        var itemProjects = liveProjects
        let missing = Set(items.map(\.projectID)).union(messageProjectIDs.values).subtracting(itemProjects.keys)
        for (id, project) in try self.projects(ids: missing) { itemProjects[id] = project }

        return ChangeBatch(
            throughSequence: through,
            changeCount: count,
            firstChangeTime: firstChangeTime,
            projects: projectIDs.compactMap { written[$0] },
            items: items,
            itemProjects: itemProjects,
            messages: messages,
            messageProjectIDs: messageProjectIDs,
            deletedMessageIDs: messageIDs.filter { liveMessages[$0] == nil },
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
            // Subscriptions' events are kept as long as the changes behind them.
            if try db.tableExists("subscription_events") {
                try db.execute(sql: "DELETE FROM subscription_events WHERE seq <= ?", arguments: [sequence])
                try db.execute(
                    sql: "UPDATE subscriptions SET events_pruned_through = max(events_pruned_through, ?)",
                    arguments: [sequence])
            }
            return removed
        }
    }
}
