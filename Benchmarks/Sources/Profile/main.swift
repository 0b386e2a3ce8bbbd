import BenchmarkSupport
import Foundation
import Indexer

// One job per run, for profilers (valgrind --tool=callgrind) and quick timings:
//   swift run -c release profile spotlite|single|xapian|fts5 [items]   one rebuild of the synthetic corpus
//   swift run -c release profile search [items] [searches] [kind] [baselines]   searches through a SearchSession
// kind: one of the search benchmarks' query kinds by name (word, two-word AND, OR, phrase, filtered, date-ranged,
// sorted by modified), or its first word; word by default. With `baselines`, each search is followed by what an
// iteration of the search benchmark also runs (the one-shot search, FTS5's and raw Xapian's), untimed: the caches
// are then as cold as in `make bench`, where a change can show less than back to back.
// spotlite: the default rebuild (a shard per core, merged by compaction); single: one writer, not compacted.
let arguments = Array(CommandLine.arguments.dropFirst())
let which = arguments.first ?? "spotlite"
let items = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
let fixture = try Fixture.prepared(.synthetic(items))
let store = try fixture.openStore()

if which == "search" {
    let count = arguments.count > 2 ? Int(arguments[2]) ?? 1_000 : 1_000
    let name = arguments.count > 3 ? arguments[3] : "word"
    guard let kind = QueryKind.all.first(where: { $0.name == name || $0.name.hasPrefix(name + " ") }) else {
        print("profile: no query kind '\(name)'; kinds: \(QueryKind.all.map(\.name).joined(separator: ", "))")
        exit(2)
    }
    let session = SearchSession(StoreIndexer(store: store, indexPath: fixture.indexPath))
    var options = SearchOptions()
    options.snippets = false
    options.request.sort = kind.sort
    var words = try QueryWordSource(store: store, synthetic: true)
    var found = 0
    var times: [Double] = []
    let withBaselines = arguments.count > 4 && arguments[4] == "baselines"
    let fts5 = withBaselines ? try FTS5(storePath: fixture.storePath) : nil
    try fts5?.rebuild()
    let rawPath = fixture.directory + "/raw-xapian"
    if withBaselines && !FileManager.default.fileExists(atPath: rawPath + "/iamglass") {
        try RawXapian.build(store: store, at: rawPath)
    }
    let raw = withBaselines ? try RawXapian.Searcher(path: rawPath) : nil
    let oneShot = StoreIndexer(store: store, indexPath: fixture.indexPath)  // as SearchRig's, made once
    for _ in 0..<count {
        let queryWords = words.next()
        let text = kind.spotlite(queryWords)
        times.append(try milliseconds { found += try session.search(text, options: options).hits.count } * 1_000)
        guard let fts5, let raw else { continue }
        _ = try oneShot.search(text, options: options)
        if let query = kind.fts5?(queryWords) { _ = try fts5.search(query.match, extra: query.extra, orderBy: query.order) }
        if let query = kind.xapian?(queryWords) { _ = try raw.search(query) }
    }
    try fts5?.drop()
    times.sort()
    let mean = times.reduce(0, +) / Double(count)
    print(String(format: "%d %@ searches: mean %.0f µs, p50 %.0f, p99 %.0f; %d hits", count, kind.name, mean,
                 times[count / 2], times[count * 99 / 100], found))
    exit(0)
}

let scratch = fixture.scratchDirectory("profile")
defer { try? FileManager.default.removeItem(atPath: scratch) }
let elapsed = try milliseconds {
    switch which {
    case "xapian": try RawXapian.build(store: store, at: scratch + "/raw")
    case "fts5": try FTS5(storePath: fixture.storePath).rebuild()
    case "single": try StoreIndexer(store: store, indexPath: scratch + "/index").rebuild(options: .singleWriter)
    default: try StoreIndexer(store: store, indexPath: scratch + "/index").rebuild()
    }
}
print(String(format: "%@ rebuild of %d items: %.0f ms, %.0f items/s", which, items, elapsed,
             Double(items) / elapsed * 1_000))
