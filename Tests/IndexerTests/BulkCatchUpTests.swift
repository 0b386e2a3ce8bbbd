import Foundation
import SearchIndex
import TestSupport
import Testing
import TrackerStore

@testable import Indexer

/// A catch-up after bulk writes (an import, a batch update, a sync): each changed row is written once, and a
/// backlog of half the store or more is rebuilt instead.
@Suite struct BulkCatchUpTests {
    let directory = TemporaryDirectory("bulk")
    let store: TrackerStore
    let indexer: StoreIndexer

    init() throws {
        store = try TrackerStore.create(at: directory.file("tracker.sqlite"))
        indexer = StoreIndexer(store: store, indexPath: directory.file("index"))
    }

    /// JSON Lines for `projects` projects of `items` items each; `tag` goes into every item's detail. Fixed dates:
    /// importing it again changes only what `tag` changes.
    static func lines(projects: Int, items: Int, tag: String = "first") -> Data {
        var text = ""
        for p in 0..<projects {
            let project = String(format: "00000000-0000-4000-8000-%012d", p)
            text +=
                #"{"kind":"project","id":"\#(project)","title":"Project \#(p)","created":"2024-01-01T00:00:00Z"}"#
                + "\n"
            for i in 0..<items {
                let item = String(format: "00000000-0000-4000-9000-%06d%06d", p, i)
                text +=
                    #"{"kind":"item","id":"\#(item)","project":"\#(project)","title":"Item \#(i) of \#(p)","#
                    + #""detail":"\#(tag)","created":"2024-01-01T00:00:00Z"}"# + "\n"
            }
        }
        return Data(text.utf8)
    }

    /// An import logs each project before its items, so a batch that ends among a project's items used to write
    /// them as the project's and again as their own: 3 projects of 5 items in batches of 4 wrote 33 documents.
    @Test func eachRowOfAnImportIsWrittenOnce() throws {
        try indexer.catchUp()  // an empty index: the rows arrive through the change log
        _ = try store.importJSONLines(Self.lines(projects: 3, items: 5))
        let report = try indexer.catchUp(batchSize: 4)
        #expect(report.rebuildReason == nil)
        #expect(report.changesApplied == 18)
        #expect(report.batches == 5)
        #expect(report.documentsWritten == 18)
        #expect(try indexer.verify().isClean)
        #expect(try indexer.search("first", limit: 100).hits.count == 15)
    }

    /// Items edited one by one and then their project renamed: the rename re-indexes the items (their project's
    /// title is part of them), so their own edits, in earlier batches, are not written before it.
    @Test func itemsAreWrittenOnceWhenTheirProjectChangesLater() throws {
        _ = try store.importJSONLines(Self.lines(projects: 2, items: 3))
        try indexer.catchUp()
        let project = String(format: "00000000-0000-4000-8000-%012d", 0)
        for i in 0..<3 {
            try store.updateItem(
                id: String(format: "00000000-0000-4000-9000-%06d%06d", 0, i), ItemChanges(detail: "edited"))
        }
        try store.updateProject(id: project, ProjectChanges(title: "Renamed"))
        let report = try indexer.catchUp(batchSize: 2)
        #expect(report.changesApplied == 4)
        #expect(report.documentsWritten == 4)  // the project and its three items, each once
        #expect(try indexer.search("edited project:renamed", limit: 10).hits.count == 3)
        #expect(try indexer.verify().isClean)
    }

    /// Half the store or more behind (and at least ``StoreIndexer/minimumRebuildBacklog`` changes): rebuilt, which
    /// is quicker and leaves a compact index; less than that is caught up.
    @Test func aBacklogOfHalfTheStoreIsRebuiltAndLessIsCaughtUp() throws {
        _ = try store.importJSONLines(Self.lines(projects: 1, items: 2_399))  // 2,400 rows
        try indexer.catchUp()
        _ = try store.importJSONLines(Self.lines(projects: 1, items: 1_100, tag: "second"))  // 1,100 changes: 46 %
        let caughtUp = try indexer.catchUp()
        #expect(caughtUp.rebuildReason == nil)
        #expect(caughtUp.documentsWritten == 1_100)
        var seen: [IndexProgress] = []
        _ = try store.importJSONLines(Self.lines(projects: 1, items: 1_200, tag: "third"))  // 1,200 changes: 50 %
        let rebuilt = try indexer.catchUp { seen.append($0) }
        #expect(
            rebuilt.rebuildReason == "the index was 1200 changes behind, 50 % of the store's rows: a rebuild is quicker"
        )
        #expect(rebuilt.documentsWritten == 2_400)
        #expect(seen.first == IndexProgress(work: .rebuilding, done: 0, total: 2_400, backlog: 1_200))
        #expect(seen.last?.done == 2_400)
        #expect(try indexer.search("third", limit: 2_000).hits.count == 1_200)
        #expect(try indexer.verify().isClean)
    }
}
