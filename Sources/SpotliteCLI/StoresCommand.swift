import ArgumentParser
import Foundation
import Indexer
import SpotliteJSON
import SpotliteRemote
import TrackerStore

/// `spotlite stores`: the named stores that `search --stores`, `resolve` and `watch --stores` take together.
struct StoresCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stores",
        abstract: "Name stores to search together: add, list, remove (kept in $XDG_CONFIG_HOME/spotlite/stores.toml).",
        discussion: """
            Roles: private (yours), shared (projects others share with you), public (everyone's; Spotlite's write \
            commands refuse it). The default store needs no entry: it is 'default'.
            """,
        subcommands: [StoresAddCommand.self, StoresListCommand.self, StoresRemoveCommand.self],
        defaultSubcommand: StoresListCommand.self
    )
}

struct StoresAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Name a store file (it must be a Spotlite store), or a remote store; a name given again is moved.",
        discussion: """
            A remote store is kept on another host: `stores add NAME --serve http://HOST:PORT --publish HOST:PORT` \
            asks that host's `serve` which store it serves, and names it here. Its index is a replica in PATH \
            (default: $XDG_CACHE_HOME/spotlite/replicas/<uuid>), kept by `spotlite replica --store NAME` or \
            `spotlite watch --stores`; its rows come from its `serve`.
            """)

    @Argument(help: "The store's name: letters, digits, '-', '_' or '.'.")
    var name: String

    @Argument(help: "The store file (SQLite); for a remote store, the directory of its replica.")
    var path: String?

    @Option(help: "private, shared or public (public: Spotlite never writes to it).")
    var role: StoreRole?

    @Option(help: ArgumentHelp("A remote store: its host's `spotlite serve`.", valueName: "http://host:port"))
    var serve: String?

    @Option(
        help: ArgumentHelp("A remote store: its host's replication address (its --publish).", valueName: "host:port"))
    var publish: String?

    @Option(help: ArgumentHelp("A remote store: a file holding its serve's bearer token.", valueName: "path"))
    var tokenFile: String?

    @Option(help: ArgumentHelp("A remote store: seconds a request to its serve may take.", valueName: "seconds"))
    var timeout: Double?

    @Option(
        help: ArgumentHelp(
            "A remote store: seconds between two copies when `watch` or `serve` keeps its replica.",
            valueName: "seconds"))
    var interval: Double?

    func validate() throws {
        if let problem = StoreCatalog.nameProblem(name) { throw ValidationError(problem) }
        if serve == nil && publish == nil {
            if path == nil { throw ValidationError("give the store file, or --serve and --publish for a remote store") }
            if tokenFile != nil || timeout != nil || interval != nil {
                throw ValidationError(
                    "--token-file, --timeout and --interval are for a remote store (--serve, --publish)")
            }
            return
        }
        guard let serve, let publish else { throw ValidationError("a remote store needs both --serve and --publish") }
        if ServeURL.parse(serve) == nil {
            throw ValidationError("--serve takes http://HOST:PORT, e.g. http://10.0.0.2:8080, not '\(serve)'")
        }
        if IndexPublisher.parseAddress(publish) == nil {
            throw ValidationError("--publish takes HOST:PORT with a port from 1 to 65535, not '\(publish)'")
        }
        if let timeout, !(timeout >= 0.1 && timeout <= 600) {
            throw ValidationError("--timeout takes seconds from 0.1 to 600")
        }
        if let interval, !(interval >= 0.1 && interval <= 86_400) {
            throw ValidationError("--interval takes seconds from 0.1 to 86400")
        }
    }

    func run() throws {
        var catalog = try StoreCatalog.load()
        let entry = try serve == nil ? localEntry(catalog) : remoteEntry()
        if let other = catalog.entries.first(where: {
            $0.name != name && $0.isRemote == entry.isRemote && StoreCatalog.sameFile($0.path, entry.path)
        }) {
            throw CLIError("\(entry.path) is already named '\(other.name)'; remove that name first", status: .usage)
        }
        if let index = catalog.entries.firstIndex(where: { $0.name == name }) {
            catalog.entries[index] = entry
        } else {
            catalog.entries.append(entry)
        }
        try catalog.save()
    }

    func localEntry(_ catalog: StoreCatalog) throws -> StoreCatalog.Entry {
        let absolute = StoreCatalog.absolute(path ?? "")
        // Nothing is written to a store here, not even a migration: it is only named.
        let store = try running { try TrackerStore.open(at: absolute, readOnly: true) }
        let role = role ?? .private
        defer { Output.line("\(name)\t\(role.rawValue)\t\(absolute)\ttracker://\(store.uuid)") }
        return StoreCatalog.Entry(name: name, path: absolute, role: role)
    }

    func remoteEntry() throws -> StoreCatalog.Entry {
        guard let serve, let address = ServeURL.parse(serve), let publish else {
            throw CLIError("a remote store needs --serve and --publish", status: .usage)
        }
        var entry = StoreCatalog.Entry(
            name: name, path: "", role: role ?? .shared, serve: address.description, publish: publish,
            timeout: timeout, interval: interval, tokenFile: tokenFile.map { StoreCatalog.absolute($0) })
        // Which store it is: its serve says (and so proves it answers, with the token if one is needed).
        let status = try running {
            try RemoteStatus.fetch(
                address, token: try entry.token(), timeout: timeout ?? StoreCatalog.Entry.defaultTimeout)
        }
        entry.uuid = status.storeID
        entry.path = path.map { StoreCatalog.absolute($0) } ?? Paths.defaultReplica(storeID: status.storeID)
        Output.line(
            "\(name)\t\(entry.role.rawValue)\t\(address)\ttracker://\(status.storeID)\treplica in \(entry.path)")
        return entry
    }
}

