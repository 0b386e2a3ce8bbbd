import Foundation
import GRDB

/// A saved query whose results are followed: after CloudKit's `CKQuerySubscription`, but one per query — saving
/// the same (normalised) query again gives the same subscription, never a duplicate.
public struct Subscription: Sendable, Equatable {
    public enum Syntax: String, Sendable {
        case spotlite
        case spotlight
    }

    public var id: String
    /// The query as it was first saved.
    public var query: String
    public var syntax: Syntax
    /// The change-log position its results (members) and events are at.
    public var cursor: Int64
    /// Events at or before this position were pruned with the change log: a client resuming before it gets a
    /// `reset` event.
    public var eventsPrunedThrough: Int64
    public var createdAt: String
}

/// A row of a subscription's results, by kind and id.
public struct SubscriptionMember: Hashable, Sendable {
    public var kind: TrackerURI.Kind
    public var id: String

    public init(kind: TrackerURI.Kind, id: String) {
        self.kind = kind
        self.id = id
    }
}

/// Something that happened to a subscription's results: a row entered them (`added`), changed while in them
/// (`changed`), or left them (`removed`, deleted or no longer matching); or the subscription lost track of the
/// change log and starts again from its current results (`reset`).
public struct SubscriptionEvent: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case added, changed, removed, reset
    }

    /// The change-log position of the change behind the event (for `reset`, the position it starts again at).
    public var position: Int64
    /// The event's place among those of the same position (a renamed project changes all its items at once).
    public var ordinal: Int
    public var kind: Kind
    /// The row; nil for `reset`.
    public var member: SubscriptionMember?

    public init(position: Int64, ordinal: Int, kind: Kind, member: SubscriptionMember?) {
        self.position = position
        self.ordinal = ordinal
        self.kind = kind
        self.member = member
    }

    /// `position.ordinal`: the event's id in a stream (Server-Sent Events' `id:`), in the order events happen.
    public var id: String { "\(position).\(ordinal)" }

    /// The position and ordinal of an event id, or nil for text that is not one.
    public static func parse(id: String) -> (position: Int64, ordinal: Int)? {
        let parts = id.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let position = Int64(parts[0]), position >= 0, let ordinal = Int(parts[1]),
            ordinal >= 0
        else { return nil }
        return (position, ordinal)
    }

    /// Where to resume a stream: after the event `text` names (`position.ordinal`), or after every event of the
    /// change-log position `text` names alone (`0`: every event kept); nil for anything else.
    public static func parse(resumingAfter text: String) -> (position: Int64, ordinal: Int)? {
        if let id = parse(id: text) { return id }
        guard text.allSatisfy(\.isASCII), let position = Int64(text), position >= 0 else { return nil }
        return (position, Int.max)
    }
}

/// How much a store's subscriptions may hold, checked when one is made: each follows rows of the store (its
/// results are kept in it), so saved queries without a bound could grow the store without one.
public struct SubscriptionLimits: Sendable, Equatable {
    /// Subscriptions a store holds at most.
    public var maximumSubscriptions = 100
    /// Rows one subscription follows at most: a query matching more is too broad to follow.
    public var maximumRows = 10_000
    /// Rows all of a store's subscriptions follow together, at most.
    public var maximumRowsInTotal = 100_000

    public init() {}

    /// The most a subscription's results are ever read to: what ``maximumRows`` was before it was configurable.
    public static let rowsReadOnReset = 100_000
}

