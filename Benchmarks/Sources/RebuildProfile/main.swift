import BenchmarkSupport
import Foundation
import Indexer

// One rebuild at a time, for profilers (valgrind --tool=callgrind, perf) and quick timing:
//   swift run -c release rebuild-profile spotlite|single|xapian|fts5 [items]
// spotlite: the default rebuild (a shard per core, merged by compaction); single: one writer, not compacted.
let arguments = CommandLine.arguments.dropFirst()
let which = arguments.first ?? "spotlite"
let items = arguments.dropFirst().first.flatMap { Int($0) } ?? 10_000
let fixture = try Fixture.prepared(.synthetic(items))
let store = try fixture.openStore()
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
