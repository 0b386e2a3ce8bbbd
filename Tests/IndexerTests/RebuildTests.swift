import Foundation
import SearchIndex
import TestSupport
import Testing
import TrackerStore

@testable import Indexer

/// Rebuilds of the start of the Debian corpus (2,500 rows, its projects first): shard builders merged by
/// compaction against one plain writer.
@Suite struct RebuildTests {
    let directory = TemporaryDirectory("rebuild")
    let store: TrackerStore

    init() throws {
        store = try TrackerStore.create(at: directory.file("tracker.sqlite"))
        let lines = Repository.debianCorpusData.split(separator: UInt8(ascii: "\n")).prefix(2_500)
        _ = try store.importJSONLines(Data(lines.joined(separator: [UInt8(ascii: "\n")])))
    }

    func rebuilt(_ name: String, _ options: StoreIndexer.RebuildOptions) throws -> StoreIndexer {
        let indexer = StoreIndexer(store: store, indexPath: directory.file(name))
        let report = try indexer.rebuild(options: options)
        #expect(report.skipped.isEmpty)
        #expect(report.documentsWritten == (try SearchReader(path: indexer.location.root).documentCount()))
        return indexer
    }

    /// Every hit, best first; equal scores in index order.
    func everyHit(_ indexer: StoreIndexer, _ query: String) throws -> [String] {
        var options = SearchOptions()
        options.snippets = false
        options.request.limit = 20_000
        return try indexer.search(query, options: options).hits.map(\.uri.description)
    }

    @Test func shardsMergedByCompactionIndexExactlyWhatOneWriterIndexes() throws {
        let single = try rebuilt("single", .singleWriter)
        let sharded = try rebuilt("sharded", .init(shards: 3))
        let one = try SearchReader(path: single.location.root)
        let three = try SearchReader(path: sharded.location.root)

        #expect(try three.documentCount() == 2_500)
        #expect(try three.documentCount() == one.documentCount())
        #expect(try three.fingerprints() == one.fingerprints())
        #expect(try three.fetchLastClientState() == one.fetchLastClientState())
        #expect(try three.metadata(StoreIndexer.storeKey) == store.uuid)
        for query in ["upstream", "security fix", "\"new upstream release\"", "memory OR leak", "segfault -crash"] {
            let hits = try everyHit(sharded, query)
            #expect(!hits.isEmpty, "\(query)")
            #expect(hits == (try everyHit(single, query)), "\(query)")
        }
        // The shards' spelling data is merged (frequencies summed): the same corrections.
        let suggestion = try sharded.search("upstrem").suggestion
        #expect(suggestion == "upstream")
        #expect(suggestion == (try single.search("upstrem").suggestion))
        #expect(try sharded.verify().isClean)
    }

    /// Equal scores come in index order, so a rebuild must give the same order whatever the shard count and
    /// whichever builder runs faster: the store's order, latest first in results.
    @Test func theIndexOrderIsTheStoresWhateverTheShardCount() throws {
        var inserted: [String] = []
        try store.read { reader in try reader.forEachItem { inserted.append($0.id) } }
        let single = try rebuilt("single", .singleWriter)
        let latestFirst = try everyHit(single, "kind:item")
        #expect(latestFirst.compactMap { try? TrackerURI(parsing: $0).entityID } == inserted.reversed())
        for shards in [2, 3, 4] {
            let sharded = try rebuilt("sharded-\(shards)", .init(shards: shards))
            #expect(try everyHit(sharded, "kind:item") == latestFirst, "\(shards) shards")
            #expect(try everyHit(sharded, "package") == (try everyHit(single, "package")), "\(shards) shards")
        }
    }