extension TrackerStore {
    /// The subscription for `normalized` (in `syntax`), made from `start` (the query's results at change-log
    /// position `cursor`) if there is none yet. Returns it, and whether it was made now.
    ///
    /// Throws ``StoreError/Code-swift.struct/limitReached`` when making it would pass `limits` (the store holds
    /// ``SubscriptionLimits/maximumSubscriptions`` already, or the rows of all of them would pass
    /// ``SubscriptionLimits/maximumRowsInTotal``); counted in the same transaction that saves it.
    public func saveSubscription(
        query: String, syntax: Subscription.Syntax, normalized: String, cursor: Int64, members: [SubscriptionMember],
        limits: SubscriptionLimits = SubscriptionLimits()
    ) throws(StoreError) -> (subscription: Subscription, created: Bool) {
        try write { db in
            if let existing = try Self.subscription(db, syntax: syntax, normalized: normalized) {
                return (existing, false)
            }
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM subscriptions") ?? 0
            if count >= limits.maximumSubscriptions {
                throw StoreError(
                    .limitReached,
                    "the store holds \(count) subscriptions, the most allowed (\(limits.maximumSubscriptions)); "
                        + "delete one it no longer needs")
            }
            let rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM subscription_members") ?? 0
            if rows + members.count > limits.maximumRowsInTotal {
                throw StoreError(
                    .limitReached,
                    "the store's subscriptions follow \(rows) rows; this one would add \(members.count), past the "
                        + "\(limits.maximumRowsInTotal) allowed in all: subscribe to a narrower query, or delete one")
            }
            let id = UUID().uuidString.lowercased()
            try db.execute(
                sql: "INSERT INTO subscriptions (id, query, syntax, normalized, cursor) VALUES (?, ?, ?, ?, ?)",
                arguments: [id, query, syntax.rawValue, normalized, cursor])
            let insert = try db.cachedStatement(
                sql: "INSERT INTO subscription_members (subscription_id, entity, entity_id) VALUES (?, ?, ?)")
            for member in members {
                try insert.execute(arguments: [id, member.kind.rawValue, member.id])
            }
            guard let made = try Self.subscription(db, id: id) else {
                throw StoreError(.database, "the subscription \(id) vanished as it was saved")
            }
            return (made, true)
        }
    }

