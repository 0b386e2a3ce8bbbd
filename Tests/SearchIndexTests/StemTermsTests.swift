import Foundation
import SearchIndex
import TestSupport
import Testing
import Xapian

/// An index leaves out the stem terms that only repeat a word's own term (``SearchableIndex/prunesStems``): it is
/// smaller, and must find and rank everything exactly as an index that writes every stem term.
@Suite struct StemTermsTests {
    let directory = TemporaryDirectory("stems")

    static func item(
        _ id: String, title: String, detail: String, kind: SearchableItemAttributeSet.Kind = .item,
        domain: String = "home", priority: Int = 2, completed: Bool = false, modified: Int64 = 0
    )
        -> SearchableItem
    {
        SearchableItem(
            uniqueIdentifier: id, domainIdentifier: domain,
            attributeSet: SearchableItemAttributeSet(
                title: title, contentDescription: detail, kind: kind,
                containerTitle: domain == "home" ? "Home" : "Work",
                priority: kind == .project ? nil : priority, isCompleted: completed, createdAt: 1_700_000_000,
                modifiedAt: 1_700_000_000 + modified))
    }

    static func terms(_ path: String, _ prefix: String) throws -> Set<String> {
        Set(try Database(path: path).termsWithValue(prefix: prefix, slot: ValueSlot.uniqueIdentifier).map(\.term))
    }

    @Test func aStemTermIsLeftOutWhereItRepeatsTheWordAndMarkedWhereItDoesNot() throws {
        let pruned = directory.file("pruned")
        let index = try SearchableIndex(path: pruned)
        #expect(index.prunesStems)
        try index.indexSearchableItems([
            Self.item("a", title: "Leak", detail: "pipe pipe"),  // words that are their own stems, no other form
            Self.item("b", title: "Leaks and leak", detail: "sinks"),  // "leak" and another form of it in the title
            Self.item("c", title: "Sink", detail: "running"),  // "running" is not its own stem
        ])
        // "a"'s stems repeat its words; "b" keeps its title's (marked), and its "sinks" adds to "sink" in no document.
        #expect(try Self.terms(pruned, "Z") == ["ZSleak", "Zrun", "Zsink"])
        #expect(try Self.terms(pruned, TermPrefix.stemOverlap) == ["XZZSleak"])
        try index.close()
        // An index made to write every stem term keeps them, and each index keeps its choice when opened again.
        let full = directory.file("full")
        let writesAll = try SearchableIndex(path: full, prunesStems: false)
        try writesAll.indexSearchableItems([Self.item("a", title: "Leak", detail: "pipe pipe")])
        try writesAll.close()
        #expect(try Self.terms(full, "Z") == ["ZSleak", "Zpipe"])
        #expect(try SearchableIndex(path: full).prunesStems == false)
        #expect(try SearchableIndex(path: pruned, prunesStems: false).prunesStems)
    }

