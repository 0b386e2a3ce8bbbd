import ArgumentParser
import Foundation
import Indexer
import SpotliteJSON
import SpotliteRemote
import TOMLKit
import TrackerStore

/// What a named store is to its user: their own, shared with them, or readable by everyone.
enum StoreRole: String, Codable, CaseIterable, ExpressibleByArgument, Sendable {
    case `private`
    case shared
    /// Read-only to Spotlite's write commands.
    case `public`
}

/// The named stores (`spotlite stores`), kept in `$XDG_CONFIG_HOME/spotlite/stores.toml`:
///
/// ```toml
/// [[stores]]
/// name = "shared"
/// path = "/home/me/shared/tracker.sqlite"
/// role = "shared"
/// ```
///
/// A remote store (`stores add NAME --serve URL --publish HOST:PORT`) is kept on another host: its `path` is the
/// directory of its index's replica here, and it names the host's `serve`, its replication address and the store:
///
/// ```toml
/// [[stores]]
/// name = "team"
/// path = "/home/me/.cache/spotlite/replicas/0b7…"
/// role = "shared"
/// serve = "http://10.0.0.2:8080"
/// publish = "10.0.0.2:7701"
/// uuid = "0b7…"
/// timeout = 2.0          # seconds a request to its serve may take (default 2)
/// interval = 5.0         # seconds between two copies, when `watch --stores` keeps the replica (default 5)
/// token_file = "/home/me/.config/spotlite/team.token"   # its serve's bearer token, if it has one
/// ```
///
/// The order of the entries is the order of `stores list`, which breaks ties between copies of one item. The
/// default store (`--store`, `$SPOTLITE_STORE`, the XDG data directory) needs no entry: it is `default`.
struct StoreCatalog {
    struct Entry: Codable, Equatable {
        var name: String
        /// The store file; for a remote store, the directory of its replica.
        var path: String
        var role: StoreRole
        /// A remote store's host's `serve` (`http://HOST:PORT`).
        var serve: String?
        /// A remote store's host's replication address (its `--publish`).
        var publish: String?
        /// A remote store's UUID.
        var uuid: String?
        var timeout: Double?
        var interval: Double?
        var tokenFile: String?

        enum CodingKeys: String, CodingKey {
            case name, path, role, serve, publish, uuid, timeout, interval
            case tokenFile = "token_file"
        }

        var isRemote: Bool { serve != nil }

        /// Seconds a request to a remote store's `serve` may take, unless the entry says.
        static let defaultTimeout = 2.0
        /// Seconds between two copies of a remote store's index, unless the entry says.
        static let defaultInterval = 5.0
    }

    /// The file's shape: an array of tables, so the order is kept.
    private struct File: Codable {
        var stores: [Entry]?
    }

    var entries: [Entry] = []

    /// The name the default store goes by.
    static let defaultName = "default"
    /// A catalog larger than this is refused rather than read (it holds a few lines per store).
    static let maximumBytes = 1 << 20

    static var path: String {
        let base = Paths.environment("XDG_CONFIG_HOME") ?? Paths.home + "/.config"
        return base + "/spotlite/stores.toml"
    }

