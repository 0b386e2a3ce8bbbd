import Foundation
import GRDB
import TestSupport
import Testing

@testable import TrackerStore

/// Messages in the store: the v4 migration of an existing store, triggers that log them and delete them with what
/// they are on, and the JSON Lines round trip.
@Suite struct MessagesStoreTests {
    let directory = TemporaryDirectory("messages")

    /// A store as the previous version made it (schema v3), with two changes logged and then pruned.
    func storeAtV3() throws -> String {
        let path = directory.file("old.sqlite")
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v3")
        try queue.write { db in
            try db.execute(sql: "INSERT INTO store_info (uuid) VALUES ('0f0e0d0c-0b0a-4908-8706-050403020100')")
            try db.execute(
                sql: "INSERT INTO projects (id, title) VALUES ('11111111-1111-4111-8111-111111111111', 'Home')")
            try db.execute(
                sql: """
                    INSERT INTO items (id, project_id, title)
                    VALUES ('22222222-2222-4222-8222-222222222222', '11111111-1111-4111-8111-111111111111', 'Fix the tap')
                    """)
            try db.execute(sql: "INSERT INTO subscriptions (id, query, normalized) VALUES ('s1', 'tap', 'tap')")
            try db.execute(
                sql: "INSERT INTO subscription_members VALUES ('s1', 'item', '22222222-2222-4222-8222-222222222222')")
            // Everything applied and pruned: the log is empty, its sequence at 2.
            try db.execute(sql: "DELETE FROM change_log")
            try db.execute(sql: "UPDATE store_info SET log_pruned_through = 2")
        }
        return path
    }