    /// An index kept up by catch-ups appends new rows in the order they were added, so it orders ties as a
    /// rebuild of the same store does; edits keep an item's place.
    @Test func catchUpsKeepTheOrderARebuildGives() throws {
        let live = try TrackerStore.create(at: directory.file("live.sqlite"))
        let project = try live.addProject(title: "Kitchen")
        let kept = StoreIndexer(store: live, indexPath: directory.file("kept"))
        try kept.catchUp()
        var items: [Item] = []
        for batch in 0..<4 {
            for number in 0..<5 {
                items.append(try live.addItem(projectID: project.id, title: "tile \(batch) \(number)"))
            }
            try kept.catchUp()
        }
        var changes = ItemChanges()
        changes.detail = "grout"
        try live.updateItem(id: items[3].id, changes)
        try live.deleteItem(id: items[7].id)
        try kept.catchUp()

        let rebuilt = StoreIndexer(store: live, indexPath: directory.file("rebuilt"))
        try rebuilt.rebuild(options: .init(shards: 2))
        let order = try everyHit(kept, "kind:item")
        #expect(order.count == 19)
        #expect(order == (try everyHit(rebuilt, "kind:item")))
        #expect(try everyHit(kept, "tile") == (try everyHit(rebuilt, "tile")))
    }

    @Test func theMergedIndexIsOneCompactedGenerationThatLaterChangesUpdate() throws {
        let single = try rebuilt("single", .singleWriter)
        let sharded = try rebuilt("sharded", .init(shards: 2))
        let names = try FileManager.default.contentsOfDirectory(atPath: sharded.location.root).filter {
            $0.hasPrefix("db-")
        }
        #expect(names.count == 1, "no shard directories left: \(names)")
        #expect(directorySize(sharded.location.root) * 10 < directorySize(single.location.root) * 8, "compacted")

        let project = try store.addProject(title: "Compaction check")
        try store.addItem(projectID: project.id, title: "zanzibar quokka")
        let report = try sharded.catchUp()
        #expect(report.rebuildReason == nil)
        #expect(try sharded.search("quokka").hits.count == 1)
        #expect(try sharded.verify().isClean)
    }

    @Test func oneShardCompactedMatchesTheSingleWriter() throws {
        let single = try rebuilt("single", .singleWriter)
        let compacted = try rebuilt("compacted", .init(shards: 1))
        #expect(try everyHit(compacted, "upstream") == (try everyHit(single, "upstream")))
        #expect(try compacted.verify().isClean)
    }

    /// A rebuild chooses the index's common words from a sample of the store (their pairs get terms: fast phrases),
    /// every shard uses them, and the index keeps them: later changes write their pairs, so a phrase finds what a
    /// new rebuild finds.
    @Test func aRebuildChoosesCommonWordsThatLaterChangesKeep() throws {
        let sharded = try rebuilt("sharded", .init(shards: 3))
        func commonWords(_ indexer: StoreIndexer) throws -> [String] {
            let list = try SearchReader(path: indexer.location.root).metadata(SearchIndexLayout.wordPairsKey)
            return list.split(separator: "\n").map(String.init)
        }
        let words = try commonWords(sharded)
        #expect(words.count > 50 && words.count <= SearchableIndex.commonWordMaximumCount)
        #expect(words.contains("upstream") && words.contains("release"))
        let sample = try store.read {
            try sharded.mapping.sampleDocuments(in: $0, count: SearchableIndex.commonWordSampleSize)
        }
        #expect(words == (try SearchableIndex.commonWords(of: sample)))

        let project = try store.addProject(title: "Pairs")
        try store.addItem(
            projectID: project.id, title: "release upstream of the upstream release", detail: "new upstream")
        try store.updateItem(
            id: try store.read { try $0.sampleItems(count: 1) }[0].id, ItemChanges(detail: "the new upstream release"))
        #expect(try sharded.catchUp().rebuildReason == nil)
        #expect(try commonWords(sharded) == words)
        let fresh = try rebuilt("fresh", .init(shards: 2))
        let queries = [
            "\"release upstream\"", "\"upstream release\"", "\"new upstream release\"", "title:\"the upstream\"",
        ]
        for query in queries {
            let hits = try everyHit(sharded, query)
            #expect(!hits.isEmpty, "\(query)")
            #expect(hits == (try everyHit(fresh, query)), "\(query)")
        }
    }

    func directorySize(_ path: String) -> Int {
        let enumerator = FileManager.default.enumerator(atPath: path)
        var total = 0
        while let name = enumerator?.nextObject() as? String {
            total += (try? FileManager.default.attributesOfItem(atPath: path + "/" + name)[.size] as? Int) ?? 0
        }
        return total
    }
}
