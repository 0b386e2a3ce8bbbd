import BenchmarkSupport
import Foundation
import Indexer

// One job per run, for profilers (valgrind --tool=callgrind) and quick timings:
//   swift run -c release profile spotlite|single|xapian|fts5 [items]   one rebuild of the synthetic corpus
//   swift run -c release profile search [items] [searches]             word searches through a SearchSession
// spotlite: the default rebuild (a shard per core, merged by compaction); single: one writer, not compacted.
let arguments = Array(CommandLine.arguments.dropFirst())
let which = arguments.first ?? "spotlite"
let items = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
let fixture = try Fixture.prepared(.synthetic(items))
let store = try fixture.openStore()

if which == "search" {
    let count = arguments.count > 2 ? Int(arguments[2]) ?? 1_000 : 1_000
    let session = SearchSession(StoreIndexer(store: store, indexPath: fixture.indexPath))
    var options = SearchOptions()
    options.snippets = false
    var found = 0
    let elapsed = try milliseconds {
        for number in 0..<count {
            found += try session.search(SyntheticCorpus.middleWord(number), options: options).hits.count
        }
    }
    print("\(count) searches: \(String(format: "%.0f", elapsed * 1_000 / Double(count))) µs each, \(found) hits")
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
print("\(which) rebuild of \(items) items: \(String(format: "%.0f", elapsed)) ms, \(String(format: "%.0f", Double(items) / elapsed * 1_000)) items/s")
