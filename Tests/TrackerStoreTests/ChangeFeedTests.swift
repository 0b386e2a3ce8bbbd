import Foundation
import TestSupport
import Testing
import TrackerStore

@Suite struct ChangeFeedTests {
    let directory = TemporaryDirectory("feed")

    @Test func changesCoalescePerEntityAndCarryCurrentRows() throws {
        let store = try TrackerStore.create(at: directory.file("s.sqlite"))
        let home = try store.addProject(title: "Home")
        let tap = try store.addItem(projectID: home.id, title: "Tap")
        try store.updateItem(id: tap.id, ItemChanges(title: "Tap, again"))
        let gone = try store.addItem(projectID: home.id, title: "Gone soon")
        try store.deleteItem(id: gone.id)

        let batch = try store.read { try $0.changes(after: 0, limit: 100) }
        #expect(batch.changeCount == 5)
        #expect(batch.throughSequence == 5)
        #expect(batch.projects.map(\.id) == [home.id])
        #expect(batch.items.map(\.title) == ["Tap, again"])
        #expect(batch.deletedItemIDs == [gone.id])
        #expect(batch.itemProjects[home.id]?.title == "Home")
        // When the first change was logged: what the watcher reports its lag from.
        let now = Int64(Date().timeIntervalSince1970)
        #expect(try #require(batch.firstChangeTime) >= now - 60 && batch.firstChangeTime! <= now + 1)
        #expect(try store.read { try $0.changes(after: 5, limit: 100) }.isEmpty)
    }

    @Test func aRenamedProjectBringsAllItsItems() throws {
        let store = try TrackerStore.create(at: directory.file("s.sqlite"))
        let home = try store.addProject(title: "Home")
        for title in ["A", "B", "C"] { try store.addItem(projectID: home.id, title: title) }
        let cursor = try store.read { try $0.lastChangeSequence() }
        try store.updateProject(id: home.id, ProjectChanges(title: "House"))
        let batch = try store.read { try $0.changes(after: cursor, limit: 100) }
        #expect(batch.changeCount == 1)
        #expect(Set(batch.items.map(\.title)) == ["A", "B", "C"])
        #expect(batch.itemProjects[home.id]?.title == "House")
    }

    @Test func batchesAreBoundedAndResumable() throws {
        let store = try TrackerStore.create(at: directory.file("s.sqlite"))
        let home = try store.addProject(title: "Home")
        for number in 0..<10 { try store.addItem(projectID: home.id, title: "Item \(number)") }
        var cursor: Int64 = 0
        var seen = 0
        while true {
            let batch = try store.read { try $0.changes(after: cursor, limit: 3) }
            if batch.isEmpty { break }
            #expect(batch.changeCount <= 3)
            seen += batch.changeCount
            cursor = batch.throughSequence
        }
        #expect(seen == 11)
    }

    @Test func aPrunedLogOrAForeignCursorIsAGap() throws {
        let store = try TrackerStore.create(at: directory.file("s.sqlite"))
        let home = try store.addProject(title: "Home")
        try store.addItem(projectID: home.id, title: "A")
        #expect { try store.read { try $0.changes(after: 99, limit: 10) } } throws: {
            guard let error = $0 as? StoreError, error.code == .changeLogGap else { return false }
            return error.cause as? ChangeFeedGap == .ahead(cursor: 99, last: 2)
        }
        try store.pruneChangeLog(through: 1)
        #expect { try store.read { try $0.changes(after: 0, limit: 10) } } throws: {
            guard let error = $0 as? StoreError, error.code == .changeLogGap else { return false }
            return error.cause as? ChangeFeedGap == .pruned(cursor: 0, prunedThrough: 1)
        }
        #expect(try store.read { try $0.changes(after: 1, limit: 10) }.changeCount == 1)
    }
}
