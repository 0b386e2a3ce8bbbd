import Foundation
import SearchIndex
import TestSupport
import Testing
import TrackerStore

@testable import Indexer

/// The tracker fields' filters, facets and known duplicates, on the samples' tracker issues
/// (samples/tracker-issues.jsonl) in a real store and index.
@Suite struct TrackerFilterTests {
    let directory = TemporaryDirectory("tracker-filters")
    let store: TrackerStore
    let indexer: StoreIndexer

    init() throws {
        store = try TrackerStore.create(at: directory.file("tracker.sqlite"))
        _ = try store.importJSONLines(
            try Data(contentsOf: URL(fileURLWithPath: Repository.root + "/samples/tracker-issues.jsonl")))
        indexer = StoreIndexer(store: store, indexPath: directory.file("index"))
        try indexer.catchUp()
    }

    /// The keys (or, for an item without one, the title) of what `query` finds, sorted.
    func keys(_ query: String, spotlight: Bool = false) throws -> [String] {
        var options = SearchOptions()
        options.request.limit = 100
        options.syntax = spotlight ? .spotlight : .spotlite
        return try indexer.search(query, options: options).hits.map { hit in
            switch hit.entity {
            case .item(let item, _): return item.tracking.sourceKey.isEmpty ? item.title : item.tracking.sourceKey
            case .message(let message, _, _): return "message by \(message.author)"
            case .project(let project): return project.title
            }
        }.sorted()
    }

    @Test(arguments: [
        ("tag:bug", ["APP-097", "APP-101", "APP-103", "APP-111"]),
        ("tag:BUG tag:ui", ["APP-111"]),
        ("tag:bug -tag:sync", ["APP-097", "APP-103", "APP-111"]),
        ("assignee:sam", ["APP-101", "APP-102"]),
        ("assignee:\"PRIYA\"", ["APP-097", "APP-102"]),
        ("author:dana", ["APP-103", "APP-110", "message by Dana"]),
        ("involves:priya", ["APP-097", "APP-101", "APP-102", "APP-111"]),
        ("involves:dana kind:item", ["APP-101", "APP-103", "APP-110"]),
        ("resolution:fixed", ["APP-097"]),
        ("resolution:duplicate OR resolution:wontfix", ["APP-098", "APP-103"]),
        ("is:closed kind:item", ["APP-097", "APP-098", "APP-103"]),
        ("closed:2024-06-20", ["APP-097"]),
        ("closed:..2024-06-19", ["APP-103"]),
        ("key:app-110", ["APP-110"]),
        ("has:assignee is:open", ["APP-101", "APP-102", "APP-111"]),
        ("no:tag kind:item", ["Write the migration guide"]),
        ("no:author kind:item", ["Write the migration guide"]),
        ("has:link", ["APP-103", "APP-111"]),
        ("linked:blocks", ["APP-111"]),
        ("linked:relates-to", []),
        ("sync has:tag -resolution:duplicate", ["APP-101", "APP-102"]),
    ])
    func everyFilterFindsWhatItSays(query: String, expected: [String]) throws {
        #expect(try keys(query) == expected, "\(query)")
    }

    @Test func involvesFindsTheItemsAPersonCommentedOnWhoeverWritesTheComment() throws {
        #expect(try keys("involves:zoe") == [])
        // A sqlite3 shell comments, and deletes the comment: the index follows both, and verify finds it current.
        func sqlite(_ sql: String) {
            #expect(TestSupport.run(["sqlite3", "-bail", store.path], input: Data(sql.utf8)).status == 0, "\(sql)")
        }
        let item = try #require(try indexer.search("key:APP-102").hits.first).uri.entityID
        sqlite("INSERT INTO messages (item_id, author, text) VALUES ('\(item)', 'Zoë', 'Same on iOS');")
        try indexer.catchUp()
        #expect(try keys("involves:zoe") == ["APP-102", "message by Zoë"])
        #expect(try keys("involves:ZOE kind:item -assignee:zoe -author:zoe") == ["APP-102"])
        #expect(try indexer.verify().isClean)
        sqlite("DELETE FROM messages WHERE author = 'Zoë';")
        try indexer.catchUp()
        #expect(try keys("involves:zoe") == [])
        #expect(try indexer.verify().isClean)
    }

