import Foundation
import SearchIndex
import Synchronization
import TestSupport
import Testing
import Xapian

/// Readers kept for many searches (a server's sessions) read from tables made for them at a revision; their hits, scores and
/// pages are exactly those of a plain reader, and readers of one index share them.
extension SearchableIndexTests {
    /// Expects `kept` (a reader that keeps tables) to give exactly `plain`'s hits and total for `text`, and some hits,
    /// on three searches in a row: its tables are asked for by the second search at a revision, and the third reads
    /// them, once made.
    func expectKeptReaderAgrees(
        _ kept: SearchReader, with plain: SearchReader, _ text: String, _ request: SearchRequest, _ context: String
    ) throws {
        let query = try SearchQueryParser().parse(text)
        let expected = try plain.search(query, request)
        #expect(!expected.hits.isEmpty, "\(text)")
        for round in 0..<3 {
            if round == 2 { SearchReader.waitForTables() }
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
        SearchReader.waitForTables()
        // Lengths, title-word counts, and one table for each slot ranged over: created, modified, priority.
        #expect(kept.tablesMade == 5)
        try expectSame("the tables made", sorts: [.relevance, .created, .modified])
        try index.indexSearchableItems((0..<80).map { item($0 * 2, shift: 5) })  // new values
        try index.indexSearchableItems((200..<240).map { item($0) })
        try index.deleteSearchableItems(withIdentifiers: (0..<30).map { String(format: "id-%03d", $0 * 5) })
        try plain.reopen()
        try kept.reopen()
        try expectSame("after changes", sorts: [.relevance, .created])
    }

    /// A reader kept for many searches checks a filter on a status or a priority (`is:open`, `priority:3`, Spotlight's
    /// `completed ==`) against the table of its value slot, and walks it as its term: its hits and totals are exactly
    /// those of a reader that reads the terms' lists, for filters beside words, alone, together, negated and ORed,
    /// items and projects, before and after statuses and priorities change. The status filters ask for the status
    /// slot's table, so the table is what they read.
    @Test func statusAndPriorityFiltersReadTheirSlotsAsTheirTerms() throws {
        let index = try SearchableIndex(path: path)
        func item(_ number: Int, shift: Int = 0) -> SearchableItem {
            let project = number % 10 == 0
            return SearchableItem(
                uniqueIdentifier: String(format: "id-%03d", number), domainIdentifier: "home",
                attributeSet: SearchableItemAttributeSet(
                    title: "Fix pipe \(number % 7)",
                    contentDescription: number % 4 == 0 ? "leak under the sink" : "pipe",
                    kind: project ? .project : .item, containerTitle: "Home",
                    priority: project ? nil : 1 + (number + shift) % 3, isCompleted: (number + shift) % 5 == 0,
                    createdAt: 1_700_000_000 + Int64(number) * 3_600, modifiedAt: 1_700_000_000))
        }
        try index.indexSearchableItems((0..<200).map { item($0) })
        let plain = try SearchReader(path: path)
        let kept = try SearchReader(path: path)
        kept.keepsTables = true
        let queries = [
            "pipe is:open", "pipe is:completed", "leak priority:3 is:open", "pipe priority:1", "is:open",
            "priority:2 is:completed", "pipe -is:open", "leak OR sink is:completed", "pipe is:open is:completed",
            "pipe is:closed", "kind:project is:closed is:open",
        ]
        func expectSame(_ when: String) throws {
            for text in queries {
                for request in [SearchRequest(limit: 300), SearchRequest(offset: 3, limit: 7, sort: .created)] {
                    try expectKeptReaderAgrees(kept, with: plain, text, request, when)
                }
            }
            let parser = SpotlightQueryParser(words: try SearchQueryParser())
            for text in ["completed == false && title == \"pipe\"", "completed != false"] {
                let query = try parser.parse(text)
                let expected = try plain.search(query, SearchRequest(limit: 300))
                let results = try kept.search(query, SearchRequest(limit: 300))
                #expect(!expected.hits.isEmpty && results.hits == expected.hits, "\(when), \(text)")
            }
        }
        try expectSame("first revision")
        SearchReader.waitForTables()
        // Lengths, title-word counts, the status slot, the priority slot, and `created` for the sorted pages.
        #expect(kept.tablesMade == 5)
        try expectSame("the tables made")
        try index.indexSearchableItems((0..<100).map { item($0 * 2, shift: 1) })  // new statuses and priorities
        try index.deleteSearchableItems(withIdentifiers: (0..<20).map { String(format: "id-%03d", $0 * 9) })
        try plain.reopen()
        try kept.reopen()
        try expectSame("after changes")
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
        try expectSame(readers[0], "first reader")  // four searches: its tables asked for on the second of each kind
        SearchReader.waitForTables()
        try expectSame(readers[0], "first reader, its tables made")
        let tables = readers[0].tablesMade
        // Lengths, title-word counts, modified dates, and the packed positions (the bonus's phrase of `leak sink`).
        #expect(tables == 4)
        for reader in readers.dropFirst() { try expectSame(reader, "another reader") }
        for reader in readers.dropFirst() { try expectSame(reader, "another reader, again") }
        #expect(readers.map(\.tablesMade) == [tables, 0, 0])

        try index.indexSearchableItems(items(20..<80, detail: "a longer detail: the leak under the kitchen sink"))
        try plain.reopen()
        for reader in readers { try reader.reopen() }
        try expectSame(readers[2], "after changes, third reader")
        SearchReader.waitForTables()
        for reader in readers.dropLast() { try expectSame(reader, "after changes") }
        #expect(readers.map(\.tablesMade) == [tables, 0, tables])

        let copy = directory.file("copy")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let elsewhere = try SearchReader(path: copy)
        elsewhere.keepsTables = true
        try expectSame(elsewhere, "a copy")
        SearchReader.waitForTables()
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
        // A short page sorted by date walks the table's order, once made (asked of the table maker by whichever reader
        // asks for it second).
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
        SearchReader.waitForTables()
        #expect(rounds.joined().map(\.tablesMade).reduce(0, +) > 0)
    }
}
