import Foundation
import SearchIndex
import TestSupport
import Testing
import Xapian

/// An index packs each document's positions into its data (``SearchableIndex/packsPositions``): it keeps none in
/// Xapian's position table, and must find, rank and count every phrase, window and NEAR as an index that does.
@Suite struct PackedPositionsTests {
    let directory = TemporaryDirectory("positions")

    static func item(_ id: String, title: String, detail: String, modified: Int64 = 0) -> SearchableItem {
        SearchableItem(
            uniqueIdentifier: id, domainIdentifier: "home",
            attributeSet: SearchableItemAttributeSet(
                title: title, contentDescription: detail, containerTitle: "Home", priority: 2,
                createdAt: 1_700_000_000, modifiedAt: 1_700_000_000 + modified))
    }

    @Test func everyPhraseFindsRanksAndCountsAsWithXapiansPositions() throws {
        let vocabulary = [
            "the", "the", "a", "leak", "leaks", "leaking", "pipe", "pipes", "kitchen", "tap", "fix", "new", "upstream",
            "release", "e-mail", "ZooKeeper", "zoo", "keeper", "v1.2", "日本語", "café", "of", "and", "sink",
        ]
        var random = SeededRandom(seed: UInt64(ProcessInfo.processInfo.environment["TEXTS_SEED"] ?? "") ?? 5)
        func text(_ count: ClosedRange<Int>) -> String {
            (0..<Int.random(in: count, using: &random)).map { _ in vocabulary.randomElement(using: &random)! }
                .joined(separator: " ")
        }
        func items(_ ids: Range<Int>) -> [SearchableItem] {
            ids.map { Self.item("item-\($0)", title: text(1...6), detail: text(0...40), modified: Int64($0 % 9)) }
        }
        let packedPath = directory.file("packed")
        let plainPath = directory.file("plain")
        let packed = try SearchableIndex(path: packedPath)
        let plain = try SearchableIndex(path: plainPath, packsPositions: false)
        #expect(packed.packsPositions)
        #expect(!plain.packsPositions)
        let first = items(0..<400)
        try packed.indexSearchableItems(first)
        try plain.indexSearchableItems(first)

        let queries = [
            "\"leaking pipe\"", "\"the kitchen tap\"", "\"the the\"", "\"new upstream release\"", "title:\"fix the\"",
            "\"pipe\" \"kitchen tap\"", "leak NEAR pipe", "leak NEAR/2 leak", "tap ADJ/3 kitchen", "kitchen ADJ/3 tap",
            "\"a leak\" OR \"the sink\"", "-\"the kitchen\" pipe", "e-mail", "ZooKeeper", "\"zoo keeper\"", "日本語",
            "\"café of\"", "\"leaks and\" kitchen", "\"v1.2 release\"", "title:leak NEAR pipe", "pipe leak",
        ]
        let requests = [
            SearchRequest(limit: 20), SearchRequest(offset: 7, limit: 30), SearchRequest(limit: 25, sort: .modified),
            SearchRequest(limit: 10, facets: [.status]),
        ]
        func expectSame(_ round: String) throws {
            let packedReader = try SearchReader(path: packedPath)
            let plainReader = try SearchReader(path: plainPath)
            for text in queries {
                let query = try SearchQueryParser(reader: packedReader).parse(text)
                let plainQuery = try SearchQueryParser(reader: plainReader).parse(text)
                for request in requests {
                    let found = try packedReader.search(query, request)
                    let expected = try plainReader.search(plainQuery, request)
                    let context = "\(round): \(text), \(request)"
                    #expect(found.total == expected.total, "\(context)")
                    #expect(found.isExact == expected.isExact, "\(context)")
                    #expect(found.hits.map(\.uniqueIdentifier) == expected.hits.map(\.uniqueIdentifier), "\(context)")
                    for (hit, want) in zip(found.hits, expected.hits) where abs(hit.score - want.score) >= 1e-9 {
                        Issue.record("\(context): \(hit.uniqueIdentifier) scores \(hit.score), not \(want.score)")
                    }
                }
                // A subscription's matches (a match that weighs nothing).
                let ids = (0..<500).map { "item-\($0)" }
                #expect(
                    try packedReader.matching(query, among: ids) == plainReader.matching(plainQuery, among: ids),
                    "\(round): \(text)")
            }
        }
        try expectSame("built")
        // Items rewritten, added (with words the index has not numbered yet) and deleted, in a batch and one by one.
        try packed.beginIndexBatch()
        try plain.beginIndexBatch()
        var changed = items(0..<150) + items(400..<500)
        changed.append(Self.item("item-500", title: "quartz vellum", detail: "the quartz vellum leaking pipe"))
        try packed.indexSearchableItems(changed)
        try plain.indexSearchableItems(changed)
        try packed.endIndexBatch(clientState: "1")
        try plain.endIndexBatch(clientState: "1")
        let gone = (150..<200).map { "item-\($0)" }
        try packed.deleteSearchableItems(withIdentifiers: gone)
        try plain.deleteSearchableItems(withIdentifiers: gone)
        try expectSame("changed")
        // Xapian's position table is empty in the packed index.
        #expect(try !Database(path: packedPath).hasPositions)
        #expect(try Database(path: plainPath).hasPositions)
    }

    /// A cancelled batch takes back the numbers it gave new words (their metadata went with it): the words are
    /// numbered again when an item next holds them, and phrases of them find it.
    @Test func aCancelledBatchsNumbersAreGivenAgain() throws {
        let path = directory.file("cancelled")
        let index = try SearchableIndex(path: path)
        try index.indexSearchableItems([Self.item("a", title: "first", detail: "amber basalt")])
        try index.beginIndexBatch()
        try index.indexSearchableItems([Self.item("b", title: "second", detail: "cobalt dolomite")])
        try index.cancelIndexBatch()
        try index.indexSearchableItems([Self.item("c", title: "third", detail: "cobalt dolomite emerald")])
        let reader = try SearchReader(path: path)
        for (phrase, ids) in [("\"amber basalt\"", ["a"]), ("\"cobalt dolomite\"", ["c"]), ("\"second\"", [])] {
            let found = try reader.search(try SearchQueryParser(reader: reader).parse(phrase))
            #expect(found.hits.map(\.uniqueIdentifier) == ids, "\(phrase)")
        }
    }

    /// The shards of one build share their numbers, and the merged index numbers new words after all of them: a
    /// word added later never takes the number of a word a later shard numbered.
    @Test func shardsMergedNumberNewWordsAfterAllOfThem() throws {
        let shards = SearchableIndex.Shards()
        let paths = [directory.file("shard-0"), directory.file("shard-1")]
        let texts = [["amber basalt", "amber cobalt"], ["dolomite emerald", "feldspar garnet", "hematite iolite"]]
        for (shard, path) in paths.enumerated() {
            let index = try SearchableIndex(path: path, durable: false, bulkLoad: true, shards: shards)
            try index.indexSearchableItems(
                texts[shard].enumerated().map { Self.item("s\(shard)-\($0.offset)", title: "", detail: $0.element) })
            try index.commit(clientState: "1")
            try index.close()
        }
        let merged = directory.file("merged")
        try SearchableIndex.merge(paths, into: merged)
        let index = try SearchableIndex(path: merged)
        // With the first shard's next number, the new words would take those of the second shard's first words
        // (numbered in term order: jasper, then quartz), and "dolomite quartz jasper emerald" would hold the phrase
        // "dolomite emerald" by its numbers.
        try index.indexSearchableItems([Self.item("new", title: "", detail: "dolomite quartz jasper emerald")])
        try index.close()
        let reader = try SearchReader(path: merged)
        let phrases = [
            ("\"dolomite emerald\"", ["s1-0"]), ("\"quartz jasper\"", ["new"]), ("\"feldspar garnet\"", ["s1-1"]),
            ("\"amber cobalt\"", ["s0-1"]), ("\"hematite iolite\"", ["s1-2"]), ("\"jasper emerald\"", ["new"]),
        ]
        for (phrase, ids) in phrases {
            let found = try reader.search(try SearchQueryParser(reader: reader).parse(phrase))
            #expect(found.hits.map(\.uniqueIdentifier) == ids, "\(phrase)")
        }
    }
}