    /// Words with several forms, capitalised words, compounds, numbers: every kind of query finds the same hits with
    /// the same scores, totals and facets in an index that leaves stem terms out as in one that writes them all.
    @Test func everyQueryFindsAndRanksTheSameAsWithEveryStemTerm() throws {
        let vocabulary = [
            "leak", "leaks", "leaking", "leaked", "pipe", "pipes", "piping", "run", "runs", "running", "fix", "fixed",
            "fixes", "the", "a", "of", "sink", "kitchen", "Kitchen", "paint", "painting", "painted", "Hadoop", "hadoop",
            "ZooKeeper", "zookeeper", "keeper", "zoo", "e-mail", "email", "v1.2", "2024", "日本語", "café", "cafe",
            "happiness", "happy", "news", "new", "agreed", "agree",
        ]
        var random = SeededRandom(seed: UInt64(ProcessInfo.processInfo.environment["TEXTS_SEED"] ?? "") ?? 11)
        func text(_ count: ClosedRange<Int>) -> String {
            (0..<Int.random(in: count, using: &random)).map { _ in vocabulary.randomElement(using: &random)! }
                .joined(separator: " ")
        }
        func items(_ ids: Range<Int>) -> [SearchableItem] {
            ids.map { number in
                Self.item(
                    "item-\(number)", title: text(1...6), detail: text(0...40),
                    kind: number % 17 == 0 ? .project : .item, domain: number % 3 == 0 ? "work" : "home",
                    priority: 1 + number % 3, completed: number % 4 == 0, modified: Int64(number % 7) * 60)
            }
        }
        let prunedPath = directory.file("pruned")
        let fullPath = directory.file("full")
        let pruned = try SearchableIndex(path: prunedPath)
        let full = try SearchableIndex(path: fullPath, prunesStems: false)
        let first = items(0..<400)
        try pruned.indexSearchableItems(first)
        try full.indexSearchableItems(first)

        let queries = [
            "leak", "leaks", "leaking", "Leak", "pipe leak", "running pipes", "fix OR paint", "leak -pipe",
            "leak NOT sink", "\"leaking pipe\"", "\"the kitchen\"", "title:leak", "detail:leak", "title:\"fix the\"",
            "leak*", "pip*", "hadoop", "Hadoop", "ZooKeeper", "zookeeper keeper", "e-mail", "email", "v1.2", "2024",
            "日本語", "café", "cafe", "happiness", "happy", "news", "new", "agreed", "agree", "leak kind:item",
            "pipe is:open priority:3", "kitchen project:work", "(leak OR fix) AND NOT paint",
            "title:paint OR detail:running", "-leak kind:project",
        ]
        let requests = [
            SearchRequest(limit: 20), SearchRequest(offset: 7, limit: 30), SearchRequest(limit: 25, sort: .modified),
            SearchRequest(limit: 10, sort: .priority), SearchRequest(limit: 10, sort: .title, reverse: true),
            SearchRequest(limit: 10, facets: [.project, .status]),
        ]
        func expectSame(_ round: String) throws {
            let prunedReader = try SearchReader(path: prunedPath)
            let fullReader = try SearchReader(path: fullPath)
            for text in queries {
                for partial in [false, true] {
                    let query = try SearchQueryParser(reader: prunedReader).parse(text, partial: partial)
                    let fullQuery = try SearchQueryParser(reader: fullReader).parse(text, partial: partial)
                    if partial {
                        // A partial word's completions are weighed as one synonym, whose document frequency Xapian
                        // estimates from its parts: the same documents, weighed by another estimate.
                        let all = SearchRequest(limit: 1_000)
                        let found = try prunedReader.search(query, all)
                        let expected = try fullReader.search(fullQuery, all)
                        #expect(found.total == expected.total, "\(round): \(text) (partial)")
                        #expect(Set(found.hits.map(\.uniqueIdentifier)) == Set(expected.hits.map(\.uniqueIdentifier)))
                        continue
                    }
                    for request in requests {
                        let found = try prunedReader.search(query, request)
                        let expected = try fullReader.search(fullQuery, request)
                        let context = "\(round): \(text), \(request)"
                        #expect(found.total == expected.total, "\(context)")
                        let (ids, wanted) = (found.hits.map(\.uniqueIdentifier), expected.hits.map(\.uniqueIdentifier))
                        #expect(ids == wanted, "\(context)")
                        for (hit, want) in zip(found.hits, expected.hits) where abs(hit.score - want.score) >= 1e-9 {
                            Issue.record("\(context): \(hit.uniqueIdentifier) scores \(hit.score), not \(want.score)")
                        }
                        func counts(_ results: SearchResults) -> [String] {
                            let counts = results.facets.flatMap { facet, values in
                                values.map { "\(facet) \($0.value) \($0.count)" }
                            }
                            return counts.sorted()
                        }
                        #expect(counts(found) == counts(expected), "\(context)")
                    }
                    // A subscription's matches.
                    let ids = (0..<400).map { "item-\($0)" }
                    let matching = try prunedReader.matching(query, among: ids)
                    #expect(matching == (try fullReader.matching(fullQuery, among: ids)), "\(round): \(text)")
                }
            }
        }
        try expectSame("built")
        let changed = items(0..<150) + items(400..<500)
        try pruned.indexSearchableItems(changed)
        try full.indexSearchableItems(changed)
        let gone = (150..<200).map { "item-\($0)" }
        try pruned.deleteSearchableItems(withIdentifiers: gone)
        try full.deleteSearchableItems(withIdentifiers: gone)
        try expectSame("changed")
        // The pruned index is the smaller.
        #expect(try Self.terms(prunedPath, "Z").count <= Self.terms(fullPath, "Z").count)
    }
}
