import Foundation
import SearchIndex
import Synchronization
import TestSupport
import Testing
import Xapian

/// How matches are ranked: title above detail, phrases above scattered words, compounds, the rescoring window.
extension SearchableIndexTests {
    @Test func titleMatchesRankAboveDetailMatches() throws {
        let index = try SearchableIndex(path: path)
        try index.indexSearchableItems([
            Self.item("detail", title: "Kitchen work", detail: "the boiler makes noise at night and the boiler is old"),
            Self.item("title", title: "Replace the boiler", detail: "call the installer"),
            Self.item("other", title: "Unrelated", detail: "nothing here"),
        ])
        #expect(try search("boiler") == ["title", "detail"])
    }

    /// Items none of the ranking tests search for, so that the words they do search for are rare, as in a tracker.
    static let chores = [
        "paint the fence", "order new tiles", "clean the gutters", "replace the boiler", "sand the floor",
        "kitchen shelves",
    ].enumerated().map { number, words in
        item("chore-\(number)", title: words.capitalized, detail: "then " + words)
    }

    /// Many tracker items have only a title. Such an item, titled with just the words searched for, comes before
    /// one whose title says more and whose detail repeats the words: a title word counts once in the text as well
    /// as in the title, not once in the title and again for every repetition in the detail.
    @Test func anItemWithOnlyATitleIsNotOutrankedByADetailThatRepeatsIt() throws {
        let index = try SearchableIndex(path: path)
        let items = [
            Self.item("bare", title: "Upgrade ZooKeeper"),
            Self.item(
                "wordy", title: "Upgrade ZooKeeper and Curator in the build",
                detail: "The ZooKeeper upgrade: upgrade ZooKeeper, then Curator, in every module of the build."),
        ]
        try index.indexSearchableItems(items + Self.chores)
        #expect(try search("upgrade OR zookeeper") == ["bare", "wordy"])
        #expect(try search("zookeeper OR curator") == ["wordy", "bare"])
    }

    /// A compound word weighs as the better of its two forms, the whole word or its parts together, not as both
    /// added: an item that writes `ZooKeeper` earns `zookeeper`, `zoo` and `keeper`, and had outranked an item
    /// writing `Zookeeper` that also says the other words asked for (the title-OR task of `make relevance`).
    @Test func aCompoundWordWeighsAsItsBetterFormNotBothAdded() throws {
        let index = try SearchableIndex(path: path)
        let items = [
            Self.item("camel", title: "ZooKeeper logs"),
            Self.item("plain", title: "Zookeeper session expiry is not handled by the client library"),
        ]
        try index.indexSearchableItems(items + Self.chores)
        #expect(try search("ZooKeeper OR session OR expiry") == ["plain", "camel"])
        #expect(try search("ZooKeeper session") == ["plain"])
        #expect(Set(try search("ZooKeeper")) == ["camel", "plain"])
    }

    /// The phrase bonus and the title similarity are weighed for the best matches only (a rescoring window): the
    /// total and the facets still count every match, pages within the window join up without a hit twice or
    /// missing, each page is in score order, and a window that holds every match gives the whole query's hits.
    @Test func aRescoredWindowCountsEveryMatchAndItsPagesJoinUp() throws {
        let index = try SearchableIndex(path: path)
        var items: [SearchableItem] = []
        for number in 0..<60 {
            // Phrases in some titles and details, the words apart in others, titles long and short.
            let title =
                number % 3 == 0 ? "leaking tap number \(number)" : "tap and \(number) other leaking things to fix"
            let detail = number % 4 == 0 ? "the leaking tap drips" : "a tap, then more words, then leaking"
            items.append(
                Self.item("i\(number)", title: title, detail: String(repeating: detail + " ", count: 1 + number % 5)))
        }
        try index.indexSearchableItems(items)
        let reader = try SearchReader(path: path)
        for text in ["leaking tap", "tap leaking number", "leaking", "tap OR drips"] {
            let query = try SearchQueryParser().parse(text)
            var whole = SearchRequest(limit: 60, facets: [.status])
            whole.ranking.rescoreWindow = 0
            let every = try reader.search(query, whole)
            func page(_ offset: Int, _ limit: Int) throws -> SearchResults {
                var request = SearchRequest(offset: offset, limit: limit, facets: [.status])
                request.ranking.rescoreWindow = 40
                return try reader.search(query, request)
            }
            let first = try page(0, 20)
            let second = try page(20, 20)
            let both = try page(0, 40)
            #expect(first.total == every.total && first.isExact && "\(first.facets)" == "\(every.facets)", "\(text)")
            #expect((first.hits + second.hits).map(\.uniqueIdentifier) == both.hits.map(\.uniqueIdentifier), "\(text)")
            #expect(zip(both.hits, both.hits.dropFirst()).allSatisfy { $0.score >= $1.score }, "\(text)")
            // A window as large as the page reaches past every match: the same documents as the whole query.
            let all = try page(0, 60)
            #expect(Set(all.hits.map(\.uniqueIdentifier)) == Set(every.hits.map(\.uniqueIdentifier)), "\(text)")
        }
    }

