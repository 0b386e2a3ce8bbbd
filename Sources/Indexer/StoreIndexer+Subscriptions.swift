import Foundation
import SearchIndex
import TrackerStore

extension StoreIndexer {
    /// A query as subscriptions compare queries: words folded and lowercased (operators kept), white space
    /// collapsed — `Leaking  TAP` and `leaking tap` are one subscription.
    public static func normalizedQuery(_ text: String, syntax: Subscription.Syntax) -> String {
        let words = syntax == .spotlite ? TextNormalizer.query(text) : text
        return words.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The subscription for `text`: saved with the query's results in the index now (caught up first when it can
    /// be, as a search is), or the one already saved for the same normalised query.
    ///
    /// Throws ``IndexerError/Code-swift.struct/querySyntax`` for a query that does not parse, holds a control
    /// character (a NUL or an escape is no part of a query, and normalising it away would give another query's
    /// subscription), or matches more than ``SubscriptionLimits/maximumRows`` rows (too broad to follow); and the
    /// store's ``StoreError/Code-swift.struct/limitReached`` when the store holds as many subscriptions, or rows,
    /// as `limits` allow.
    public func subscribe(
        _ text: String, syntax: Subscription.Syntax, limits: SubscriptionLimits = SubscriptionLimits(),
        clock: QueryClock = .system
    ) throws(IndexerError) -> (subscription: Subscription, created: Bool) {
        if let control = text.unicodeScalars.first(where: { VisibleText.isControl($0, keepingLineBreaks: true) }) {
            throw IndexerError(
                .querySyntax,
                "the query holds the control character \(VisibleText.escaped(String(control))); "
                    + "subscribe to words, phrases and filters")
        }
        var options = SearchOptions()
        options.syntax = syntax == .spotlight ? .spotlight : .spotlite
        options.clock = clock
        // A bad query is refused before anything is built.
        let checked = try SearchPipeline.parse(text, options: options, reader: nil, path: location.root)
        let fresh = try freshReader(reusing: nil)
        let reader = fresh.reader
        let query =
            SearchPipeline.parseReadsIndex(text, options: options)
            ? try SearchPipeline.parse(text, options: options, reader: reader, path: location.root) : checked
        let normalized = Self.normalizedQuery(text, syntax: syntax)
        return try indexer(location.root) {
            let cursor = Int64(try reader.fetchLastClientState() ?? "0") ?? 0
            guard let matches = try reader.allMatches(query, limit: limits.maximumRows) else {
                throw IndexerError(
                    .querySyntax,
                    "'\(VisibleText.escaped(text))' matches more than \(limits.maximumRows) items and projects; "
                        + "subscribe to a narrower query")
            }
            return try store.saveSubscription(
                query: text, syntax: syntax, normalized: normalized, cursor: cursor,
                members: matches.compactMap(Self.member(identifier:)), limits: limits)
        }
    }

    /// Brings every subscription to the index's committed cursor: for each row that changed since a subscription's
    /// cursor (an item, a project, or an item of a changed project), whether the query matches it now against
    /// whether it did, recorded as `added` / `changed` / `removed` events with the change-log position of the
    /// change — whoever made it. A subscription whose changes the log no longer holds gets one `reset` event and
    /// its current results. Returns the ids of the subscriptions that got events.
    ///
    /// Safe to run from several processes: a subscription's stretch is recorded once (the first to record wins;
    /// the others find its cursor moved and leave it).
    @discardableResult
    public func updateSubscriptions(reader given: SearchReader? = nil, clock: QueryClock = .system)
        throws(IndexerError) -> [String]
    {
        let subscriptions = try indexer(location.root) { try store.read { try $0.subscriptions() } }
        guard !subscriptions.isEmpty else { return [] }
        let reader: SearchReader
        if let given {
            reader = given
        } else {
            reader = try indexer(location.root) { try openReader() }
        }
        let cursor = try indexer(location.root) { Int64(try reader.fetchLastClientState() ?? "0") ?? 0 }
        var updated: [String] = []
        for subscription in subscriptions where subscription.cursor < cursor {
            if try update(subscription, to: cursor, reader: reader, clock: clock) { updated.append(subscription.id) }
        }
        return updated
    }

    private func update(_ subscription: Subscription, to cursor: Int64, reader: SearchReader, clock: QueryClock)
        throws(IndexerError) -> Bool
    {
        var options = SearchOptions()
        options.syntax = subscription.syntax == .spotlight ? .spotlight : .spotlite
        options.clock = clock
        let query: SearchQuery
        do {
            query = try SearchPipeline.parse(subscription.query, options: options, reader: reader, path: location.root)
        } catch  where error.code == .querySyntax {
            return false  // saved when it parsed; a wildcard may now expand too far: try again at the next change
        }
        return try indexer(location.root) {
            let changed: [SubscriptionMember: Int64]
            do {
                changed = try store.read { reader in
                    var rows = try reader.changedRows(after: subscription.cursor, through: cursor)
                    // A changed project changes what its items show (their project's title) and what `project:` finds.
                    let projects = rows.filter { $0.key.kind == .project }
                    let projectChanges = Dictionary(uniqueKeysWithValues: projects.map { ($0.key.id, $0.value) })
                    for (item, project) in try reader.itemIDs(inProjects: projectChanges.keys) {
                        let key = SubscriptionMember(kind: .item, id: item)
                        rows[key] = max(rows[key] ?? 0, projectChanges[project] ?? 0)
                    }
                    // And so are the messages on it and on its items.
                    for message in try reader.messages(inProjects: projectChanges.keys) {
                        guard let project = try reader.projectID(of: message) else { continue }
                        let key = SubscriptionMember(kind: .message, id: message.id)
                        rows[key] = max(rows[key] ?? 0, projectChanges[project] ?? 0)
                    }
                    return rows
                }
            } catch let error as StoreError where error.code == .changeLogGap {
                return try reset(subscription, to: cursor, query: query, reader: reader)
            }
            let identifiers = changed.keys.map { mapping.uri($0.kind, $0.id) }
            let matching = try reader.matching(query, among: identifiers)
            let were = try store.read { try $0.subscriptionMembers(id: subscription.id, among: Array(changed.keys)) }
            var events: [SubscriptionEvent] = []
            var entered: [SubscriptionMember] = []
            var left: [SubscriptionMember] = []
            let ordered = changed.sorted {
                ($0.value, $0.key.kind.rawValue, $0.key.id) < ($1.value, $1.key.kind.rawValue, $1.key.id)
            }
            var ordinal = 0
            var lastPosition: Int64 = -1
            for (member, position) in ordered {
                let now = matching.contains(mapping.uri(member.kind, member.id))
                let was = were.contains(member)
                let kind: SubscriptionEvent.Kind
                switch (was, now) {
                case (false, true):
                    kind = .added
                    entered.append(member)
                case (true, true): kind = .changed
                case (true, false):
                    kind = .removed
                    left.append(member)
                case (false, false): continue
                }
                ordinal = position == lastPosition ? ordinal + 1 : 0
                lastPosition = position
                events.append(SubscriptionEvent(position: position, ordinal: ordinal, kind: kind, member: member))
            }
            return try store.recordSubscriptionEvents(
                id: subscription.id, expected: subscription.cursor, cursor: cursor, events: events, entered: entered,
                left: left) && !events.isEmpty
        }
    }

    /// The change log no longer reaches the subscription's cursor: one `reset` event, and its results read anew.
    private func reset(_ subscription: Subscription, to cursor: Int64, query: SearchQuery, reader: SearchReader)
        throws -> Bool
    {
        let matches = try reader.allMatches(query, limit: SubscriptionLimits.rowsReadOnReset) ?? []
        return try store.recordSubscriptionEvents(
            id: subscription.id, expected: subscription.cursor, cursor: cursor,
            events: [SubscriptionEvent(position: cursor, ordinal: 0, kind: .reset, member: nil)],
            entered: matches.compactMap(Self.member(identifier:)), left: [], resetMembers: true)
    }

    /// The row an index identifier (a URI) names.
    static func member(identifier: String) -> SubscriptionMember? {
        guard let uri = try? TrackerURI(parsing: identifier) else { return nil }
        return SubscriptionMember(kind: uri.kind, id: uri.entityID)
    }
}
