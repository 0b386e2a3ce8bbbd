import ArgumentParser
import Indexer
import TrackerStore

/// Options every command that touches the store shares.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The store (SQLite file). Default: $SPOTLITE_STORE, else $XDG_DATA_HOME/spotlite/tracker.sqlite.",
        valueName: "path"))
    var store: String?

    @Option(name: .long, help: ArgumentHelp(
        "The index directory. Default: $SPOTLITE_INDEX, else $XDG_CACHE_HOME/spotlite/<store-uuid>.",
        valueName: "path"))
    var index: String?

    var storePath: String { store ?? Paths.environment("SPOTLITE_STORE") ?? Paths.defaultStore }

    func indexPath(for store: TrackerStore) -> String {
        index ?? Paths.environment("SPOTLITE_INDEX") ?? Paths.defaultIndex(storeID: store.uuid)
    }

    func openStore() throws -> TrackerStore {
        try TrackerStore.open(at: storePath)
    }

    func openIndexer() throws -> StoreIndexer {
        let store = try openStore()
        return StoreIndexer(store: store, indexPath: indexPath(for: store))
    }
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
