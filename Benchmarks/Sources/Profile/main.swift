import BenchmarkSupport
import Foundation
import Indexer
import SpotliteJSON

// One job per run, for profilers (valgrind --tool=callgrind) and quick timings:
//   swift run -c release profile spotlite|single|xapian|fts5 [items]   one rebuild of the synthetic corpus, and the
//   index's size by table
//   swift run -c release profile search [items] [searches] [kind] [baselines]   searches through a SearchSession
//   swift run -c release profile queries [items] [per kind]   the corpus's fixture (made if missing) and requests for
//   `make bench-serve` (BENCH_SERVE_CORPUS): its directory, a word and two words of the corpus, then `serve` paths,
//   [per kind] of each of the search benchmarks' kinds
// kind: one of the search benchmarks' query kinds by name (word, two-word AND, OR, phrase, filtered, date-ranged,
// sorted by modified), or its first word; word by default. With `baselines`, each search is followed by what an
// iteration of the search benchmark also runs (the one-shot search, FTS5's and raw Xapian's), untimed: the caches
// are then as cold as in `make bench`, where a change can show less than back to back. With `compare`, each of
// the first [searches] queries is timed 5 times in Spotlite, FTS5 and raw Xapian, back to back; it prints each
// query's medians and Spotlite/FTS5 ratio (slowest share last) and the ratio's quartiles: where a kind's median
// ratio in `make bench` comes from. PROFILE_QUERY='"two words"' times that one query instead of the kind's
// (`perf record -g` of a rare phrase is how a search's fixed costs show). PROFILE_TIME_LIMIT=S bounds each search
// as `spotlite serve --search-time-limit S` does. A run prints its five slowest queries after its figures: where the
// tail comes from.
// spotlite: the default rebuild (a shard per core, merged by compaction); single: one writer, not compacted.
// PROFILE_PAGE=N times what `serve` does for a page of N hits instead: snippets on, the answer encoded as its JSON.
// PROFILE_CORPUS=debian, dictionary or zipf (../shared/corpora/zipf_synthetic.py) runs on that corpus instead of the
// synthetic one ([items] still sizes the dictionary and zipf corpora; the Debian corpus has its own).
let arguments = Array(CommandLine.arguments.dropFirst())
let which = arguments.first ?? "spotlite"
let items = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
let corpus: Corpus =
    switch ProcessInfo.processInfo.environment["PROFILE_CORPUS"] {
    case "debian": .debian
    case "dictionary": .dictionary(items)
    case "zipf": .zipf(items)
    default: .synthetic(items)
    }
let synthetic = if case .synthetic = corpus { true } else { false }
let fixture = try Fixture.prepared(corpus)
let store = try fixture.openStore()

if which == "queries" {
    let perKind = arguments.count > 2 ? Int(arguments[2]) ?? 20 : 20
    var words = try QueryWordSource(store: store, synthetic: synthetic)
    // Unreserved characters (RFC 3986) as they are, everything else percent-encoded: quotes, spaces, colons.
    let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
    let first = words.next()
    print(fixture.directory)
    print(first.middle)
    print("\(first.common) \(first.middle)")
    for kind in QueryKind.all {
        for _ in 0..<perKind {
            let text = kind.spotlite(words.next())
            let sort = kind.sort == .relevance ? "" : "&sort=\(kind.sort.rawValue)"
            print("/v1/search?q=\(text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text)\(sort)")
        }
    }
    exit(0)
}

