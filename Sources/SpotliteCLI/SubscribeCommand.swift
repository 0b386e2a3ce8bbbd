import ArgumentParser
import Dispatch
import Foundation
import Indexer
import SpotliteJSON
import TrackerStore

struct SubscribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Follow a query's results: print each row entering, changing in or leaving them, as JSON Lines.",
        discussion: """
            Saves the query as a subscription (the same query always gets the same one; `spotlite serve` streams \
            the same events at /v1/subscriptions/<id>/events) and prints its events as they happen, whoever \
            writes the change: {"id", "subscription", "type": added|changed|removed|reset, "position", "uri"}. \
            Starts with what happens next, or after the event --after names (an id printed before), none twice. \
            Runs until SIGINT or SIGTERM.
            """
    )

    @OptionGroup var options: StoreOptions

    @Argument(parsing: .remaining, help: "The query, as for `spotlite search`.")
    var query: [String] = []

    @Flag(help: "The query is a Core Spotlight query string.")
    var spotlight = false

    @Option(
        help: ArgumentHelp(
            "Print the events after this one (an id printed before, e.g. 42.0), or after a change-log position (0: all kept).",
            valueName: "id"))
    var after: String?

    func validate() throws {
        if query.isEmpty { throw ValidationError("give a query, e.g. spotlite subscribe leaking tap") }
        if let after, SubscriptionEvent.parse(resumingAfter: after) == nil {
            throw ValidationError(
                "--after takes an event id (position.ordinal, e.g. 42.0) or a position, not '\(after)'")
        }
    }

    func run() throws {
        let indexer = try running { try options.openIndexer() }
        let text = query.joined(separator: " ")
        let (subscription, _) = try running { try indexer.subscribe(text, syntax: spotlight ? .spotlight : .spotlite) }
        Output.note(
            "spotlite: subscription \(subscription.id) at position \(subscription.cursor); events follow (Ctrl-C stops)"
        )
        let follower = try running { try SubscriptionFollower(indexer: indexer, subscriptionID: subscription.id) }
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { follower.stop() }
            source.resume()
            sources.append(source)
        }
        defer { for source in sources { source.cancel() } }
        let start = after.flatMap(SubscriptionEvent.parse(resumingAfter:)) ?? (subscription.cursor, Int.max)
        let storeID = indexer.store.uuid
        try running {
            try follower.follow(after: start) { events in
                for event in events {
                    try Output.streamLine(
                        SubscriptionJSON.event(event, subscriptionID: subscription.id, storeID: storeID).text)
                }
                Output.flush()
                try Output.check()
            }
        }
    }
}
