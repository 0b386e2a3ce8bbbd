import Foundation
import GRDB
import TestSupport
import Testing

@testable import TrackerStore

/// The reads every search makes (the last change, a page of items with their projects and of projects) go through
/// connections of their own: they must give what a read through GRDB gives, and see every commit, whoever makes it.
@Suite struct SearchReadsTests {
    let directory = TemporaryDirectory("searchreads")

    func filledStore() throws -> (TrackerStore, [String]) {
        let store = try TrackerStore.create(at: directory.file("tracker.sqlite"))
        let home = try store.addProject(
            title: "Home – \"renovation\"", detail: "Zürich, 日本語", color: "#ff0000")
        let garden = try store.addProject(title: "Garden", detail: "")
        var ids: [String] = []
        for number in 0..<40 {
            let item = try store.addItem(
                projectID: number % 3 == 0 ? garden.id : home.id, title: "Task \(number) ✓ 'quoted'",
                detail: number % 5 == 0 ? "" : String(repeating: "détail \(number) ", count: number),
                priority: 1 + number % 3)
            if number % 4 == 0 { try store.updateItem(id: item.id, ItemChanges(isCompleted: true)) }
            ids.append(item.id)
        }
        try store.updateProject(id: garden.id, ProjectChanges(isClosed: true))
        return (store, ids)
    }

    @Test func aPageOfItemsReadsAsItDoesThroughGRDB() throws {
        let (store, ids) = try filledStore()
        let missing = UUID().uuidString.lowercased()
        for page in [[], [ids[0]], Array(ids.prefix(20)), Array(ids.suffix(7)) + [missing, ids[3], ids[3]], ids] {
            let fast = try store.entities(items: page, projects: [], messages: [])
            let grdb = try store.read { try $0.entities(items: page, projects: [], messages: []) }
            #expect(fast == grdb)
            #expect(fast[.item]?.count == Set(page).subtracting([missing]).count)
        }
    }

    /// A page of hits may ask for a part of each detail (a snippet's window): the search connections give those
    /// bytes alone, clamped to the detail, and every other column as a whole read gives it.
    @Test func aPageCanReadOnlyAPartOfEachDetail() throws {
        let (store, ids) = try filledStore()
        let projects = try store.read { try $0.allProjects() }.map(\.id)
        let whole = try store.read { try $0.entities(items: ids, projects: projects, messages: []) }
        let parts: [(DetailPart, (String) -> String)] = [
            ({ _ in 0..<0 }, { _ in "" }),
            (
                { $0.count > 20 ? 9..<20 : 0..<$0.count },
                {
                    String(
                        decoding: Array($0.utf8).count > 20 ? Array($0.utf8)[9..<20] : Array($0.utf8)[...],
                        as: UTF8.self)
                }
            ),
            ({ _ in -5..<1_000_000 }, { $0 }),
        ]
        for (part, expected) in parts {
            let cut = try #require(store.searchReads.entities(items: ids, projects: projects, details: part))
            func withCutDetail(_ entity: StoreEntity) -> StoreEntity {
                switch entity {
                case .item(var item, var project):
                    item.detail = expected(item.detail)
                    project.detail = expected(project.detail)
                    return .item(item, project: project)
                case .project(var project):
                    project.detail = expected(project.detail)
                    return .project(project)
                case .message: return entity
                }
            }
            #expect(cut == whole.mapValues { $0.mapValues(withCutDetail) })
            #expect(try store.entities(items: ids, projects: projects, messages: [], details: part) == cut)
        }
        #expect(whole[.item]?.values.contains { $0.detail.utf8.count > 20 } == true)
    }

    @Test func aPageOfItemsAndProjectsReadsAsItDoesThroughGRDBAndOnTheSearchConnections() throws {
        let (store, ids) = try filledStore()
        let projects = try store.read { try $0.allProjects() }.map(\.id)
        let missing = UUID().uuidString.lowercased()
        let pages: [(items: [String], projects: [String])] = [
            ([], projects), ([ids[0]], [projects[0]]), (Array(ids.prefix(18)), projects + [missing, projects[1]]),
            ([missing, ids[3], ids[3]], [missing]), (ids, projects),
        ]
        for page in pages {
            let grdb = try store.read { try $0.entities(items: page.items, projects: page.projects, messages: []) }
            // Read on the search connections, not by falling back to GRDB.
            let fast = try #require(store.searchReads.entities(items: page.items, projects: page.projects))
            #expect(fast == grdb)
            #expect(try store.entities(items: page.items, projects: page.projects, messages: []) == grdb)
            #expect(fast[.project]?.count == Set(page.projects).subtracting([missing]).count)
        }
        // Each read left its connection outside any transaction: a write is seen at once.
        let garden = try #require(try store.read { try $0.item(id: ids[0]) }?.projectID)
        try store.updateProject(id: garden, ProjectChanges(title: "Renamed"))
        let after = try #require(store.searchReads.entities(items: [ids[0]], projects: [garden]))
        #expect(after[.project]?[garden]?.title == "Renamed")
        guard case .item(_, let project) = after[.item]?[ids[0]] else {
            Issue.record("no item")
            return
        }
        #expect(project.title == "Renamed")
    }

