import ArgumentParser
import Indexer
import TrackerStore

/// Options every command that touches the store shares.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The store (SQLite file). Default: $SPOTLITE_STORE, else $XDG_DATA_HOME/spotlite/tracker.sqlite.",
            valueName: "path"))
    var store: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The index directory. Default: $SPOTLITE_INDEX, else $XDG_CACHE_HOME/spotlite/<store-uuid>.",
            valueName: "path"))
    var index: String?

    var storePath: String { store ?? Paths.environment("SPOTLITE_STORE") ?? Paths.defaultStore }

    func indexPath(for store: TrackerStore) -> String {
        index ?? Paths.environment("SPOTLITE_INDEX") ?? Paths.defaultIndex(storeID: store.uuid)
    }

    /// The store; with `forReading` (a command that only reads it), opened so that nothing is written to it
    /// unless its schema needs a migration (``TrackerStore/open(at:readOnly:forReading:)``).
    func openStore(forReading: Bool = false) throws -> TrackerStore {
        try TrackerStore.open(at: storePath, forReading: forReading)
    }

    /// The store, for a command that writes to it: refused (exit 5, naming the store) when `stores.toml` names it
    /// public.
    func openStoreForWriting() throws -> TrackerStore {
        if let entry = try StoreCatalog.load().publicEntry(at: storePath) {
            throw CLIError(
                "store '\(entry.name)' (\(entry.path)) is public: Spotlite does not write to it "
                    + "(`spotlite stores add \(entry.name) PATH --role shared` changes its role)", status: .store)
        }
        return try openStore()
    }

    func openIndexer(forReading: Bool = false) throws -> StoreIndexer {
        let store = try openStore(forReading: forReading)
        return StoreIndexer(store: store, indexPath: indexPath(for: store))
    }
}

/// Output formats for commands that print a report (`status`, `verify`).
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    /// For people.
    case text
    /// One JSON document.
    case json
}

/// A priority as people type it: 1, 2, 3, or low, medium, high (any case).
struct PriorityArgument: ExpressibleByArgument {
    var value: Int

    init(_ value: Int) { self.value = value }

    /// Any whole number is taken here, so that one out of range gets the store's own one-line error.
    init?(argument: String) {
        switch argument.lowercased() {
        case "low": value = 1
        case "medium": value = 2
        case "high": value = 3
        default:
            guard let number = Int(argument) else { return nil }
            value = number
        }
    }

    static var allValueStrings: [String] { ["1", "2", "3", "low", "medium", "high"] }
    var defaultValueDescription: String { String(value) }
}

/// Output formats for commands that print records.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    /// For people.
    case text
    /// One JSON document.
    case json
    /// JSON Lines: one object a line.
    case jsonl
    /// Bare URIs, one a line, for pipes (`| xargs spotlite resolve`).
    case ids
}

/// Parses a URI argument, with the CLI's exit codes for malformed and foreign URIs.
func parseURI(_ text: String, in store: TrackerStore) throws -> TrackerURI {
    let uri = try TrackerURI(parsing: text)
    try store.checkOwnership(uri)
    return uri
}
