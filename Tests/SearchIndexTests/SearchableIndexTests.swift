import Foundation
import SearchIndex
import Synchronization
import TestSupport
import Testing
import Xapian

@Suite struct SearchableIndexTests {
    let directory = TemporaryDirectory("searchindex")
    var path: String { directory.file("index") }

    static func item(
        _ id: String, domain: String = "home", title: String, detail: String = "", priority: Int? = 2,
        completed: Bool = false, kind: SearchableItemAttributeSet.Kind = .item, container: String = "Home renovation"
    ) -> SearchableItem {
        SearchableItem(
            uniqueIdentifier: id, domainIdentifier: domain,
            attributeSet: SearchableItemAttributeSet(
                title: title, contentDescription: detail, kind: kind, containerTitle: container, priority: priority,
                isCompleted: completed, createdAt: 1_700_000_000, modifiedAt: 1_700_000_000))
    }

    func search(_ text: String, limit: Int = 20) throws -> [String] {
        let reader = try SearchReader(path: path)
        return try reader.search(try SearchQueryParser().parse(text), SearchRequest(limit: limit)).hits.map(
            \.uniqueIdentifier)
    }

    @Test func indexSearchDeleteByIdentifierAndByDomain() throws {
        let index = try SearchableIndex(path: path)
        try index.indexSearchableItems([
            Self.item("tap", title: "Fix the leaking tap", detail: "washer is worn"),
            Self.item("paint", title: "Paint the ceiling"),
            Self.item("mow", domain: "garden", title: "Mow the lawn", container: "Garden"),
        ])
        #expect(try search("leaking tap") == ["tap"])
        #expect(try search("washer") == ["tap"])  // detail words are searched too
        try index.deleteSearchableItems(withIdentifiers: ["tap", "not-there"])
        #expect(try search("tap").isEmpty)
        try index.deleteSearchableItems(withDomainIdentifiers: ["home"])
        #expect(try SearchReader(path: path).documentCount() == 1)
        try index.deleteAllSearchableItems()
        #expect(try SearchReader(path: path).documentCount() == 0)
    }