    /// A rescored window weighs each of its items as the whole query does (the window changes which items are
    /// weighed in full, never what an item weighs), and the phrase bonus goes only to the items that hold the words
    /// together. Xapian 1.4's own phrase check, under the bonus's AND_MAYBE beside the title similarity, gave the
    /// phrase's weight to items holding the words apart: the whole query did for some items, a window for others.
    @Test func aRescoredWindowWeighsItemsAsTheWholeQuery() throws {
        let index = try SearchableIndex(path: path)
        // A small vocabulary, so that the words of a query meet often, together and apart.
        let words = ["tap", "leak", "sink", "pipe", "drain", "valve", "seal", "wash", "fit", "bend", "hose", "clog"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        func text(_ count: Int) -> String { (0..<count).map { _ in words[next(words.count)] }.joined(separator: " ") }
        var items: [SearchableItem] = []
        var texts: [String: (title: String, detail: String)] = [:]
        for number in 0..<1_500 {
            let title = text(3 + next(4))
            let detail = text(20 + next(40))
            texts["i\(number)"] = (title, detail)
            items.append(Self.item("i\(number)", title: title, detail: detail))
        }
        try index.indexSearchableItems(items)
        let reader = try SearchReader(path: path)
        for query in ["tap leak", "sink pipe", "valve seal", "hose clog"] {
            let parsed = try SearchQueryParser().parse(query)
            var whole = SearchRequest(limit: 50)
            whole.ranking.rescoreWindow = 0
            var windowed = SearchRequest(limit: 50)
            windowed.ranking.rescoreWindow = 50
            let everyScore = Dictionary(
                try reader.search(parsed, whole).hits.map { ($0.uniqueIdentifier, $0.score) }, uniquingKeysWith: max)
            let hits = try reader.search(parsed, windowed).hits
            #expect(hits.count == 50)
            var compared = 0
            for hit in hits {
                guard let score = everyScore[hit.uniqueIdentifier] else { continue }
                compared += 1
                #expect(abs(score - hit.score) < 1e-9, "\(query): \(hit.uniqueIdentifier) \(hit.score) vs \(score)")
            }
            #expect(compared >= 15, "\(query): only \(compared) items in both")
            // The best item holds the words together somewhere.
            if let best = hits.first, let text = texts[best.uniqueIdentifier] {
                #expect((text.title + " " + text.detail).contains(query), "\(query): \(best.uniqueIdentifier)")
            }
        }
    }

    @Test func exactPhrasesRankAboveScatteredWords() throws {
        let index = try SearchableIndex(path: path)
        try index.indexSearchableItems([
            // More of each word, but apart: BM25 alone ranks this first.
            Self.item(
                "scattered", title: "Update",
                detail: "memory use grew and memory was low; a leak in the pipe, a leak in the tank"),
            Self.item("phrase", title: "Update", detail: "fixed a memory leak in the parser of the config file reader"),
        ])
        #expect(try search("memory leak") == ["phrase", "scattered"])
        // The bonus only adds weight: every document with all the words still matches.
        #expect(try search("leak memory").count == 2)
    }
}