    @Test func duplicatesOfAnItemAreFoundByItsURIOrUUID() throws {
        let original = try #require(try indexer.search("key:APP-101").hits.first).uri
        #expect(try keys("duplicates:\(original)") == ["APP-103"])
        #expect(try keys("duplicates:\(original.entityID.uppercased())") == ["APP-103"])
    }

    @Test func aKeyTypedAloneFindsItsItemFirst() throws {
        let hits = try indexer.search("APP-102").hits
        guard case .item(let item, _)? = hits.first?.entity else {
            Issue.record("no item")
            return
        }
        #expect(item.tracking.sourceKey == "APP-102")
    }

    @Test(arguments: [
        ("keywords == \"auth\"", ["APP-097", "APP-098"]),
        ("participants == \"lee\" && completed == false", ["APP-102", "APP-111"]),
        ("participants == \"dana\" && kind == \"item\"", ["APP-101", "APP-103", "APP-110"]),
        ("identifier == \"APP-098\"", ["APP-098"]),
        ("completionDate >= $time.iso(\"2024-06-20\")", ["APP-097", "APP-098"]),
    ])
    func spotlightAttributesMapToTheSameFilters(query: String, expected: [String]) throws {
        #expect(try keys(query, spotlight: true) == expected, "\(query)")
    }