    /// Equal scores come in index order, the document first added last first, on every page and wherever a run
    /// of equal scores meets a page's edge; replacing a document keeps its place; `reverse` flips ties too.
    @Test func tiesBreakByIndexOrderLatestFirstOnEveryPage() throws {
        let index = try SearchableIndex(path: path)
        // Added in a scrambled identifier order; five groups of four identical documents.
        let added = (0..<20).map { ($0 * 7) % 20 }
        func item(_ number: Int, title: String = "pipe") -> SearchableItem {
            let words = Array(repeating: "leak", count: 1 + number % 5).joined(separator: " ")
            return Self.item(String(format: "id-%02d", number), title: title, detail: words + " under the sink")
        }
        try index.indexSearchableItems(added.map { item($0) })
        let position = Dictionary(uniqueKeysWithValues: added.enumerated().map { (String(format: "id-%02d", $1), $0) })
        let reader = try SearchReader(path: path)
        let query = try SearchQueryParser().parse("leak")
        let all = try reader.search(query, SearchRequest(limit: 100)).hits
        #expect(all.count == 20)
        for (earlier, later) in zip(all, all.dropFirst()) {
            #expect(
                earlier.score > later.score
                    || (earlier.score == later.score
                        && position[earlier.uniqueIdentifier]! > position[later.uniqueIdentifier]!)
            )
        }
        for offset in 0..<20 {
            for limit in [1, 2, 3, 5, 7] {
                let page = try reader.search(query, SearchRequest(offset: offset, limit: limit)).hits
                #expect(page == Array(all.dropFirst(offset).prefix(limit)), "offset \(offset), limit \(limit)")
            }
        }
        // Filters alone score zero: the whole order is the index's, latest first, or first first reversed.
        let latestFirst = added.reversed().map { String(format: "id-%02d", $0) }
        let filter = try SearchQueryParser().parse("kind:item")
        #expect(
            try reader.search(filter, SearchRequest(offset: 3, limit: 4)).hits.map(\.uniqueIdentifier)
                == Array(latestFirst[3..<7]))
        #expect(
            try reader.search(filter, SearchRequest(limit: 20, sort: .created, reverse: true)).hits.map(
                \.uniqueIdentifier)
                == latestFirst.reversed())

        // A replaced document keeps its place among its equals.
        try index.indexSearchableItems([item(added[0], title: "pipe again")])
        try reader.reopen()
        #expect(try reader.search(filter, SearchRequest(limit: 20)).hits.map(\.uniqueIdentifier) == latestFirst)
    }

    /// Sorted by a value, hits go by that value and what it leaves tied by index order, latest first (as with equal
    /// scores), however well each matches; each hit still has the score a search by relevance gives it, and the
    /// matches and their count are the same.
    @Test func aSortByValueKeepsScoresAndBreaksTiesByIndexOrder() throws {
        let index = try SearchableIndex(path: path)
        let added = (0..<24).map { ($0 * 5) % 24 }
        try index.indexSearchableItems(
            added.map { number in
                // Three modification times, so most values tie; how well an item matches varies across each tie.
                let words = Array(repeating: "leak", count: 1 + number % 4).joined(separator: " ")
                let detail = number % 3 == 0 ? "pipe leak under the sink " + words : "the pipe under the sink " + words
                return SearchableItem(
                    uniqueIdentifier: String(format: "id-%02d", number), domainIdentifier: "home",
                    attributeSet: SearchableItemAttributeSet(
                        title: number % 2 == 0 ? "Pipe leak" : "Kitchen pipe", contentDescription: detail,
                        containerTitle: "Home", priority: 1 + number % 3, createdAt: 1_700_000_000 + Int64(number % 2),
                        modifiedAt: 1_700_000_000 + Int64(number % 3) * 60))
            })
        let reader = try SearchReader(path: path)
        let query = try SearchQueryParser().parse("pipe leak")
        let byRelevance = try reader.search(query, SearchRequest(limit: 100))
        let scores = Dictionary(uniqueKeysWithValues: byRelevance.hits.map { ($0.uniqueIdentifier, $0.score) })
        #expect(byRelevance.hits.count == 24)
        #expect(Set(scores.values).count > 3)  // the ties below are not ties of score
        let position = Dictionary(uniqueKeysWithValues: added.enumerated().map { (String(format: "id-%02d", $1), $0) })
        func number(_ id: String) -> Int { Int(id.dropFirst(3))! }
        for sort in [SearchSort.modified, .priority] {
            let sorted = try reader.search(query, SearchRequest(limit: 100, sort: sort))
            #expect(sorted.total == byRelevance.total)
            #expect(Set(sorted.hits.map(\.uniqueIdentifier)) == Set(scores.keys))
            func key(_ id: String) -> [Int] {
                let n = number(id)
                return sort == .modified ? [n % 3] : [1 + n % 3, n % 2]
            }
            for (earlier, later) in zip(sorted.hits, sorted.hits.dropFirst()) {
                let (a, b) = (key(earlier.uniqueIdentifier), key(later.uniqueIdentifier))
                #expect(
                    a.lexicographicallyPrecedes(b) == false,
                    "\(sort): \(earlier.uniqueIdentifier) before \(later.uniqueIdentifier)")
                if a == b {
                    #expect(
                        position[earlier.uniqueIdentifier]! > position[later.uniqueIdentifier]!, "\(sort): tie order")
                }
            }
            for hit in sorted.hits {
                #expect(abs(hit.score - scores[hit.uniqueIdentifier]!) < 1e-9, "\(sort): \(hit.uniqueIdentifier)")
            }
            // Pages are cut from the same order.
            for offset in [0, 5, 11] {
                let page = try reader.search(query, SearchRequest(offset: offset, limit: 6, sort: sort)).hits
                #expect(page == Array(sorted.hits.dropFirst(offset).prefix(6)), "\(sort) from \(offset)")
            }
        }
    }

    /// A reader of an index of 300 items of `texts` (titles of 1–6 words, details of up to 30).
    func randomTextsReader(_ texts: inout RandomTexts) throws -> SearchReader {
        let index = try SearchableIndex(path: path)
        try index.indexSearchableItems(
            (0..<300).map {
                Self.item("item-\($0)", title: texts.text(1...6), detail: texts.text(0...30))
            })
        return try SearchReader(path: path)
    }

    /// The score of each of `query`'s first 400 hits, by identifier.
    static func scores(_ reader: SearchReader, _ query: SearchQuery) throws -> [String: Double] {
        let hits = try reader.search(query, SearchRequest(limit: 400)).hits
        return Dictionary(uniqueKeysWithValues: hits.map { ($0.uniqueIdentifier, $0.score) })
    }

    /// A page sorted by value weighs its hits as a relevance search does, an OR of phrases too. Its hits were weighed
    /// by the whole query filtered to them (OP_FILTER), where Xapian 1.4 checks an OR's branches at a document without
    /// their phrases' positions: with a 20-hit page, `"ant bee" OR "cat dog"` gave a document holding "cat dog" in its
    /// title and "bee … ant" in its detail the weight of "ant bee" too (5.73 by relevance, 6.19 sorted).
    @Test func aSortedPageWeighsPhrasesAsRelevanceDoes() throws {
        var texts = RandomTexts()
        let reader = try randomTextsReader(&texts)
        for text in ["\"ant bee\" OR \"cat dog\"", "\"bee cat\" OR \"ant dog\" OR elk", "\"dog ant\" bee"] {
            let query = try SearchQueryParser().parse(text)
            let scores = try Self.scores(reader, query)
            for limit in [5, 20, 50] {
                for hit in try reader.search(query, SearchRequest(limit: limit, sort: .modified)).hits {
                    let expected = scores[hit.uniqueIdentifier, default: -1]
                    #expect(abs(hit.score - expected) < 1e-9, "\(text), \(limit): \(hit)")
                }
            }
        }
    }

    /// After a search, whether a word is known (the spelling check of a search with few hits) is what the index says,
    /// whether the match read the word's terms (a word of the query, stemmed or in a phrase, in either field) or not:
    /// a word only in titles, one only in details, one nowhere, and a word the query does not hold.
    @Test func theResultsKnowWhatTheIndexKnows() throws {
        let index = try SearchableIndex(path: path)
        try index.indexSearchableItems([
            Self.item("1", title: "Leaking tap", detail: "the washer is worn"),
            Self.item("2", title: "Paint the fence", detail: "two coats of varnish"),
            Self.item("3", title: "Fences", detail: "leaks everywhere"),
        ])
        let reader = try SearchReader(path: path)
        let words = ["leaking", "leaks", "tap", "washer", "varnish", "fence", "fences", "paint", "gutter", "worn"]
        for text in ["leaking gutter", "\"worn washer\"", "title:fence OR varnish", "gutter", "\"two coats\" paint"] {
            let results = try reader.search(try SearchQueryParser().parse(text), SearchRequest(limit: 10))
            for word in words {
                #expect(try results.knowsWord(word) == reader.knowsWord(word), "\(text): \(word)")
            }
        }
        #expect(try reader.knowsWord("tap") && !reader.knowsWord("gutter") && reader.knowsWord("varnish"))
    }

    /// A phrase weighs what its words weigh together, in the detail and in the title (`detail:"a b"` as `detail:"a"
    /// detail:"b"`, `title:"a b"` as `title:"a" title:"b"`), at every document it matches: a detail's phrase is only
    /// checked and its words are weighed beside it, so that Xapian checks positions before it weighs a candidate.
    @Test func aPhraseWeighsWhatItsWordsWeighTogether() throws {
        var texts = RandomTexts()
        let reader = try randomTextsReader(&texts)
        var compared = 0
        for _ in 0..<40 {
            let (first, second) = (texts.word(), texts.word())
            guard first != second else { continue }
            for field in ["detail", "title"] {
                let phrase = try SearchQueryParser().parse("\(field):\"\(first) \(second)\"")
                let words = try SearchQueryParser().parse("\(field):\"\(first)\" \(field):\"\(second)\"")
                let scores = try Self.scores(reader, words)
                for hit in try reader.search(phrase, SearchRequest(limit: 400)).hits {
                    let expected = scores[hit.uniqueIdentifier, default: -1]
                    #expect(abs(hit.score - expected) < 1e-9, "\(field): \(first) \(second), \(hit)")
                    compared += 1
                }
            }
        }
        #expect(compared > 50)
    }

    /// A search with a time limit stops matching at it: past the limit its total is not claimed exact and its page
    /// holds only what was examined; well within it, hits and total are those of a search without one.
    @Test func aTimeLimitStopsTheMatchAndSaysTheTotalIsNotExact() throws {
        let index = try SearchableIndex(path: path)
        try index.indexSearchableItems(
            (0..<300).map {
                Self.item(String(format: "id-%03d", $0), title: "Fix pipe \($0 % 7)", detail: "leak \($0 % 5)")
            })
        let reader = try SearchReader(path: path)
        let query = try SearchQueryParser().parse("pipe OR leak")
        let unlimited = try reader.search(query, SearchRequest(limit: 50))
        #expect(unlimited.isExact && unlimited.total == 300)
        var request = SearchRequest(limit: 50)
        request.timeLimit = 60
        let within = try reader.search(query, request)
        #expect(within.hits == unlimited.hits && within.isExact && within.total == 300)
        request.timeLimit = 1e-9
        // It asks the clock every 64 documents: at most that many examined, by a match of words joined by AND (one
        // walk) or by OR (the page's walk, then the count's). "pipe OR leak" itself is done sooner: every document
        // holds "pipe", so the page's walk stops at its best 50 and the lists' lengths give the exact total.
        for text in ["pipe leak", "3 OR 4"] {
            let past = try reader.search(try SearchQueryParser().parse(text), request)
            #expect(
                !past.isExact && past.total <= 64 && past.hits.count <= 50, "\(text): \(past.total) \(past.hits.count)")
        }
        // So too for a reader kept for many searches, whose short sorted pages walk a table's order (made on its
        // third search here: the table on the second, the order on its second use).
        let kept = try SearchReader(path: path)
        kept.keepsTables = true
        var sorted = SearchRequest(limit: 1, sort: .created)
        sorted.timeLimit = 1e-9
        for round in 0..<4 {
            let results = try kept.search(query, sorted)
            #expect(!results.isExact && results.hits.count <= 1, "round \(round): \(results.total)")
        }
    }

    @Test func aBatchAndItsClientStateCommitTogetherOrNotAtAll() throws {
        let index = try SearchableIndex(path: path)
        #expect(try index.fetchLastClientState() == nil)
        try index.beginIndexBatch()
        try index.indexSearchableItems([Self.item("a", title: "alpha")])
        #expect(try SearchReader(path: path).documentCount() == 0)  // invisible until the end
        try index.endIndexBatch(clientState: "17")
        let reader = try SearchReader(path: path)
        #expect(try reader.documentCount() == 1)
        #expect(try reader.fetchLastClientState() == "17")

        try index.beginIndexBatch()
        try index.indexSearchableItems([Self.item("b", title: "beta")])
        try index.cancelIndexBatch()
        try reader.reopen()
        #expect(try reader.documentCount() == 1)
        #expect(try index.fetchLastClientState() == "17")
    }

    /// A reader reads each metadata value once per revision (``SearchReader/revisionMetadata(_:)``): the next
    /// commit's client state is read once the reader has moved to it, and not before.
    @Test func aReaderSeesTheClientStateOfItsRevision() throws {
        let index = try SearchableIndex(path: path)
        try index.beginIndexBatch()
        try index.indexSearchableItems([Self.item("a", title: "alpha")])
        try index.endIndexBatch(clientState: "1")
        let reader = try SearchReader(path: path)
        #expect(try reader.fetchLastClientState() == "1")
        try index.beginIndexBatch()
        try index.indexSearchableItems([Self.item("b", title: "beta")])
        try index.endIndexBatch(clientState: "2")
        #expect(try reader.fetchLastClientState() == "1")
        try reader.reopen()
        #expect(try reader.fetchLastClientState() == "2")
        #expect(try reader.revisionMetadata(SearchIndexLayout.clientStateKey) == "2")
        try reader.reopen()  // nothing new: the value read stays
        #expect(try reader.fetchLastClientState() == "2")
    }

    @Test func anUncommittedBatchIsLostWhenTheWriterGoesAway() throws {
        do {
            let index = try SearchableIndex(path: path)
            try index.beginIndexBatch()
            try index.indexSearchableItems([Self.item("a", title: "alpha")])
            // No endIndexBatch: the process "dies" here.
        }
        let reopened = try SearchableIndex(path: path)
        #expect(try reopened.documentCount() == 0)
        #expect(try reopened.fetchLastClientState() == nil)
    }

    @Test func theTitleIsIndexedOnceUnderItsPrefix() throws {
        let index = try SearchableIndex(path: path)
        try index.indexSearchableItems([Self.item("a", title: "zebra", detail: "giraffe")])
        try index.close()
        let output = run(["xapian-delve", "-a", path]).stdout
        let terms = Set(output.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
        #expect(terms.contains("Szebra"))
        #expect(!terms.contains("zebra"))
        #expect(terms.contains("giraffe"))
        #expect(!terms.contains("Sgiraffe"))
        #expect(try search("zebra") == ["a"])
        #expect(try search("title:zebra") == ["a"])
        #expect(try search("title:giraffe").isEmpty)
        #expect(try search("detail:giraffe") == ["a"])
    }

    /// `APIs`, `IDs`, `JVMs`: an acronym's plural is one word, not `AP Is`, which matched every "is".
    @Test func anAcronymsPluralIsOneWord() throws {
        let index = try SearchableIndex(path: path)
        try index.indexSearchableItems(
            [
                Self.item("apis", title: "Batch APIs for delete"),
                Self.item("is", title: "Delete is slow", detail: "it is what it is"),
            ] + Self.chores)
        #expect(try search("APIs") == ["apis"])
        #expect(try search("api") == ["apis"])
        #expect(try search("is") == ["is"])
    }

    @Test func aPhraseInATitleRanksAboveThePhraseInADetail() throws {
        let index = try SearchableIndex(path: path)
        let items = [
            Self.item(
                "detail", title: "Weekend chores", detail: "fix the leaking kitchen tap; the leaking kitchen tap drips"),
            Self.item(
                "title", title: "Leaking kitchen tap under the sink of the old flat needs washers and a plumber",
                detail: "call a plumber"),
        ]
        try index.indexSearchableItems(items + Self.chores)
        #expect(try search("\"leaking kitchen tap\"") == ["title", "detail"])
        #expect(try search("title:\"leaking kitchen tap\"") == ["title"])
    }

    @Test func allWordsMustMatchAndPhrasesAndBooleansWork() throws {
        let index = try SearchableIndex(path: path)
        try index.indexSearchableItems([
            Self.item("1", title: "leaking tap in the kitchen"),
            Self.item("2", title: "tap the leaking barrel"),
            Self.item("3", title: "kitchen window"),
        ])
        #expect(Set(try search("leaking tap")) == ["1", "2"])
        #expect(try search("\"leaking tap\"") == ["1"])
        #expect(Set(try search("tap OR window")) == ["1", "2", "3"])
        #expect(try search("kitchen NOT tap") == ["3"])
        #expect(Set(try search("(barrel OR window) AND NOT leaking")) == ["3"])
        #expect(try search("leaks").count == 2)  // stemming: leaks ~ leaking
    }

    @Test func filtersMapToBooleanTerms() throws {
        let index = try SearchableIndex(path: path)
        try index.indexSearchableItems([
            Self.item("open", title: "task one", priority: 3),
            Self.item("done", title: "task two", priority: 1, completed: true),
            Self.item("garden", domain: "tracker://s/project/g", title: "task three", container: "Garden  Shed"),
            Self.item("home", domain: "home", title: "Home renovation", priority: nil, kind: .project),
            // A project's title is its own document's: `project:` finds the rest of its domain through it.
            Self.item(
                "tracker://s/project/g", domain: "tracker://s/project/g", title: "Garden shed", priority: nil,
                kind: .project, container: "Garden  Shed"),
        ])
        #expect(Set(try search("task is:open")) == ["open", "garden"])
        #expect(try search("task is:completed") == ["done"])
        #expect(try search("task priority:3") == ["open"])
        #expect(Set(try search("kind:project")) == ["home", "tracker://s/project/g"])
        #expect(try search("task project:\"garden shed\"") == ["garden"])
        #expect(Set(try search("project:\"garden shed\"")) == ["garden", "tracker://s/project/g"])
        #expect(try search("task project:\"shed\"").isEmpty)
        #expect(try search("task project:tracker://s/project/g") == ["garden"])
        // Only the project's document holds its title's term.
        let database = try Database(path: path)
        let titles = try database.termsWithValue(prefix: TermPrefix.containerTitle, slot: ValueSlot.uniqueIdentifier)
        let expected = ["Garden shed", "Home renovation"].map(TermPrefix.containerTitleTerm)
        #expect(titles.map(\.term).sorted() == expected.sorted())
        for term in expected {
            #expect(try database.match(Query(term: term), limit: 10).hits.count == 1, "\(term)")
        }
        #expect(Set(try search("task NOT is:completed")) == ["open", "garden"])
        // A query of only a negated filter excludes (Xapian alone would turn it into the filter itself).
        #expect(Set(try search("-is:completed")) == ["open", "garden", "home", "tracker://s/project/g"])
        #expect(Set(try search("kind:item -priority:2..3")) == ["done"])
        #expect(Set(try search("task priority:>=2")) == ["open", "garden"])
    }

    @Test(arguments: [
        (
            "is:pending",
            "cannot parse the query 'is:pending': is:pending is not a status; use is:open, is:completed or is:closed"
        ),
        (
            "kind:task",
            "cannot parse the query 'kind:task': kind:task is not a kind; use kind:item, kind:project or kind:message"
        ),
        ("priority:9", "cannot parse the query 'priority:9': no priority is 9; priorities are 1, 2 and 3"),
        ("   ", "the query is empty; type some words, or a filter such as kind:item"),
        (
            "tap AND",
            "cannot parse the query 'tap AND': AND needs a word or phrase on each side; to search for the word itself, "
                + "write it in lowercase (and) or quote it"
        ),
    ])
    func badQueriesFailWithASentence(query: String, message: String) throws {
        do {
            _ = try SearchQueryParser().parse(query)
            Issue.record("\(query) parsed")
        } catch {
            #expect(error.code == .querySyntax)
            #expect(error.message == message)
        }
    }

    @Test func wordsLongerThanTheTermLimitAreSkippedAndTheRestIndexed() throws {
        let index = try SearchableIndex(path: path)
        let huge = String(repeating: "x", count: 5_000)
        let longTitle = String(repeating: "Very long project name ", count: 30)
        try index.indexSearchableItems([
            Self.item("a", title: "odd entry", detail: "before \(huge) after", container: longTitle),
            Self.item("home", title: longTitle, priority: nil, kind: .project, container: longTitle),
        ])
        #expect(try search("before after") == ["a"])
        #expect(try search("odd project:\"\(longTitle)\"") == ["a"])
    }

    @Test func fingerprintsChangeWithIndexedAttributes() throws {
        let a = Self.item("a", title: "one")
        var b = a
        b.attributeSet.isCompleted = true
        #expect(a.fingerprint != b.fingerprint)
        #expect(a.fingerprint == Self.item("a", title: "one").fingerprint)
        let index = try SearchableIndex(path: path)
        try index.indexSearchableItems([a])
        #expect(try SearchReader(path: path).fingerprints() == ["a": a.fingerprint])
    }
}
