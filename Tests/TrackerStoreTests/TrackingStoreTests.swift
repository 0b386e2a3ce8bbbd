import Foundation
import GRDB
import TestSupport
import Testing

@testable import TrackerStore

/// An item's tracker fields in the store: the v5 migration of an existing store, tags and links as rows that log
/// their item whoever writes them, the checks on what is written, and the JSON Lines round trip.
@Suite struct TrackingStoreTests {
    let directory = TemporaryDirectory("tracking")

    func makeStore(_ name: String = "tracker.sqlite") throws -> TrackerStore {
        try TrackerStore.create(at: directory.file(name))
    }

    func log(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "SELECT entity, op FROM change_log ORDER BY seq").map {
                "\($0["entity"] as String) \($0["op"] as String)"
            }
        }
    }

    func export(_ store: TrackerStore) throws -> String {
        var lines: [String] = []
        try store.exportJSONLines { lines.append($0) }
        return lines.joined(separator: "\n") + "\n"
    }

    static let full = ItemTracking(
        author: " Bob ", assignees: ["carol", "alice", "carol"], resolution: "fixed",
        closedAt: "2024-05-01T10:30:00+01:00", tags: ["namenode", "Bug", "bug", "namenode"],
        sourceURL: "https://issues.apache.org/jira/browse/HADOOP-12", sourceKey: "HADOOP-12")

    @Test func anItemKeepsItsTrackerFieldsAsTheStoreWritesThem() throws {
        let store = try makeStore()
        let project = try store.addProject(title: "Hadoop")
        let item = try store.addItem(projectID: project.id, title: "NameNode crash", tracking: Self.full)
        let expected = ItemTracking(
            author: "Bob", assignees: ["carol", "alice"], resolution: "fixed", closedAt: "2024-05-01T09:30:00Z",
            tags: ["Bug", "bug", "namenode"], sourceURL: Self.full.sourceURL, sourceKey: "HADOOP-12")
        #expect(item.tracking == expected)
        #expect(try store.read { try $0.item(id: item.id) }?.tracking == expected)
        // Read by the search path's own statements too.
        let entity = try store.entities(items: [item.id], projects: [], messages: [])[.item]?[item.id]
        guard case .item(let read, _)? = entity else {
            Issue.record("no item")
            return
        }
        #expect(read.tracking == expected)
        // One insert, and one update per tag: every write is in the log.
        #expect(try log(store.path) == ["project insert", "item insert", "item update", "item update", "item update"])
    }

    @Test func anOldStoreIsMigratedInPlaceAndKeepsItsRows() throws {
        let path = directory.file("old.sqlite")
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v4")
        try queue.write { db in
            try db.execute(sql: "INSERT INTO store_info (uuid) VALUES ('0f0e0d0c-0b0a-4908-8706-050403020100')")
            try db.execute(
                sql: "INSERT INTO projects (id, title) VALUES ('11111111-1111-4111-8111-111111111111', 'Home')")
            try db.execute(
                sql: """
                    INSERT INTO items (id, project_id, title, completed)
                    VALUES ('22222222-2222-4222-8222-222222222222', '11111111-1111-4111-8111-111111111111', 'Tap', 1)
                    """)
        }
        try queue.close()
        let store = try TrackerStore.open(at: path)
        let item = try #require(try store.read { try $0.item(id: "22222222-2222-4222-8222-222222222222") })
        #expect(item.title == "Tap" && item.isCompleted && item.tracking == ItemTracking())
        try store.updateItem(
            id: item.id, ItemChanges(tracking: { $0.tags = ["plumbing"] }))
        #expect(try store.read { try $0.item(id: item.id) }?.tracking.tags == ["plumbing"])
    }

    @Test func tagsAndLinksWrittenBySQLAreLoggedAndGoWithTheirItemButLinksToItStay() throws {
        let store = try makeStore()
        let project = try store.addProject(title: "Hadoop")
        let original = try store.addItem(projectID: project.id, title: "NameNode crash")
        let copy = try store.addItem(
            projectID: project.id, title: "NN crash",
            tracking: ItemTracking(links: [ItemLink(kind: .duplicateOf, itemID: original.id)]))
        let before = try log(store.path).count
        let queue = try DatabaseQueue(path: store.path)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO tags (item_id, title) VALUES (?, 'hdfs')", arguments: [original.id])
            try db.execute(sql: "UPDATE tags SET title = 'HDFS'")
            try db.execute(sql: "DELETE FROM tags")
        }
        #expect(try log(store.path).dropFirst(before) == ["item update", "item update", "item update"])
        // Deleting the original leaves the copy's link, dangling; deleting the copy takes its link, logging only
        // the delete.
        try store.deleteItem(id: original.id)
        let dangling = try store.read { try $0.danglingLinks() }
        #expect(dangling.map(\.itemID) == [copy.id] && dangling.map(\.targetID) == [original.id])
        #expect(try store.read { try $0.item(id: copy.id) }?.tracking.links.count == 1)
        let count = try log(store.path).count
        try store.deleteItem(id: copy.id)
        #expect(try log(store.path).dropFirst(count) == ["item delete"])
        let left = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM links") }
        #expect(left == 0)
    }

    @Test func aMessageLogsItsItemWhenItChangesWhoCommentedWhoeverWritesIt() throws {
        let store = try makeStore()
        let project = try store.addProject(title: "Hadoop")
        let item = try store.addItem(projectID: project.id, title: "NameNode crash")
        let other = try store.addItem(projectID: project.id, title: "DataNode crash")
        var count = try log(store.path).count
        func logged() throws -> [String] {
            let all = try log(store.path)
            defer { count = all.count }
            return Array(all.dropFirst(count))
        }
        func commenters(_ id: String) throws -> [String]? { try store.read { try $0.item(id: id) }?.commenters }

        // A first comment by a name logs its item; a second by the same name, a nameless one, or a project's does not.
        let first = try store.addMessage(on: .item(id: item.id), author: "carol", text: "Seen on 3.3 too")
        #expect(try logged().sorted() == ["item update", "message insert"])
        _ = try store.addMessage(on: .item(id: item.id), author: "carol", text: "And on 3.4")
        _ = try store.addMessage(on: .item(id: item.id), text: "Anonymous")
        _ = try store.addMessage(on: .project(id: project.id), author: "dave", text: "Release next week")
        #expect(try logged() == ["message insert", "message insert", "message insert"])
        #expect(try commenters(item.id) == ["carol"])

        // Another program's writes: a new name, a message moved to another item, the last of a name deleted.
        let queue = try DatabaseQueue(path: store.path)
        try queue.write { db in
            try db.execute(
                sql: "INSERT INTO messages (item_id, author, text) VALUES (?, 'Bob', 'Patch attached')",
                arguments: [item.id])
        }
        #expect(try logged().sorted() == ["item update", "message insert"])
        #expect(try commenters(item.id) == ["Bob", "carol"])
        try queue.write { db in
            try db.execute(sql: "UPDATE messages SET item_id = ? WHERE author = 'Bob'", arguments: [other.id])
        }
        #expect(try logged().sorted() == ["item update", "item update", "message update"])
        #expect(try commenters(item.id) == ["carol"] && commenters(other.id) == ["Bob"])
        try store.deleteMessage(id: first.id)
        #expect(try logged() == ["message delete"])
        try queue.write { db in try db.execute(sql: "DELETE FROM messages WHERE author = 'carol'") }
        #expect(try logged().sorted() == ["item update", "message delete"])
        #expect(try commenters(item.id) == [])
        // Read by the search path's own statements too.
        guard
            case .item(let read, _)? = try store.entities(items: [other.id], projects: [], messages: [])[.item]?[
                other.id]
        else {
            Issue.record("no item")
            return
        }
        #expect(read.commenters == ["Bob"])
    }

    @Test func duplicateGroupsFollowLinksEitherWayAndLeaveOutTheIgnored() throws {
        let store = try makeStore()
        let project = try store.addProject(title: "Hadoop")
        func item(_ title: String, duplicateOf original: Item? = nil) throws -> Item {
            try store.addItem(
                projectID: project.id, title: title,
                tracking: ItemTracking(links: original.map { [ItemLink(kind: .duplicateOf, itemID: $0.id)] } ?? []))
        }
        let original = try item("NameNode crash")
        let first = try item("NN crash", duplicateOf: original)
        let second = try item("NameNode dies", duplicateOf: original)
        let third = try item("NN dies again", duplicateOf: second)
        let other = try item("Shell quoting", duplicateOf: try item("Quoting in the shell"))
        let alone = try item("Slow listing")
        let all = Set([original, first, second, third].map(\.id))
        let groups = try store.read { try $0.duplicateGroups(around: [first.id, other.id, alone.id]) }
        #expect(groups[first.id] == all)
        #expect(groups[other.id]?.count == 2)
        #expect(groups[alone.id] == nil)
        // Ignoring the original splits the group: the first duplicate is left alone.
        let split = try store.read { try $0.duplicateGroups(around: [first.id, third.id], ignoring: [original.id]) }
        #expect(split[first.id] == nil)
        #expect(split[third.id] == [second.id, third.id])
    }

    @Test func theSchemaRefusesWhatNoWriterMayStore() throws {
        let store = try makeStore()
        let project = try store.addProject(title: "Hadoop")
        let item = try store.addItem(projectID: project.id, title: "Crash")
        let queue = try DatabaseQueue(path: store.path)
        let refused = [
            "INSERT INTO tags (item_id, title) VALUES ('00000000-0000-4000-8000-000000000000', 'x')",
            "INSERT INTO tags (item_id, title) VALUES ('\(item.id)', '  ')",
            "INSERT INTO tags (item_id, title) VALUES ('\(item.id)', 'two' || char(10) || 'lines')",
            "INSERT INTO links (item_id, kind, target_item) VALUES ('\(item.id)', 'fixes', '\(item.id)')",
            "INSERT INTO links (item_id, kind, target_item) VALUES ('\(item.id)', 'blocks', 'not-a-uuid')",
            "UPDATE items SET closed_at = '2024-02-31T00:00:00Z'",
            "UPDATE items SET source_url = 'javascript:alert(1)'",
            "UPDATE items SET resolution = 'a' || char(10) || 'b'",
        ]
        for sql in refused {
            #expect(throws: DatabaseError.self, "\(sql)") { try queue.write { try $0.execute(sql: sql) } }
        }
    }

    @Test(arguments: [
        (ItemTracking(tags: ["bad\u{1B}[31m"]), "control character"),
        (ItemTracking(tags: [String(repeating: "t", count: 101)]), "over 100 bytes"),
        (ItemTracking(tags: (0...100).map { "t\($0)" }), "101 tags"),
        (ItemTracking(assignees: [" "]), "assignee's name is empty"),
        (ItemTracking(closedAt: "yesterday"), "not a real time"),
        (ItemTracking(sourceURL: "file:///etc/passwd"), "not an http(s) address"),
        (ItemTracking(sourceKey: "HADOOP 12"), "holds a space"),
        (ItemTracking(links: [ItemLink(kind: .blocks, itemID: "33333333-3333-4333-8333-333333333333")]), "no item"),
    ])
    func badTrackerFieldsAreRefusedWithTheirReason(tracking: ItemTracking, reason: String) throws {
        let store = try makeStore()
        let project = try store.addProject(title: "Hadoop")
        #expect {
            try store.addItem(projectID: project.id, title: "Crash", tracking: tracking)
        } throws: { error in
            (error as? StoreError)?.message.contains(reason) == true
        }
        #expect(try store.read { try $0.itemCount() } == 0)
    }

    @Test func closingRecordsWhenAndReopeningForgetsHowInOneChangeEach() throws {
        let store = try makeStore()
        let project = try store.addProject(title: "Hadoop")
        let item = try store.addItem(projectID: project.id, title: "Crash")
        let count = try log(store.path).count
        let closed = try store.updateItem(
            id: item.id, ItemChanges(isCompleted: true, tracking: { $0.resolution = "fixed" }))
        #expect(closed.tracking.closedAt != nil && closed.tracking.resolution == "fixed")
        let reopened = try store.updateItem(id: item.id, ItemChanges(isCompleted: false))
        #expect(reopened.tracking.closedAt == nil && reopened.tracking.resolution == "")
        #expect(try log(store.path).dropFirst(count) == ["item update", "item update"])
        #expect {
            try store.updateItem(
                id: item.id, ItemChanges(tracking: { $0.links = [ItemLink(kind: .blocks, itemID: item.id)] }))
        } throws: { ($0 as? StoreError)?.message.contains("cannot link to itself") == true }
    }

    static let file = """
        {"kind":"project","id":"11111111-1111-4111-8111-111111111111","title":"Hadoop"}
        {"kind":"item","id":"22222222-2222-4222-8222-222222222222","project":"11111111-1111-4111-8111-111111111111","title":"NameNode crash","author":"bob","assignees":["alice"],"tags":["hdfs","bug"],"url":"https://issues.apache.org/jira/browse/HADOOP-12","key":"HADOOP-12"}
        {"kind":"item","id":"33333333-3333-4333-8333-333333333333","project":"11111111-1111-4111-8111-111111111111","title":"NN crash","completed":true,"resolution":"duplicate","closed_at":"2024-05-02T00:00:00Z","links":[{"kind":"duplicate-of","item":"22222222-2222-4222-8222-222222222222"},{"kind":"relates-to","uri":"tracker://0f0e0d0c-0b0a-4908-8706-050403020100/item/44444444-4444-4444-8444-444444444444"}]}
        {"kind":"item","id":"55555555-5555-4555-8555-555555555555","project":"11111111-1111-4111-8111-111111111111","title":"Plain"}

        """

    @Test func importThenExportGivesTheFieldsBackAndAChangedCopyUpdatesOnlyWhatChanged() throws {
        let store = try makeStore()
        let first = try store.importJSONLines(Data(Self.file.utf8))
        #expect(first.itemsAdded == 3)
        let exported = try export(store)
        let second = try makeStore("second.sqlite")
        _ = try second.importJSONLines(Data(exported.utf8))
        #expect(try export(second) == exported)
        let copy = try #require(try store.read { try $0.item(id: "33333333-3333-4333-8333-333333333333") })
        #expect(copy.tracking.links.map(\.kind) == [.duplicateOf, .relatesTo])
        #expect(copy.tracking.links[1].storeID == "0f0e0d0c-0b0a-4908-8706-050403020100")
        #expect(exported.contains(#""tags":["bug","hdfs"]"#))

        // The same file again: nothing changes, nothing is logged.
        let logged = try log(store.path).count
        let again = try store.importJSONLines(Data(Self.file.utf8))
        #expect(again.itemsUpdated == 0 && again.unchanged == 4)
        #expect(try log(store.path).count == logged)
        // A tag dropped from one item, an assignee changed on another: two items updated.
        let changed = Self.file.replacingOccurrences(of: #""tags":["hdfs","bug"]"#, with: #""tags":["hdfs"]"#)
            .replacingOccurrences(of: #""resolution":"duplicate""#, with: #""resolution":"Duplicate""#)
        let third = try store.importJSONLines(Data(changed.utf8))
        #expect(third.itemsUpdated == 2 && third.unchanged == 2)
    }

    @Test func aRecordWithoutTimesKeepsTheStoredOnesAndAnImportAgainChangesNothing() throws {
        let store = try makeStore()
        let dated = Self.file.replacingOccurrences(
            of: #""title":"#, with: #""created":"2020-01-02T03:04:05Z","title":"#)
        _ = try store.importJSONLines(Data(dated.utf8))
        let logged = try log(store.path).count
        let again = try store.importJSONLines(Data(Self.file.utf8))
        #expect(again.projectsUpdated == 0 && again.itemsUpdated == 0 && again.unchanged == 4)
        #expect(try log(store.path).count == logged)
        let item = try #require(try store.read { try $0.item(id: "55555555-5555-4555-8555-555555555555") })
        #expect(item.createdAt == "2020-01-02T03:04:05Z")
        // A new record without times gets the import's time for both.
        let added = try store.importJSONLines(
            Data(
                #"{"kind":"item","id":"66666666-6666-4666-8666-666666666666","project":"11111111-1111-4111-8111-111111111111","title":"New"}"#
                    .utf8))
        #expect(added.itemsAdded == 1)
        let new = try #require(try store.read { try $0.item(id: "66666666-6666-4666-8666-666666666666") })
        #expect(new.createdAt > "2026" && new.modifiedAt == new.createdAt)
    }

    @Test(arguments: [
        (#""tags":"bug""#, "must be an array of strings"),
        (#""links":[{"kind":"fixes","item":"22222222-2222-4222-8222-222222222222"}]"#, "a link's kind is \"fixes\""),
        (
            #""links":[{"kind":"blocks","item":"66666666-6666-4666-8666-666666666666"}]"#,
            "neither in the file nor in the store"
        ),
        (#""url":"ftp://example.org/x""#, "not an http(s) address"),
        (#""closed_at":"2024-13-01""#, "not a real time"),
    ])
    func aBadTrackerFieldRejectsTheFileNamingItsLine(field: String, reason: String) throws {
        let store = try makeStore()
        let file = Self.file.replacingOccurrences(of: #""title":"Plain""#, with: #""title":"Plain","# + field)
        #expect {
            try store.importJSONLines(Data(file.utf8))
        } throws: { error in
            let message = (error as? StoreError)?.message ?? ""
            return message.hasPrefix("line 4: ") && message.contains(reason)
        }
        #expect(try store.read { try $0.itemCount() } == 0)
    }
}