    @Test(arguments: [
        ("tag:", "tag: needs a value"),
        ("has:bogus", "has:bogus is not a field to ask about"),
        ("linked:fixes", "linked:fixes is not a kind of link"),
        ("duplicates:tracker://x/project/y", "is not an item"),
        ("closed:2024-13", "closed:2024-13 is not a date"),
        ("involves:", "involves: needs a name"),
    ])
    func badFiltersSayWhatIsWrong(query: String, reason: String) throws {
        #expect {
            try indexer.search(query)
        } throws: { error in
            (error as? IndexerError)?.message.contains(reason) == true
        }
    }

    @Test func facetsCountEachTagAssigneeAndResolution() throws {
        var options = SearchOptions()
        options.request.facets = [.tag, .assignee, .resolution]
        let outcome = try indexer.search("kind:item", options: options)
        let counts = Dictionary(
            uniqueKeysWithValues: outcome.facets.map { facet in
                (facet.facet, facet.values.map { "\($0.label) \($0.count)" })
            })
        #expect(counts[.tag] == ["bug 4", "auth 2", "sync 2", "ui 2", "feature 1", "performance 1"])
        #expect(counts[.assignee] == ["Priya 2", "Sam 2", "Lee 1"])
        #expect(counts[.resolution] == ["duplicate 1", "fixed 1", "wontfix 1"])
    }

    @Test func tagAndAssigneeFacetsCountAsTheirFiltersMatch() throws {
        let project = try store.addProject(title: "Spelling")
        for (tags, assignees) in [(["BUG"], ["priya"]), (["Bug", "bug"], ["PRIYA"])] {
            _ = try store.addItem(
                projectID: project.id, title: "Spelled otherwise",
                tracking: ItemTracking(assignees: assignees, tags: tags))
        }
        try indexer.catchUp()
        var options = SearchOptions()
        options.request.facets = [.tag, .assignee]
        let outcome = try indexer.search("kind:item", options: options)
        let counts = Dictionary(
            uniqueKeysWithValues: outcome.facets.map { facet in
                (facet.facet, facet.values.map { "\($0.label) \($0.count)" })
            })
        // As tag:bug and assignee:priya find them: each document once, under the most frequent spelling.
        #expect(counts[.tag]?.first == "bug 6")
        #expect(try keys("tag:bug").count == 6)
        #expect(counts[.assignee]?.first == "Priya 4")
        #expect(try keys("assignee:priya").count == 4)
    }

    @Test func editsOfTagsAndLinksReachTheIndexAndSimilarMarksKnownDuplicates() throws {
        let original = try #require(try indexer.search("key:APP-101").hits.first).uri
        let stall = try #require(try indexer.search("key:APP-102").hits.first).uri
        let copy = try #require(try indexer.search("key:APP-103").hits.first).uri
        var options = SearchOptions()
        options.request.limit = 100
        #expect(try indexer.similar(to: original, options: options).hits.filter(\.isKnownDuplicate).count == 1)
        try store.updateItem(
            id: stall.entityID,
            ItemChanges(tracking: { tracking in
                tracking.tags = ["docs"]
                tracking.links = [ItemLink(kind: .duplicateOf, itemID: original.entityID)]
            }))
        try indexer.catchUp()
        #expect(try keys("tag:docs") == ["APP-102"])
        #expect(try keys("duplicates:\(original)") == ["APP-102", "APP-103"])
        // From one duplicate: the original, and the other duplicate of it, not the rest.
        let hits = try indexer.search("kind:item", options: options).hits.filter { $0.uri != copy }
        var marked = hits
        let copyItem = try #require(try store.read { try $0.item(id: copy.entityID) })
        StoreIndexer.markKnownDuplicates(of: copyItem, in: store.uuid, &marked)
        #expect(Set(marked.filter(\.isKnownDuplicate).map(\.uri)) == [original, stall])
        #expect(marked.count == 7)
        // From the original: both duplicates.
        let originalItem = try #require(try store.read { try $0.item(id: original.entityID) })
        marked = try indexer.search("kind:item", options: options).hits
        StoreIndexer.markKnownDuplicates(of: originalItem, in: store.uuid, &marked)
        #expect(Set(marked.filter(\.isKnownDuplicate).map(\.uri)) == [stall, copy])
        #expect(try indexer.verify().isClean)
    }

    @Test func similarRanksAKnownDuplicateGroupTogetherAndTheItemsOwnDuplicatesFirst() throws {
        let original = try #require(try indexer.search("key:APP-101").hits.first).uri
        let copy = try #require(try indexer.search("key:APP-103").hits.first).uri  // a duplicate-of APP-101
        var options = SearchOptions()
        options.request.limit = 100
        options.snippets = false
        let group: Set<TrackerURI> = [original, copy]
        for uri in try indexer.search("kind:item", options: options).hits.map(\.uri) where !group.contains(uri) {
            let plain = try indexer.similar(to: uri, options: options, links: .off).hits.map(\.uri)
            let grouped = try indexer.similar(to: uri, options: options).hits.map(\.uri)
            #expect(Set(grouped) == Set(plain))
            // The group's lower member moves up to just below the higher one; the rest keep their order.
            #expect(grouped.filter { !group.contains($0) } == plain.filter { !group.contains($0) })
            if let first = grouped.firstIndex(where: group.contains), group.isSubset(of: Set(grouped)) {
                #expect(group.contains(grouped[first + 1]))
            }
        }
        // A report like one member of a group, and a little like its original: the original follows its duplicate.
        let project = try store.addProject(title: "Importer")
        func add(_ title: String, _ detail: String, duplicateOf original: String? = nil) throws -> TrackerURI {
            let links = original.map { [ItemLink(kind: .duplicateOf, itemID: $0)] } ?? []
            let item = try store.addItem(
                projectID: project.id, title: title, detail: detail, tracking: ItemTracking(links: links))
            return store.uri(.item, item.id)
        }
        let columns = try add("Importer drops a column", "A CSV column goes missing when a field has commas in it")
        let quoted = try add(
            "Quoted commas break the CSV parser", "Fields with quoted commas split in two",
            duplicateOf: columns.entityID
        )
        let rows = try add("CSV rows with quoted fields", "Quoted fields in CSV rows are read slowly")
        let report = try add("CSV parser breaks on quoted commas", "Quoted commas in CSV fields split them")
        try indexer.catchUp()
        let mine: Set<TrackerURI> = [columns, quoted, rows]
        let plain = try indexer.similar(to: report, options: options, links: .off).hits.map(\.uri).filter(mine.contains)
        #expect(plain == [quoted, rows, columns])
        let grouped = try indexer.similar(to: report, options: options).hits.map(\.uri).filter(mine.contains)
        #expect(grouped == [quoted, columns, rows])
        // From the original, its known duplicate first, however it matches; its own links ignored, as plain.
        #expect(try indexer.similar(to: original, options: options).hits.first?.uri == copy)
        #expect(
            try indexer.similar(to: original, options: options, links: .groups(ignoring: [original])).hits.map(\.uri)
                == indexer.similar(to: original, options: options, links: .off).hits.map(\.uri))
        // A page of the grouped ranking is that ranking's slice.
        let all = try indexer.similar(to: original, options: options).hits.map(\.uri)
        options.request.offset = 1
        options.request.limit = 2
        #expect(try indexer.similar(to: original, options: options).hits.map(\.uri) == Array(all[1..<3]))
    }
}