    /// The catalog, empty when the file does not exist.
    static func load() throws -> StoreCatalog {
        let path = Self.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return StoreCatalog() }
        guard !isDirectory.boolValue, let handle = FileHandle(forReadingAtPath: path) else {
            throw CLIError("cannot read \(path) (a directory, or not readable); fix or remove it", status: .usage)
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maximumBytes + 1) ?? Data()
        } catch {
            throw CLIError("cannot read \(path): \(error.localizedDescription); fix or remove it", status: .usage)
        }
        guard data.count <= maximumBytes else {
            throw CLIError("\(path) is over \(maximumBytes / 1024) KiB; it should list a few stores", status: .usage)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CLIError("\(path) is not UTF-8 text; fix or remove it", status: .usage)
        }
        let file: File
        do {
            file = try TOMLDecoder(strictDecoding: true).decode(File.self, from: text)
        } catch let error as TOMLParseError {
            throw CLIError(
                "\(path): \(error.description) at line \(error.source.begin.line); fix or remove it", status: .usage)
        } catch {
            throw CLIError(
                "\(path) is not a list of stores ([[stores]] with name, path and role: private, shared or public); fix or remove it",
                status: .usage)
        }
        var catalog = StoreCatalog(entries: file.stores ?? [])
        var names = Set<String>()
        for entry in catalog.entries {
            if let problem = Self.nameProblem(entry.name) ?? Self.remoteProblem(entry) {
                throw CLIError("\(path): \(problem)", status: .usage)
            }
            guard names.insert(entry.name).inserted else {
                throw CLIError("\(path) names the store '\(entry.name)' twice; remove one", status: .usage)
            }
        }
        // A relative path in the file is relative to the file, wherever the command runs.
        let directory = (path as NSString).deletingLastPathComponent
        catalog.entries = catalog.entries.map { entry in
            var entry = entry
            entry.path = Self.absolute(entry.path, relativeTo: directory)
            entry.tokenFile = entry.tokenFile.map { Self.absolute($0, relativeTo: directory) }
            return entry
        }
        return catalog
    }

    /// Writes the catalog whole to a temporary file beside it and renames it over the old one.
    func save() throws {
        let path = Self.path
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let text =
                "# Spotlite's named stores (`spotlite stores`); the order is the order ties are broken in.\n"
                + (try TOMLEncoder().encode(File(stores: entries)))
            let temporary = path + ".tmp-\(getpid())"
            try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
            if rename(temporary, path) != 0 {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw CLIError("cannot write \(path): \(reason)", status: .usage)
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("cannot write \(path): \(error.localizedDescription)", status: .usage)
        }
    }

    /// Why `name` cannot name a store, or nil.
    static func nameProblem(_ name: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        if name.isEmpty || name.count > 64 || !name.allSatisfy(allowed.contains) || name.hasPrefix("-") {
            return "store name '\(VisibleText.escaped(name))' must be 1–64 letters, digits, '-', '_' or '.', "
                + "not starting with '-'"
        }
        if name == defaultName || name == "all" { return "'\(name)' is reserved; choose another store name" }
        return nil
    }

    /// `path` made absolute: `~` expanded, a relative path taken from `directory` (the current one by default).
    static func absolute(_ path: String, relativeTo directory: String? = nil) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        let base = directory ?? FileManager.default.currentDirectoryPath
        let full = expanded.hasPrefix("/") ? expanded : base + "/" + expanded
        return (full as NSString).standardizingPath
    }

    /// Why `entry`'s remote keys are wrong, or nil: a remote store needs `serve`, `publish` and `uuid`, all valid.
    static func remoteProblem(_ entry: Entry) -> String? {
        let keys = [entry.serve, entry.publish, entry.uuid]
        let extras = entry.timeout != nil || entry.interval != nil || entry.tokenFile != nil
        guard keys.contains(where: { $0 != nil }) || extras else { return nil }
        let name = entry.name
        guard let serve = entry.serve, let publish = entry.publish, let uuid = entry.uuid else {
            return
                "store '\(name)' is remote only with all of serve, publish and uuid (`spotlite stores add` writes them)"
        }
        if ServeURL.parse(serve) == nil {
            return "store '\(name)': serve is http://HOST:PORT, not '\(VisibleText.escaped(serve))'"
        }
        if IndexPublisher.parseAddress(publish) == nil {
            return
                "store '\(name)': publish is HOST:PORT with a port from 1 to 65535, not '\(VisibleText.escaped(publish))'"
        }
        if UUID(uuidString: uuid)?.uuidString.lowercased() != uuid.lowercased() {
            return "store '\(name)': uuid is a store's UUID, not '\(VisibleText.escaped(uuid))'"
        }
        if let timeout = entry.timeout, !(timeout >= 0.1 && timeout <= 600) {
            return "store '\(name)': timeout is seconds from 0.1 to 600"
        }
        if let interval = entry.interval, !(interval >= 0.1 && interval <= 86_400) {
            return "store '\(name)': interval is seconds from 0.1 to 86400"
        }
        return nil
    }

    /// The same file, however it is written (symbolic links resolved where the file exists).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        func canonical(_ path: String) -> String {
            let absolute = Self.absolute(path)
            return (absolute as NSString).resolvingSymlinksInPath
        }
        return canonical(a) == canonical(b)
    }

    func entry(named name: String) -> Entry? { entries.first { $0.name == name } }

    /// The public store at `path`, if the catalog names one there.
    func publicEntry(at path: String) -> Entry? {
        entries.first { !$0.isRemote && $0.role == .public && Self.sameFile($0.path, path) }
    }

    /// The stores `selection` names (`all`, or names separated by commas), in the catalog's order with `default`
    /// (the default store) first: `all` takes it when it exists and the catalog does not list its file itself.
    func select(_ selection: String, defaultStore: String) throws -> [Entry] {
        let defaultEntry = Self.defaultEntry(defaultStore)
        if selection == "all" {
            let all = everyStore(defaultStore: defaultStore)
            guard !all.isEmpty else {
                throw CLIError("no stores to search: add one with `spotlite stores add NAME PATH`", status: .usage)
            }
            return all
        }
        var chosen: [Entry] = []
        for name in selection.split(separator: ",", omittingEmptySubsequences: false).map({
            $0.trimmingCharacters(in: .whitespaces)
        }) {
            if name == Self.defaultName {
                chosen.append(defaultEntry)
            } else if let entry = entry(named: name) {
                chosen.append(entry)
            } else {
                let known = ([Self.defaultName] + entries.map(\.name)).joined(separator: ", ")
                throw CLIError("no store named '\(name)' (known: \(known)); see `spotlite stores list`", status: .usage)
            }
        }
        var seen = Set<String>()
        return chosen.filter { seen.insert($0.name).inserted }
    }

    static func defaultEntry(_ defaultStore: String) -> Entry {
        Entry(name: defaultName, path: absolute(defaultStore), role: .private)
    }

    /// The default store (when it exists and no entry names its file), then every named store: what `all` means.
    func everyStore(defaultStore: String) -> [Entry] {
        let listed = entries.contains { !$0.isRemote && Self.sameFile($0.path, defaultStore) }
        let includeDefault = !listed && FileManager.default.fileExists(atPath: defaultStore)
        return (includeDefault ? [Self.defaultEntry(defaultStore)] : []) + entries
    }

    /// The stores of `entries` as a ``StoreSet``, each opened (read-only for a public one, or for all with
    /// `readOnly`; for reading, with `forReading`) with its index in the default place for its UUID.
    static func storeSet(_ entries: [Entry], readOnly: Bool = false, forReading: Bool = false) -> StoreSet {
        StoreSet(
            members: entries.map { entry in
                StoreSet.Member(name: entry.name) { () throws -> StoreSet.Opened in
                    if let remote = try entry.remoteStore() { return .remote(remote) }
                    let store = try TrackerStore.open(
                        at: entry.path, readOnly: readOnly || entry.role == .public, forReading: forReading)
                    return .local(StoreIndexer(store: store, indexPath: Paths.defaultIndex(storeID: store.uuid)))
                }
            })
    }
}

