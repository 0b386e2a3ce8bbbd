import ArgumentParser
import Foundation
import SpotliteJSON
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
        commandName: "add", abstract: "Name a store file (it must be a Spotlite store); a name given again is moved.")

    @Argument(help: "The store's name: letters, digits, '-', '_' or '.'.")
    var name: String

    @Argument(help: "The store file (SQLite).")
    var path: String

    @Option(help: "private, shared or public (public: Spotlite never writes to it).")
    var role: StoreRole = .private

    func validate() throws {
        if let problem = StoreCatalog.nameProblem(name) { throw ValidationError(problem) }
    }

    func run() throws {
        var catalog = try StoreCatalog.load()
        let absolute = StoreCatalog.absolute(path)
        // Nothing is written to a store here, not even a migration: it is only named.
        let store = try running { try TrackerStore.open(at: absolute, readOnly: true) }
        if let other = catalog.entries.first(where: { $0.name != name && StoreCatalog.sameFile($0.path, absolute) }) {
            throw CLIError("\(absolute) is already named '\(other.name)'; remove that name first", status: .usage)
        }
        let entry = StoreCatalog.Entry(name: name, path: absolute, role: role)
        if let index = catalog.entries.firstIndex(where: { $0.name == name }) {
            catalog.entries[index] = entry
        } else {
            catalog.entries.append(entry)
        }
        try catalog.save()
        Output.line("\(name)\t\(role.rawValue)\t\(absolute)\ttracker://\(store.uuid)")
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
        let states: [(uuid: String?, problem: String?)] = rows.map { row in
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
                                .object([
                                    ("name", .string(row.name)), ("path", .string(row.path)),
                                    ("role", .string(row.role.rawValue)),
                                    ("uuid", state.uuid.map { .string($0) } ?? .null),
                                    ("problem", state.problem.map { .string($0) } ?? .null),
                                ])
                            })
                    ),
                ]).text)
            return
        }
        let width = rows.map(\.name.count).max() ?? 7
        for (row, state) in zip(rows, states) {
            let status = state.uuid.map { "tracker://\($0)" } ?? "(\(state.problem ?? "unreadable"))"
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