    /// Deletes a subscription with its results and events; false if there was none.
    @discardableResult
    public func deleteSubscription(id: String) throws(StoreError) -> Bool {
        try write { db in
            try db.execute(sql: "DELETE FROM subscriptions WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    /// Records what a subscription's results did between its cursor and `cursor`: its events, the rows that
    /// entered and left, and the new cursor — all at once, and only if the subscription is still at `expected`
    /// (another process following it may have recorded the same stretch first). Returns whether it recorded.
    public func recordSubscriptionEvents(
        id: String, expected: Int64, cursor: Int64, events: [SubscriptionEvent], entered: [SubscriptionMember],
        left: [SubscriptionMember], resetMembers: Bool = false
    ) throws(StoreError) -> Bool {
        try write { db in
            try db.execute(
                sql: "UPDATE subscriptions SET cursor = ? WHERE id = ? AND cursor = ?",
                arguments: [cursor, id, expected])
            guard db.changesCount == 1 else { return false }
            if resetMembers {
                try db.execute(sql: "DELETE FROM subscription_members WHERE subscription_id = ?", arguments: [id])
            }
            let insertMember = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO subscription_members (subscription_id, entity, entity_id) VALUES (?, ?, ?)")
            for member in entered {
                try insertMember.execute(arguments: [id, member.kind.rawValue, member.id])
            }
            let deleteMember = try db.cachedStatement(
                sql: "DELETE FROM subscription_members WHERE subscription_id = ? AND entity = ? AND entity_id = ?")
            for member in left {
                try deleteMember.execute(arguments: [id, member.kind.rawValue, member.id])
            }
            let insertEvent = try db.cachedStatement(
                sql: """
                    INSERT INTO subscription_events (subscription_id, seq, n, kind, entity, entity_id)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """)
            for event in events {
                try insertEvent.execute(arguments: [
                    id, event.position, event.ordinal, event.kind.rawValue, event.member?.kind.rawValue ?? "",
                    event.member?.id ?? "",
                ])
            }
            return true
        }
    }

    static func subscription(_ db: Database, id: String) throws -> Subscription? {
        try Row.fetchOne(db, sql: "SELECT \(subscriptionColumns) FROM subscriptions WHERE id = ?", arguments: [id])
            .map(Subscription.init(row:))
    }

    static func subscription(_ db: Database, syntax: Subscription.Syntax, normalized: String) throws -> Subscription? {
        try Row.fetchOne(
            db, sql: "SELECT \(subscriptionColumns) FROM subscriptions WHERE syntax = ? AND normalized = ?",
            arguments: [syntax.rawValue, normalized]
        ).map(Subscription.init(row:))
    }

    static let subscriptionColumns = "id, query, syntax, cursor, events_pruned_through, created_at"
}

extension Subscription {
    init(row: Row) {
        self.init(
            id: row[0], query: row[1], syntax: Syntax(rawValue: row[2]) ?? .spotlite, cursor: row[3],
            eventsPrunedThrough: row[4], createdAt: row[5])
    }
}

extension StoreReader {
    /// Every subscription, oldest first.
    public func subscriptions() throws -> [Subscription] {
        try Row.fetchAll(
            db, sql: "SELECT \(TrackerStore.subscriptionColumns) FROM subscriptions ORDER BY created_at, id"
        ).map(Subscription.init(row:))
    }

    /// The subscription `id`, or nil.
    public func subscription(id: String) throws -> Subscription? {
        try TrackerStore.subscription(db, id: id)
    }

    /// A subscription's current results (at its cursor).
    public func subscriptionMembers(id: String) throws -> Set<SubscriptionMember> {
        var members = Set<SubscriptionMember>()
        let rows = try Row.fetchCursor(
            db, sql: "SELECT entity, entity_id FROM subscription_members WHERE subscription_id = ?", arguments: [id])
        while let row = try rows.next() {
            if let kind = TrackerURI.Kind(rawValue: row[0]) {
                members.insert(SubscriptionMember(kind: kind, id: row[1]))
            }
        }
        return members
    }

    /// Which of `rows` are among a subscription's current results.
    public func subscriptionMembers(id: String, among rows: [SubscriptionMember]) throws -> Set<SubscriptionMember> {
        var found = Set<SubscriptionMember>()
        for kind in TrackerURI.Kind.allCases {
            let ids = rows.filter { $0.kind == kind }.map(\.id)
            for chunk in ids.chunked(500) {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let present = try String.fetchAll(
                    db,
                    sql: """
                        SELECT entity_id FROM subscription_members
                        WHERE subscription_id = ? AND entity = ? AND entity_id IN (\(marks))
                        """, arguments: StatementArguments([id, kind.rawValue] + Array(chunk)))
                for entity in present { found.insert(SubscriptionMember(kind: kind, id: entity)) }
            }
        }
        return found
    }

    /// Up to `limit` of a subscription's events after (`position`, `ordinal`), in order.
    public func subscriptionEvents(id: String, after position: Int64, ordinal: Int, limit: Int) throws
        -> [SubscriptionEvent]
    {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT seq, n, kind, entity, entity_id FROM subscription_events
                WHERE subscription_id = ? AND (seq > ? OR (seq = ? AND n > ?))
                ORDER BY seq, n LIMIT ?
                """, arguments: [id, position, position, ordinal, limit])
        return rows.map { row in
            let kind: String = row[3]
            let member = TrackerURI.Kind(rawValue: kind).map { SubscriptionMember(kind: $0, id: row[4]) }
            return SubscriptionEvent(
                position: row[0], ordinal: row[1], kind: SubscriptionEvent.Kind(rawValue: row[2]) ?? .reset,
                member: member)
        }
    }

    /// The last change to each row in (`cursor`, `through`], and to each project, by position: what a subscription
    /// must look at again. Throws ``ChangeFeedGap`` when the log no longer holds `cursor`.
    public func changedRows(after cursor: Int64, through: Int64) throws -> [SubscriptionMember: Int64] {
        let pruned = try logPrunedThrough()
        if cursor < pruned { throw ChangeFeedGap.pruned(cursor: cursor, prunedThrough: pruned) }
        var last: [SubscriptionMember: Int64] = [:]
        let rows = try Row.fetchCursor(
            db, sql: "SELECT seq, entity, entity_id FROM change_log WHERE seq > ? AND seq <= ? ORDER BY seq",
            arguments: [cursor, through])
        while let row = try rows.next() {
            guard let kind = TrackerURI.Kind(rawValue: row[1]) else { continue }
            last[SubscriptionMember(kind: kind, id: row[2])] = row[0]
        }
        return last
    }

    /// The ids of the items that are in `projects` now.
    public func itemIDs(inProjects projects: some Collection<String>) throws -> [(id: String, projectID: String)] {
        var found: [(id: String, projectID: String)] = []
        for chunk in Array(projects).chunked(500) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let rows = try Row.fetchAll(
                db, sql: "SELECT id, project_id FROM items WHERE project_id IN (\(marks))",
                arguments: StatementArguments(Array(chunk)))
            found += rows.map { ($0[0], $0[1]) }
        }
        return found
    }
}