    @Test func everyCommitIsSeenWhoeverMakesIt() throws {
        let (store, ids) = try filledStore()
        var last = try store.lastChangeSequence()
        #expect(last == (try store.read { try $0.lastChangeSequence() }))
        // Read once so that the connection is kept, then written by this store and by another connection.
        _ = try store.entities(items: [ids[1]], projects: [], messages: [])
        try store.updateItem(id: ids[1], ItemChanges(title: "Renamed"))
        #expect(try store.lastChangeSequence() == last + 1)
        #expect(try store.entities(items: [ids[1]], projects: [], messages: [])[.item]?[ids[1]]?.title == "Renamed")
        last += 1
        let other = try DatabaseQueue(path: store.path)
        try other.write { db in
            try db.execute(sql: "UPDATE items SET title = 'From a shell' WHERE id = ?", arguments: [ids[1]])
            try db.execute(sql: "DELETE FROM items WHERE id = ?", arguments: [ids[2]])
        }
        #expect(try store.lastChangeSequence() == last + 2)
        let page = try store.entities(items: [ids[1], ids[2]], projects: [], messages: [])
        #expect(page[.item]?[ids[1]]?.title == "From a shell")
        #expect(page[.item]?[ids[2]] == nil)
    }

    @Test func aReadOnlyStoreReadsTheSame() throws {
        let (store, ids) = try filledStore()
        let readOnly = try TrackerStore.open(at: store.path, readOnly: true)
        #expect(try readOnly.lastChangeSequence() == (try store.lastChangeSequence()))
        let written = try store.entities(items: ids, projects: [], messages: [])
        #expect(try readOnly.entities(items: ids, projects: [], messages: []) == written)
    }

    /// How many descriptors of this process have `path` open.
    func descriptors(of path: String) throws -> Int {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter { fd in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd)) == target
        }.count
    }

    @Test func aStoreOpenedForReadingLendsItsConnectionAndSeesLaterCommits() throws {
        let (store, ids) = try filledStore()
        let expected = try store.read { try $0.entities(items: ids, projects: [], messages: []) }
        let last = try store.lastChangeSequence()
        let reading = try TrackerStore.open(at: store.path, forReading: true)
        let open = try descriptors(of: store.path)
        #expect(try #require(reading.searchReads.entities(items: ids, projects: [])) == expected)
        #expect(reading.searchReads.lastChangeSequence() == last)
        // No connection of its own: the queue's, left outside any transaction, so GRDB reads see a later commit too.
        let now = try descriptors(of: store.path)
        #expect(now == open)
        try store.updateItem(id: ids[0], ItemChanges(title: "Renamed"))
        #expect(try reading.read { try $0.item(id: ids[0]) }?.title == "Renamed")
        let after = try #require(reading.searchReads.entities(items: [ids[0]], projects: []))
        #expect(after[.item]?[ids[0]]?.title == "Renamed")
    }

    @Test func aSampleIsSpreadOverTheStoreAndReadsOnlyWhatItReturns() throws {
        let (store, ids) = try filledStore()
        // Every item when there are no more than asked for.
        #expect(try store.read { try $0.sampleItems(count: 100) }.map(\.id) == ids)
        // Runs of consecutive items, from the start to the end of the store.
        let sample = try store.read { try $0.sampleItems(count: 8, runs: 4) }.map(\.id)
        #expect(sample.count == 8)
        #expect(sample.first == ids.first)
        #expect(Set(sample).isSubset(of: ids) && Set(sample).count == 8)
        #expect(ids.firstIndex(of: sample.last!)! >= 30)
        // Rowids a sqlite3 shell chose, at both ends of their range: no overflow, still a spread.
        let queue = try DatabaseQueue(path: store.path)
        try queue.write { db in
            try db.execute(sql: "UPDATE items SET rowid = -9223372036854775807 WHERE id = ?", arguments: [ids[5]])
            try db.execute(sql: "UPDATE items SET rowid = 9223372036854775807 WHERE id = ?", arguments: [ids[6]])
        }
        let wide = try store.read { try $0.sampleItems(count: 8, runs: 4) }.map(\.id)
        #expect(wide.contains(ids[5]) && wide.contains(ids[6]))
        #expect(try store.read { try $0.sampleItems(count: 0) }.isEmpty)
    }
}