    @Test func anOldStoreGainsMessagesWithoutReusingALogPosition() throws {
        let path = try storeAtV3()
        let store = try TrackerStore.open(at: path)
        #expect(store.uuid == "0f0e0d0c-0b0a-4908-8706-050403020100")
        #expect(try store.read { try $0.lastChangeSequence() } == 2)
        let message = try store.addMessage(
            on: .item(id: "22222222-2222-4222-8222-222222222222"), author: "Ada", text: "Washer bought")
        let queue = try DatabaseQueue(path: path)
        let log = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT seq, entity, entity_id, op, project_id FROM change_log ORDER BY seq")
        }
        // Positions 3 and 4, not 1 and 2: an index whose cursor is 2 must not skip them. (The message, and its item's
        // update: Ada is a new commenter on it.)
        #expect(log.map { $0["seq"] as Int64 } == [3, 4])
        let logged = try #require(log.first { $0["entity"] as String == "message" })
        #expect(logged["entity_id"] as String == message.id)
        #expect(logged["project_id"] as String == "11111111-1111-4111-8111-111111111111")
        // The old triggers log into the new table.
        try store.updateItem(id: "22222222-2222-4222-8222-222222222222", ItemChanges(title: "Fix the kitchen tap"))
        #expect(try store.read { try $0.lastChangeSequence() } == 5)
        // What subscriptions held is kept, and a message can be a member now.
        let members = try queue.write { db in
            try db.execute(sql: "INSERT INTO subscription_members VALUES ('s1', 'message', ?)", arguments: [message.id])
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM subscription_members")
        }
        #expect(members == 2)
        let integrity = try queue.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        let dangling = try queue.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") }
        #expect(integrity == "ok" && dangling.isEmpty)
    }

    /// A command that only reads opens an old store as any command does: migrated, so that its triggers log what
    /// other programs write. A current store it opens read-only, and writes nothing to it.
    @Test func openingForReadingMigratesAnOldStoreAndWritesNothingToACurrentOne() throws {
        let path = try storeAtV3()
        let old = try TrackerStore.open(at: path, forReading: true)
        #expect(!old.isReadOnly)
        let applied = try DatabaseQueue(path: path).read { db in try Schema.migrator.appliedIdentifiers(db) }
        #expect(applied == Set(Schema.migrator.migrations))

        let current = try TrackerStore.open(at: path, forReading: true)
        #expect(current.isReadOnly && current.uuid == old.uuid)
        #expect(try current.read { try $0.lastChangeSequence() } == 2)
        #expect(throws: StoreError.self) { try current.addProject(title: "Garden") }
    }

    @Test func messagesGoWithWhatTheyAreOnWhoeverDeletesIt() throws {
        let store = try TrackerStore.create(at: directory.file("tracker.sqlite"))
        let home = try store.addProject(title: "Home")
        let tap = try store.addItem(projectID: home.id, title: "Fix the tap")
        let onItem = try store.addMessage(on: .item(id: tap.id), author: "Ada", text: "Washer bought")
        let onProject = try store.addMessage(on: .project(id: home.id), text: "Budget agreed")
        #expect(onProject.author == "" && onItem.author == "Ada")
        // A plain sqlite3 session (foreign keys off) deleting the item takes its message with it, logged.
        let shell = TestSupport.run(
            ["sqlite3", store.path], input: Data("DELETE FROM items WHERE id = '\(tap.id)';".utf8))
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(try store.read { try $0.message(id: onItem.id) } == nil)
        let queue = try DatabaseQueue(path: store.path)
        let deletes = try queue.read { db in
            try String.fetchAll(db, sql: "SELECT entity FROM change_log WHERE op = 'delete' ORDER BY seq")
        }
        #expect(deletes == ["message", "item"])
        try store.deleteProject(id: home.id)
        #expect(try store.read { try $0.messageCount() } == 0)

        // Bad messages are refused by the store, whoever writes them.
        let other = try store.addProject(title: "Garden")
        #expect(throws: StoreError.self) { try store.addMessage(on: .project(id: other.id), text: "   ") }
        #expect(throws: StoreError.self) {
            try store.addMessage(
                on: .project(id: other.id), text: String(repeating: "x", count: Message.maximumTextBytes + 1))
        }
        #expect(throws: StoreError.self) { try store.addMessage(on: .item(id: tap.id), text: "gone") }
        for sql in [
            "INSERT INTO messages (text) VALUES ('on nothing')",
            "INSERT INTO messages (project_id, text) VALUES ('00000000-0000-4000-8000-000000000000', 'no such project')",
            "INSERT INTO messages (project_id, text) VALUES ('\(other.id)', '')",
        ] {
            #expect(TestSupport.run(["sqlite3", store.path], input: Data(sql.utf8)).status != 0, "\(sql)")
        }
    }

    @Test func messagesRoundTripThroughJSONLines() throws {
        let store = try TrackerStore.create(at: directory.file("a.sqlite"))
        let home = try store.addProject(title: "Home")
        let tap = try store.addItem(projectID: home.id, title: "Fix the tap")
        try store.addMessage(on: .item(id: tap.id), author: "Ada", text: "Washer bought\nand fitted")
        try store.addMessage(on: .project(id: home.id), author: "Bo", text: "Budget agreed")
        var lines: [String] = []
        try store.exportJSONLines { lines.append($0) }
        #expect(lines.filter { $0.hasPrefix("{\"kind\":\"message\"") }.count == 2)
        let copy = try TrackerStore.create(at: directory.file("b.sqlite"))
        let summary = try copy.importJSONLines(Data(lines.joined(separator: "\n").utf8))
        #expect(summary.messagesAdded == 2 && summary.itemsAdded == 1 && summary.projectsAdded == 1)
        var again: [String] = []
        try copy.exportJSONLines { again.append($0) }
        #expect(again == lines)
        #expect(try copy.importJSONLines(Data(lines.joined(separator: "\n").utf8)).unchanged == 4)

        // A message names what it is on: one of project or item, which must exist.
        for (line, reason) in [
            (#"{"kind":"message","text":"hi"}"#, #"field "project" or "item" is missing"#),
            (#"{"kind":"message","project":"\#(home.id)","item":"\#(tap.id)","text":"hi"}"#, "not both"),
            (#"{"kind":"message","project":"\#(home.id)","text":" "}"#, "the message is empty"),
            (
                #"{"kind":"message","item":"00000000-0000-4000-8000-000000000000","text":"hi"}"#,
                "neither in the file nor in the store"
            ),
            (#"{"kind":"message","project":"\#(home.id)","text":"hi","title":"x"}"#, #"unknown field "title""#),
        ] {
            do {
                _ = try copy.importJSONLines(Data(line.utf8))
                Issue.record("accepted \(line)")
            } catch {
                #expect(error.message.contains(reason), "\(error.message)")
            }
        }
    }
}