struct StoresListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "The named stores, in the order ties between copies are broken.")

    @Option(help: "text or json.")
    var format: ReportFormat = .text

    @OptionGroup var options: StoreOptions

    func run() throws {
        let catalog = try StoreCatalog.load()
        let defaultPath = StoreCatalog.absolute(options.storePath)
        var rows = catalog.entries
        if !rows.contains(where: { StoreCatalog.sameFile($0.path, defaultPath) }) {
            rows.insert(StoreCatalog.Entry(name: StoreCatalog.defaultName, path: defaultPath, role: .private), at: 0)
        }
        // The UUID of each store that opens, and why not for those that do not.
        let now = Date()
        let states: [(uuid: String?, problem: String?)] = rows.map { row in
            if let replica = row.replica {
                guard FileManager.default.fileExists(atPath: replica.copyPath + "/XAPIANDB") else {
                    return (replica.storeID, "no copy yet; `spotlite replica --store \(row.name)` makes it")
                }
                return (replica.storeID, replica.status().error.map { "the last copy failed: \($0)" })
            }
            // Nothing at all there is "missing"; anything else (a loop of symbolic links, a link to nothing, a file
            // that cannot be read) is named by the error opening it gives.
            var status = stat()
            guard lstat(row.path, &status) == 0 || errno != ENOENT else { return (nil, "missing") }
            do {
                return (try TrackerStore.open(at: row.path, readOnly: true).uuid, nil)
            } catch {
                return (nil, ErrorCode.classify(error).message)
            }
        }
        if format == .json {
            Output.line(
                JSON.object([
                    ("schema", .string("spotlite.stores/1")),
                    ("config", .string(StoreCatalog.path)),
                    (
                        "stores",
                        .array(
                            zip(rows, states).map { row, state in
                                .object(
                                    [
                                        ("name", .string(row.name)), ("path", .string(row.path)),
                                        ("role", .string(row.role.rawValue)),
                                        ("uuid", state.uuid.map { .string($0) } ?? .null),
                                        ("problem", state.problem.map { .string($0) } ?? .null),
                                    ]
                                        + (row.replica.map { replica in
                                            [
                                                ("serve", .string(row.serve ?? "")),
                                                (
                                                    "replica",
                                                    StatusJSON.replica(
                                                        replica.status(), directory: replica.directory, now: now)
                                                ),
                                            ]
                                        } ?? []))
                            })
                    ),
                ]).text)
            return
        }
        let width = rows.map(\.name.count).max() ?? 7
        for (row, state) in zip(rows, states) {
            var status = state.uuid.map { "tracker://\($0)" } ?? "(\(state.problem ?? "unreadable"))"
            if let replica = row.replica, let serve = row.serve {
                // A remote store: where its rows come from, and how far behind its copy is.
                let copy = replica.status()
                let age = copy.copiedAt.map { "copied \(String(format: "%.1f", now.timeIntervalSince($0))) s ago" }
                let behind = copy.changesBehind.map { "\($0) changes behind" }
                let lag = [age, behind].compactMap { $0 }.joined(separator: ", ")
                status += "  remote \(serve)" + (state.problem.map { " (\($0))" } ?? (lag.isEmpty ? "" : " (\(lag))"))
            }
            Output.line(
                row.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                    + row.role.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0) + "  " + row.path + "  "
                    + status)
        }
    }
}

struct StoresRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Forget a store's name (the store file and its index are left as they are).")

    @Argument(help: "The store's name.")
    var name: String

    func run() throws {
        var catalog = try StoreCatalog.load()
        guard let index = catalog.entries.firstIndex(where: { $0.name == name }) else {
            let known = catalog.entries.map(\.name).joined(separator: ", ")
            throw CLIError(
                "no store named '\(name)'\(known.isEmpty ? "" : " (known: \(known))")", status: .notFound)
        }
        catalog.entries.remove(at: index)
        try catalog.save()
        Output.line("removed \(name)")
    }
}
