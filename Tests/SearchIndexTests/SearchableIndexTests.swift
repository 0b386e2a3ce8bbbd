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

    /// Expects `kept` (a reader that keeps tables) to give exactly `plain`'s hits and total for `text`, and some hits,
    /// on three searches in a row: its tables are made on the second search at a revision.
    func expectKeptReaderAgrees(
        _ kept: SearchReader, with plain: SearchReader, _ text: String, _ request: SearchRequest, _ context: String
    ) throws {
        let query = try SearchQueryParser().parse(text)
        let expected = try plain.search(query, request)
        #expect(!expected.hits.isEmpty, "\(text)")
        for round in 0..<3 {
            let results = try kept.search(query, request)
            #expect(results.hits == expected.hits, "\(context), \(text), round \(round)")
            #expect(results.total == expected.total && results.isExact, "\(context), \(text), round \(round)")
        }
    }

    /// A reader kept for many searches reads the title similarity's word counts and the documents' lengths from
    /// tables (made on its second search at a revision); its hits and scores are exactly those of a reader that seeks
    /// through the value slot and the length list, before and after the index changes under it (titles and details
    /// made longer and shorter, documents added and deleted).
    @Test func keptTablesRankAsTheIndexDoes() throws {
        let index = try SearchableIndex(path: path)
        let words = ["pipe", "leak", "sink", "tap", "washer", "kitchen", "valve", "drain", "seal", "hose"]
        func item(_ number: Int, titleWords: Int) -> SearchableItem {
            let title = (0..<titleWords).map {
                words[(number + $0 * 3) % words.count] + ($0 >= words.count ? "\($0)" : "")
            }
            return Self.item(
                String(format: "id-%03d", number), title: title.joined(separator: " "),
                detail: (0..<(5 + (number + titleWords) % 7)).map { words[(number * 7 + $0) % words.count] }
                    .joined(separator: " "))
        }
        try index.indexSearchableItems((0..<120).map { item($0, titleWords: 1 + $0 % 9) })
        let plain = try SearchReader(path: path)
        let kept = try SearchReader(path: path)
        kept.keepsTables = true
        let queries = ["pipe", "leak sink", "washer OR valve", "tap kitchen drain", "\"seal hose\"", "pipe is:open"]
        func expectSame(_ when: String) throws {
            for text in queries { try expectKeptReaderAgrees(kept, with: plain, text, SearchRequest(limit: 200), when) }
        }
        try expectSame("first revision")
        try index.indexSearchableItems((0..<60).map { item($0 * 2, titleWords: 9 - $0 % 9) })  // titles change length
        try index.indexSearchableItems((120..<150).map { item($0, titleWords: 1 + $0 % 20) })
        try index.deleteSearchableItems(withIdentifiers: (0..<20).map { String(format: "id-%03d", $0 * 3) })
        try plain.reopen()
        try kept.reopen()
        try expectSame("after changes")
    }

    /// A reader kept for many searches sorts by one value (`created`, `modified`) with keys from a table (made on its
    /// second search at a revision): its pages are exactly those of a reader that reads the value slot, ties and
    /// scores included, ascending and descending, before and after the index changes under it. Sorts it keeps no
    /// table for (two keys, long title keys) give the same pages too.
    @Test func sortKeyTablesSortAsTheValueSlotDoes() throws {
        let index = try SearchableIndex(path: path)
        func item(_ number: Int, hour: Int) -> SearchableItem {
            SearchableItem(
                uniqueIdentifier: String(format: "id-%03d", number), domainIdentifier: "home",
                attributeSet: SearchableItemAttributeSet(
                    title: "Fix pipe \(number % 7)",
                    contentDescription: number % 3 == 0 ? "leak under the sink" : "pipe",
                    kind: .item, containerTitle: "Home", priority: 1 + number % 3,
                    createdAt: 1_700_000_000 + Int64(number % 11) * 86_400,
                    modifiedAt: 1_700_000_000 + Int64(hour) * 3_600))
        }
        try index.indexSearchableItems((0..<150).map { item($0, hour: $0 % 13) })
        let plain = try SearchReader(path: path)
        let kept = try SearchReader(path: path)
        kept.keepsTables = true
        func expectSame(_ when: String) throws {
            for sort in [SearchSort.created, .modified, .priority, .title] {
                for reverse in [false, true] {
                    for text in ["pipe", "leak sink"] {
                        for (offset, limit) in [(0, 200), (5, 10)] {
                            let request = SearchRequest(offset: offset, limit: limit, sort: sort, reverse: reverse)
                            try expectKeptReaderAgrees(
                                kept, with: plain, text, request, "\(when), \(sort) \(reverse) \(offset)")
                        }
                    }
                }
            }
        }
        try expectSame("first revision")
        try index.indexSearchableItems((0..<50).map { item($0 * 3, hour: 40 - $0) })  // new times, new ties
        try index.indexSearchableItems((150..<180).map { item($0, hour: $0 % 5) })
        try index.deleteSearchableItems(withIdentifiers: (0..<20).map { String(format: "id-%03d", $0 * 7) })
        try plain.reopen()
        try kept.reopen()
        try expectSame("after changes")
    }

    /// A reader kept for many searches checks a value range (`created:`, `modified:`, `priority:`) against a table of
    /// the slot (made on its second search at a revision) rather than the value stream: its hits are exactly those of
    /// a reader that reads the slot, for ranges open and closed, bounds the values sit on, ranges narrower and wider
    /// than the words (the matcher walks the one and checks the other), ranges negated and ORed, and sorted pages;
    /// before and after the index changes under it (values changed, documents deleted: docids with no value).
    @Test func valueTablesRangeAsTheValueSlotDoes() throws {
        let index = try SearchableIndex(path: path)
        let day: Int64 = 86_400
        let start: Int64 = 1_700_006_400  // 2023-11-15T00:00:00Z
        func item(_ number: Int, shift: Int = 0) -> SearchableItem {
            SearchableItem(
                uniqueIdentifier: String(format: "id-%03d", number), domainIdentifier: "home",
                attributeSet: SearchableItemAttributeSet(
                    title: "Fix pipe \(number % 7)",
                    contentDescription: number % 5 == 0 ? "leak under the sink" : "pipe",
                    kind: .item, containerTitle: "Home", priority: 1 + (number + shift) % 3,
                    createdAt: start + Int64((number * 7 + shift) % 40) * day,
                    modifiedAt: start + Int64((number * 3 + shift) % 60) * day / 2))
        }
        try index.indexSearchableItems((0..<200).map { item($0) })
        let plain = try SearchReader(path: path)
        let kept = try SearchReader(path: path)
        kept.keepsTables = true
        // A first search at a revision makes no table, even one that ranges twice over a slot and sorts by it.
        let twice = try SearchQueryParser().parse("pipe (created:2023-11-16 OR created:2023-12-10..2023-12-12)")
        _ = try kept.search(twice, SearchRequest(limit: 5, sort: .created))
        #expect(kept.tablesMade == 0)
        let queries = [
            "pipe created:2023-11-20..2023-11-30", "pipe created:2023-11-17", "leak created:..2023-11-25",
            "pipe created:2023-12-01..", "pipe modified:>=2023-11-29", "pipe modified:<2023-11-20",
            "pipe priority:2..3",
            "pipe priority:3", "leak priority:<=2 created:2023-11..2023-12", "pipe -created:2023-11-20..2023-12-05",
            "pipe (created:2023-11-16 OR created:2023-12-10..2023-12-12)", "pipe OR sink priority:1",
            "created:2023-11-20..2023-11-30", "modified:2023-11-18.. priority:2",
        ]
        func expectSame(_ when: String, sorts: [SearchSort] = [.relevance]) throws {
            for text in queries {
                for sort in sorts {
                    let request = SearchRequest(limit: 300, sort: sort)
                    try expectKeptReaderAgrees(kept, with: plain, text, request, "\(when), \(sort)")
                }
            }
            // A range no value lies in matches nothing either way.
            let empty = try SearchQueryParser().parse("pipe created:2020")
            #expect(try kept.search(empty, SearchRequest()).hits.isEmpty)
        }
        try expectSame("first revision")
        // Lengths, title-word counts, and one table for each slot ranged over: created, modified, priority.
        #expect(kept.tablesMade == 5)
        try expectSame("sorted", sorts: [.created, .modified])
        try index.indexSearchableItems((0..<80).map { item($0 * 2, shift: 5) })  // new values
        try index.indexSearchableItems((200..<240).map { item($0) })
        try index.deleteSearchableItems(withIdentifiers: (0..<30).map { String(format: "id-%03d", $0 * 5) })
        try plain.reopen()
        try kept.reopen()
        try expectSame("after changes", sorts: [.relevance, .created])
    }

    /// Readers of one index in one process (a server's sessions) share their tables: a table one reader made at a
    /// revision is used by the others from their first search there, with the same hits; when the index moves on,
    /// whichever reader first searches twice makes the new ones, and the others take them. An index elsewhere (a
    /// copy, with the same UUID and revision) gets tables of its own.
    @Test func readersOfOneIndexShareTheirTables() throws {
        let index = try SearchableIndex(path: path)
        func items(_ numbers: Range<Int>, detail: String) -> [SearchableItem] {
            numbers.map { Self.item(String(format: "id-%03d", $0), title: "Fix pipe \($0 % 9)", detail: detail) }
        }
        try index.indexSearchableItems(items(0..<60, detail: "leak under the sink"))
        let plain = try SearchReader(path: path)
        let readers = try (0..<3).map { _ in try SearchReader(path: path) }
        for reader in readers { reader.keepsTables = true }
        let requests = [SearchRequest(limit: 100), SearchRequest(limit: 100, sort: .modified)]
        func expectSame(_ reader: SearchReader, _ when: String) throws {
            for text in ["pipe", "leak sink"] {
                for request in requests {
                    let query = try SearchQueryParser().parse(text)
                    #expect(
                        try reader.search(query, request).hits == plain.search(query, request).hits, "\(when), \(text)")
                }
            }
        }
        try expectSame(readers[0], "first reader")  // four searches: its tables made on the second of each kind
        let tables = readers[0].tablesMade
        #expect(tables == 3)  // lengths, title-word counts, modified dates
        for reader in readers.dropFirst() { try expectSame(reader, "another reader") }
        for reader in readers.dropFirst() { try expectSame(reader, "another reader, again") }
        #expect(readers.map(\.tablesMade) == [tables, 0, 0])

        try index.indexSearchableItems(items(20..<80, detail: "a longer detail: the leak under the kitchen sink"))
        try plain.reopen()
        for reader in readers { try reader.reopen() }
        try expectSame(readers[2], "after changes, third reader")
        for reader in readers.dropLast() { try expectSame(reader, "after changes") }
        #expect(readers.map(\.tablesMade) == [tables, 0, tables])

        let copy = directory.file("copy")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let elsewhere = try SearchReader(path: copy)
        elsewhere.keepsTables = true
        try expectSame(elsewhere, "a copy")
        #expect(elsewhere.tablesMade == tables)
    }

    /// Readers searching at once on threads of their own (a server's sessions under load), revision after revision:
    /// each reader's hits are a plain reader's, whichever of them made the tables it reads.
    @Test func readersSharingTablesSearchAtOnce() throws {
        let index = try SearchableIndex(path: path)
        // The same 60 items every round (so the same docids and count: only the revision tells the rounds apart),
        // with new titles, detail lengths and creation dates.
        func items(round: Int) -> [SearchableItem] {
            (0..<60).map { number in
                var item = Self.item(
                    String(format: "id-%03d", number), title: "Fix pipe \((number + round) % 9)",
                    detail: String(repeating: "leak under the sink ", count: 1 + (number * (round + 1)) % 4))
                item.attributeSet.createdAt = 1_700_000_000 + Int64((number * 7 + round * 13) % 60) * 3_600
                return item
            }
        }
        let texts = ["pipe", "leak sink", "pipe OR sink", "pipe created:2023-11-15..2023-11-16"]
        // A short page sorted by date walks the table's order (made by whichever reader asks for it second).
        let requests = [
            SearchRequest(limit: 100), SearchRequest(limit: 100, sort: .created),
            SearchRequest(offset: 3, limit: 5, sort: .created),
        ]
        // Every round's readers stay open to the end, holding their revision's tables.
        var rounds: [[SearchReader]] = []
        for round in 0..<4 {
            try index.indexSearchableItems(items(round: round))
            let plain = try SearchReader(path: path)
            let expected = try texts.flatMap { text in
                try requests.map { try plain.search(SearchQueryParser().parse(text), $0).hits }
            }
            let readers = try (0..<4).map { _ in try SearchReader(path: path) }
            for reader in readers { reader.keepsTables = true }
            nonisolated(unsafe) let threads = readers  // one reader per thread
            let mismatches = Mutex(0)
            DispatchQueue.concurrentPerform(iterations: threads.count) { thread in
                for _ in 0..<5 {
                    let found = texts.flatMap { text in
                        requests.map { try? threads[thread].search(SearchQueryParser().parse(text), $0).hits }
                    }
                    if found != expected { mismatches.withLock { $0 += 1 } }
                }
            }
            #expect(mismatches.withLock { $0 } == 0, "round \(round)")
            rounds.append(readers)
        }
        #expect(rounds.joined().map(\.tablesMade).reduce(0, +) > 0)
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
        let past = try reader.search(query, request)
        // It asks the clock every 64 documents: at most that many examined.
        #expect(!past.isExact && past.total <= 64 && past.hits.count <= 50, "\(past.total) \(past.hits.count)")
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
        ("tap AND", "cannot parse the query 'tap AND': Syntax: <expression> AND <expression>"),
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

extension SearchableIndexTests {
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
