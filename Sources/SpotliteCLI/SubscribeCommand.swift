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

/// `spotlite subscriptions [list|delete ID…]`: the saved queries `subscribe` and `POST /v1/subscriptions` leave in
/// the store, which nothing else lists or removes from the command line.
struct SubscriptionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscriptions",
        abstract: "List or delete the saved subscriptions (of `spotlite subscribe` and the API).",
        subcommands: [SubscriptionsListCommand.self, SubscriptionsDeleteCommand.self],
        defaultSubcommand: SubscriptionsListCommand.self
    )
}

struct SubscriptionsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "The saved subscriptions: id, change-log position, syntax and query (json: as GET /v1/subscriptions)."
    )

    @OptionGroup var options: StoreOptions

    @Option(help: "text or json.")
    var format: ReportFormat = .text

    func run() throws {
        let store = try running { try options.openStore(forReading: true) }
        let all = try running { try store.read { try $0.subscriptions() } }
        switch format {
        case .json:
            Output.line(SubscriptionJSON.list(all, storeID: store.uuid).text)
        case .text:
            for subscription in all {
                Output.line(
                    [
                        subscription.id, "at \(subscription.cursor)", subscription.syntax.rawValue,
                        VisibleText.escaped(subscription.query),
                    ].joined(separator: "\t"))
            }
        }
    }
}

struct SubscriptionsDeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete subscriptions, with their results and kept events.",
        discussion: "Exit status 3 when an id is not a subscription of the store (the others are still deleted).")

    @OptionGroup var options: StoreOptions

    @Argument(help: "Subscription ids, as `spotlite subscriptions` lists them.")
    var ids: [String] = []

    func validate() throws {
        if ids.isEmpty { throw ValidationError("give subscription ids; `spotlite subscriptions` lists them") }
    }

    func run() throws {
        let store = try running { try options.openStoreForWriting() }
        var missing = false
        for id in ids {
            if try running({ try store.deleteSubscription(id: id) }) {
                Output.line("deleted \(VisibleText.escaped(id))")
            } else {
                Output.note("spotlite: no subscription \(VisibleText.escaped(id)); `spotlite subscriptions` lists them")
                missing = true
            }
        }
        if missing { throw ExitCode(ErrorCode.notFound.rawValue) }
    }
}
