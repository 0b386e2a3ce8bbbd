import TrackerStore

/// The JSON of subscriptions and their events: the server's `/v1/subscriptions` and the data of its event
/// streams, and `spotlite subscribe`'s JSON Lines.
public enum SubscriptionJSON {
    public static func subscription(_ subscription: Subscription, storeID: String) -> JSON {
        .object([
            ("id", .string(subscription.id)),
            ("query", .string(subscription.query)),
            ("syntax", .string(subscription.syntax.rawValue)),
            ("position", .int(Int(subscription.cursor))),
            ("created", .string(subscription.createdAt)),
        ])
    }

    /// `{"subscriptions": [...]}`: `GET /v1/subscriptions` and `spotlite subscriptions --format json`.
    public static func list(_ subscriptions: [Subscription], storeID: String) -> JSON {
        .object([("subscriptions", .array(subscriptions.map { subscription($0, storeID: storeID) }))])
    }

    /// One event: its id (`position.ordinal`), kind, change-log position and the row's URI (null for `reset`).
    public static func event(_ event: SubscriptionEvent, subscriptionID: String, storeID: String) -> JSON {
        .object([
            ("id", .string(event.id)),
            ("subscription", .string(subscriptionID)),
            ("type", .string(event.kind.rawValue)),
            ("position", .int(Int(event.position))),
            (
                "uri",
                event.member.map { .string(TrackerURI(storeID: storeID, kind: $0.kind, entityID: $0.id).description) }
                    ?? .null
            ),
        ])
    }
}