/// Finds the store a URI belongs to among the default store and the named ones, by the store UUID inside it,
/// opening each (read-only) at most once and only when needed.
final class StoreRouter {
    private let defaultPath: String
    private let selection: [StoreCatalog.Entry]?
    private var stores: StoreSet?

    /// `selection`: the stores of `--stores` (copies are then looked up in all of them), or nil for the default
    /// store and, for URIs of other stores, every named store.
    init(defaultPath: String, selection: [StoreCatalog.Entry]?) {
        self.defaultPath = defaultPath
        self.selection = selection
    }

    /// The stores, the catalog read at the first URI that needs it.
    private func storeSet() throws -> StoreSet {
        if let stores { return stores }
        let made = StoreCatalog.storeSet(
            try selection ?? StoreCatalog.load().everyStore(defaultStore: defaultPath), readOnly: true)
        stores = made
        return made
    }

    /// The row behind `uri`, from its own store; with a selection, the newest copy among the selected stores
    /// (ties: the selection's order), with the other stores that hold it.
    func entity(for uri: TrackerURI) throws -> (uri: TrackerURI, entity: StoreEntity, store: String, alsoIn: [String]) {
        guard let found = try storeSet().row(for: uri, newestCopy: selection != nil) else {
            throw CLIError(
                "\(uri) belongs to another store (\(uri.storeID)), neither the default store nor a named one; "
                    + "`spotlite stores add NAME PATH` names it", status: .foreignStore)
        }
        return (found.copy.uri, found.copy.entity, found.copy.store, found.alsoIn)
    }
}

extension StoreCatalog.Entry {
    /// The replica of a remote store's index, kept in its `path`; nil for a store on this host.
    var replica: IndexReplica? {
        guard let publish, let uuid, let (host, port) = IndexPublisher.parseAddress(publish) else { return nil }
        return IndexReplica(directory: path, host: host, port: port, storeID: uuid.lowercased())
    }

    /// Its `serve`'s bearer token, read from `token_file`; nil without one.
    func token() throws -> String? {
        try tokenFile.map { try ServeCommand.token(in: $0, option: "token_file of store '\(name)'") }
    }

    /// A remote store as a search reads it: its replica here, its rows from its host's `serve`; nil for a store on
    /// this host.
    func remoteStore() throws -> RemoteStore? {
        guard let replica, let serve = serve.flatMap(ServeURL.parse) else { return nil }
        let rows = RemoteRows(
            storeID: replica.storeID, serve: serve, token: try token(), timeout: timeout ?? Self.defaultTimeout)
        return RemoteStore(replica: replica, rows: rows, pages: serve.description)
    }
}
