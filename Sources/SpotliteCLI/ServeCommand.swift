import ArgumentParser
import Foundation
import Indexer
import Logging
import SpotliteServer
import TrackerStore

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the store: the JSON API, saved-query subscriptions, the search page, and a live index.",
        discussion: """
            One process per store: it keeps the index live as `spotlite watch` does (the two turn each other away) \
            and answers from long-lived readers. Listens on 127.0.0.1:7700 unless --listen says otherwise; an \
            address beyond loopback needs --token-file. The API is described at /openapi.json; the page is at /. \
            SIGTERM and SIGINT stop it gracefully (requests in flight finish; event streams end) and it exits 0. \
            Logs go to stderr.
            """
    )

    @OptionGroup var options: StoreOptions
    @OptionGroup var publishing: PublishOptions

    @Option(
        help: ArgumentHelp(
            "The address to listen on: HOST:PORT, [IPv6]:PORT; port 0 takes a free one.", valueName: "host:port"))
    var listen = "127.0.0.1:7700"

    @Option(
        help: ArgumentHelp(
            "A file whose first line is the bearer token every request must carry (needed beyond loopback).",
            valueName: "path"))
    var tokenFile: String?

    @Option(help: ArgumentHelp("The one origin allowed to call the API from a browser (CORS).", valueName: "origin"))
    var cors: String?

    @Option(help: ArgumentHelp("Subscription event streams open at once; more are answered 429.", valueName: "n"))
    var maxEventStreams = ServerOptions().maximumEventStreams

    @Option(
        help: ArgumentHelp(
            "Seconds a search may take: matching stops then and the request is answered 503.", valueName: "seconds"))
    var searchTimeLimit = ServerOptions().searchTimeLimit

    @Option(
        help: ArgumentHelp(
            "A host name requests may be sent to besides this machine's addresses, localhost and the --listen name "
                + "(e.g. the name a reverse proxy forwards); repeat for more. Requests naming any other host are refused "
                + "(421), so that no page of another site can reach the store through a rebound name.",
            valueName: "name"))
    var allowHost: [String] = []

    @Option(help: ArgumentHelp("Subscriptions the store may hold; making one more is refused (409).", valueName: "n"))
    var maxSubscriptions = SubscriptionLimits().maximumSubscriptions

    @Option(help: ArgumentHelp("Rows one subscription may follow: a query matching more is refused.", valueName: "n"))
    var maxSubscriptionRows = SubscriptionLimits().maximumRows

    @Option(help: ArgumentHelp("Rows all the store's subscriptions may follow together.", valueName: "n"))
    var maxSubscriptionRowsTotal = SubscriptionLimits().maximumRowsInTotal

    @Option(
        help: ArgumentHelp(
            "Seconds a connection may take to send a request's headers (from opening, or from its last answer) before "
                + "it is closed.", valueName: "seconds"))
    var headerTimeout = ServerOptions().headerTimeout

    @Option(
        help: ArgumentHelp(
            "Seconds a request's body may take to arrive whole before its connection is closed.", valueName: "seconds"))
    var bodyTimeout = ServerOptions().bodyTimeout

    @Option(help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel: Logger.Level = .info

    @Option(
        help: ArgumentHelp(
            "Named stores /v1/search?stores=… may search together: all, or names separated by commas.",
            valueName: "names"))
    var stores: String?

    func validate() throws {
        if ServerOptions.parseListen(listen) == nil {
            throw ValidationError("--listen takes HOST:PORT, e.g. 127.0.0.1:7700, not '\(listen)'")
        }
        if maxEventStreams < 1 { throw ValidationError("--max-event-streams must be at least 1") }
        if !(searchTimeLimit > 0 && searchTimeLimit <= 3600) {
            throw ValidationError("--search-time-limit takes seconds above 0 and at most 3600")
        }
        for (name, value) in [("--header-timeout", headerTimeout), ("--body-timeout", bodyTimeout)]
        where !(value > 0 && value <= 3600) {
            throw ValidationError("\(name) takes seconds above 0 and at most 3600")
        }
        for (name, value) in [
            ("--max-subscriptions", maxSubscriptions), ("--max-subscription-rows", maxSubscriptionRows),
            ("--max-subscription-rows-total", maxSubscriptionRowsTotal),
        ] where !(1...100_000_000).contains(value) {
            throw ValidationError("\(name) takes a whole number from 1 to 100000000")
        }
        for name in allowHost where !ServerOptions.isHostName(name) {
            throw ValidationError("--allow-host takes a host name such as tracker.example.com, not '\(name)'")
        }
    }

    func serverOptions() throws -> ServerOptions {
        var server = ServerOptions()
        guard let (host, port) = ServerOptions.parseListen(listen) else {
            throw CLIError("--listen takes HOST:PORT, e.g. 127.0.0.1:7700, not '\(listen)'", status: .usage)
        }
        (server.host, server.port) = (host, port)
        server.corsOrigin = cors
        server.maximumEventStreams = maxEventStreams
        server.searchTimeLimit = searchTimeLimit
        server.allowedHosts = allowHost
        server.headerTimeout = headerTimeout
        server.bodyTimeout = bodyTimeout
        server.subscriptionLimits.maximumSubscriptions = maxSubscriptions
        server.subscriptionLimits.maximumRows = maxSubscriptionRows
        server.subscriptionLimits.maximumRowsInTotal = maxSubscriptionRowsTotal
        if let stores {
            server.stores = StoreCatalog.storeSet(try selectedStores(stores)).members
        }
        if let tokenFile { server.token = try Self.token(in: tokenFile, option: "--token-file") }
        return server
    }

    func selectedStores(_ selection: String) throws -> [StoreCatalog.Entry] {
        try StoreCatalog.load().select(selection, defaultStore: options.storePath)
    }

    /// The bearer token on the first line of `path` (at most 4 KiB read), at least 16 characters long; `option`
    /// names where the path was given, for the error.
    static func token(in path: String, option: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CLIError("cannot read \(option) \(path); put the token on its first line", status: .usage)
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: 4_096)) ?? Data()
        let text = String(decoding: data, as: UTF8.self)
        let token =
            text.split(whereSeparator: \.isNewline).first.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? ""
        guard token.count >= 16 else {
            throw CLIError(
                "the token in \(path) (\(option)) is shorter than 16 characters; use a long random one "
                    + "(e.g. `openssl rand -hex 32 > \(path)`)", status: .usage)
        }
        return token
    }

    func run() throws {
        let logger = Logger.toStandardError(label: "spotlite.serve", level: logLevel)
        let server = try running { try serverOptions() }
        let (store, index, storeID) = try running { () throws -> (String, String, String) in
            let store = try options.openStore()
            return (store.path, options.indexPath(for: store), store.uuid)
        }
        let publisher = try publishing.startPublisher(storeID: storeID, indexPath: index, logger: logger)
        defer { publisher?.stop() }
        // The remote stores of --stores are kept current here, unless another process keeps them already.
        let keepers = try running {
            try stores.map { try selectedStores($0) }?.replicaKeepers(logger: logger, leaveKept: true)
        }
        defer { withExtendedLifetime(keepers?.locks) {} }
        let services = (publisher.map { [$0] } ?? []) + (keepers?.services ?? [])
        let served = try running {
            do {
                return try SpotliteServer(storePath: store, indexPath: index, options: server, logger: logger)
            } catch let error as ServerError {
                throw CLIError(error.message, status: .usage)
            }
        }
        let address = ServeAddress(indexPath: index)
        defer { address.remove() }
        try running {
            try blockOn {
                try await served.run(services: services) { url in
                    address.write(url)
                    logger.info("listening on \(url)", metadata: ["store": "\(store)", "index": "\(index)"])
                }
            }
        }
    }
}

/// Where a running `serve` listens, kept in its index directory so that `spotlite open --browser` finds its page.
struct ServeAddress {
    let path: String

    init(indexPath: String) { path = indexPath + "/serve-address" }

    func write(_ url: String) {
        try? (url + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }

    func remove() { unlink(path) }

    /// The address of the `serve` keeping `indexer`'s index live, if one does.
    static func running(for indexer: StoreIndexer, indexPath: String) -> String? {
        guard indexer.liveHolder()?.purpose == StoreIndexer.servePurpose,
            let text = try? String(contentsOfFile: ServeAddress(indexPath: indexPath).path, encoding: .utf8)
        else { return nil }
        let url = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return url.hasPrefix("http://") ? url : nil
    }
}