if which == "search" {
    let count = arguments.count > 2 ? Int(arguments[2]) ?? 1_000 : 1_000
    let name = arguments.count > 3 ? arguments[3] : "word"
    guard let kind = QueryKind.all.first(where: { $0.name == name || $0.name.hasPrefix(name + " ") }) else {
        print("profile: no query kind '\(name)'; kinds: \(QueryKind.all.map(\.name).joined(separator: ", "))")
        exit(2)
    }
    let session = SearchSession(StoreIndexer(store: store, indexPath: fixture.indexPath))
    var options = SearchOptions()
    let page = Int(ProcessInfo.processInfo.environment["PROFILE_PAGE"] ?? "")
    options.snippets = page != nil
    options.request.limit = page ?? 20
    options.request.sort = kind.sort
    // PROFILE_TIME_LIMIT=2: each search bounded as `spotlite serve` bounds it (--search-time-limit).
    options.request.timeLimit = Double(ProcessInfo.processInfo.environment["PROFILE_TIME_LIMIT"] ?? "") ?? 0
    var words = try QueryWordSource(store: store, synthetic: synthetic)
    var found = 0
    var times: [Double] = []
    var slowest: [(milliseconds: Double, number: Int, query: String)] = []
    let withBaselines = arguments.count > 4 && arguments[4] == "baselines"
    let fts5 = withBaselines ? try FTS5(storePath: fixture.storePath) : nil
    try fts5?.rebuild()
    let rawPath = fixture.directory + "/raw-xapian"
    if withBaselines && !FileManager.default.fileExists(atPath: rawPath + "/iamglass") {
        try RawXapian.build(store: store, at: rawPath)
    }
    let raw = withBaselines ? try RawXapian.Searcher(path: rawPath) : nil
    let oneShot = StoreIndexer(store: store, indexPath: fixture.indexPath)  // as SearchRig's, made once
    if arguments.count > 4 && arguments[4] == "compare" {
        try compare(kind: kind, searches: count, session: session, options: options, words: &words, fixture: fixture)
        exit(0)
    }
    let fixedQuery = ProcessInfo.processInfo.environment["PROFILE_QUERY"]
    for _ in 0..<count {
        let queryWords = words.next()
        let text = fixedQuery ?? kind.spotlite(queryWords)
        times.append(
            try milliseconds {
                let outcome = try session.search(text, options: options)
                found += outcome.hits.count
                if page != nil { found += SearchJSON.outcome(outcome).line().isEmpty ? 1 : 0 }  // the bytes serve sends
            } * 1_000)
        slowest.append((times[times.count - 1] / 1_000, times.count, text))
        slowest = Array(slowest.sorted { $0.milliseconds > $1.milliseconds }.prefix(5))
        guard let fts5, let raw else { continue }
        _ = try oneShot.search(text, options: options)
        if let query = kind.fts5?(queryWords) {
            _ = try fts5.search(query.match, extra: query.extra, orderBy: query.order)
        }
        if let query = kind.xapian?(queryWords) { _ = try raw.search(query) }
    }
    try fts5?.drop()
    times.sort()
    let mean = times.reduce(0, +) / Double(count)
    print(
        String(
            format: "%d %@ searches: mean %.0f µs, p50 %.0f, p99 %.0f; %d hits", count, kind.name, mean,
            times[count / 2], times[count * 99 / 100], found))
    for (milliseconds, number, query) in slowest {
        print(String(format: "  %.2f ms  search %d: %@", milliseconds, number, query))
    }
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
// The index's size, and each table's: what a change to the index's layout costs or saves.
var tables: [String] = []
var total = 0
if let files = FileManager.default.enumerator(atPath: scratch) {
    while let name = files.nextObject() as? String {
        let size = (try? FileManager.default.attributesOfItem(atPath: scratch + "/" + name)[.size] as? Int) ?? 0
        guard name.hasSuffix(".glass") else { continue }
        total += size
        tables.append(String(format: "%@ %.1f", (name as NSString).lastPathComponent, Double(size) / 1e6))
    }
}
print(
    String(
        format: "%@ rebuild of %@: %.0f ms, %.0f items/s; index %.1f MB (%@)", which, corpus.description,
        elapsed, Double(items) / elapsed * 1_000, Double(total) / 1e6, tables.sorted().joined(separator: ", ")))

/// `profile search … compare`: per-query medians of Spotlite, FTS5 and raw Xapian, and the quartiles of the ratio.
func compare(
    kind: QueryKind, searches: Int, session: SearchSession, options: SearchOptions, words: inout QueryWordSource,
    fixture: Fixture
) throws {
    let store = try fixture.openStore()
    let fts5 = try FTS5(storePath: fixture.storePath)
    try fts5.rebuild()
    defer { try? fts5.drop() }
    let rawPath = fixture.directory + "/raw-xapian"
    if !FileManager.default.fileExists(atPath: rawPath + "/iamglass") { try RawXapian.build(store: store, at: rawPath) }
    let raw = try RawXapian.Searcher(path: rawPath)
    func median(_ body: () throws -> Void) throws -> Double {
        var times: [Double] = []
        for _ in 0..<5 { times.append(try milliseconds(body) * 1_000) }
        return times.sorted()[2]
    }
    var rows: [(text: String, spotlite: Double, fts5: Double, xapian: Double, hits: Int)] = []
    var seen = Set<String>()
    for _ in 0..<searches {
        let queryWords = words.next()
        let text = kind.spotlite(queryWords)
        guard seen.insert(text).inserted else { continue }
        var hits = 0
        let spotliteTime = try median { hits = try session.search(text, options: options).total }
        let ftsTime =
            try kind.fts5.map { query in
                try median {
                    _ = try fts5.search(
                        query(queryWords).match, extra: query(queryWords).extra, orderBy: query(queryWords).order)
                }
            } ?? .nan
        let xapianTime = try kind.xapian.map { query in try median { _ = try raw.search(query(queryWords)) } } ?? .nan
        rows.append((text, spotliteTime, ftsTime, xapianTime, hits))
    }
    rows.sort { $0.spotlite / $0.fts5 < $1.spotlite / $1.fts5 }
    print("query\tmatches\tspotlite µs\tfts5 µs\traw xapian µs\tspotlite/fts5")
    for row in rows {
        print(
            String(
                format: "%@\t%d\t%.0f\t%.0f\t%.0f\t%.2f", row.text, row.hits, row.spotlite, row.fts5, row.xapian,
                row.spotlite / row.fts5))
    }
    let ratios = rows.map { $0.spotlite / $0.fts5 }
    guard !ratios.isEmpty else { return }
    print(
        String(
            format: "%d distinct queries; spotlite/fts5 p25 %.2f, p50 %.2f, p75 %.2f", ratios.count,
            ratios[ratios.count / 4], ratios[ratios.count / 2], ratios[ratios.count * 3 / 4]))
}
