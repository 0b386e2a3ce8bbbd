import Foundation
import GRDB
import TestSupport
import Testing
import TrackerStore

@Suite struct StoreTests {
    let directory = TemporaryDirectory("store")

    func makeStore() throws -> TrackerStore { try TrackerStore.create(at: directory.file("tracker.sqlite")) }

    /// The change log as (entity, op) pairs, oldest first.
    func log(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "SELECT entity, op FROM change_log ORDER BY seq").map {
                "\($0["entity"] as String) \($0["op"] as String)"
            }
        }
    }

    @Test func aNewStoreHasAUUIDAndIsInWALMode() throws {
        let store = try makeStore()
        #expect(TrackerURI.isCanonicalUUID(store.uuid))
        let reopened = try TrackerStore.open(at: store.path)
        #expect(reopened.uuid == store.uuid)
        let mode = try DatabaseQueue(path: store.path).read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
    }

    @Test func everyWriteIsLogged() throws {
        let store = try makeStore()
        let project = try store.addProject(title: "Home")
        let item = try store.addItem(projectID: project.id, title: "Fix the tap", priority: 3)
        try store.updateItem(id: item.id, ItemChanges(isCompleted: true))
        try store.updateProject(id: project.id, ProjectChanges(title: "House"))
        try store.deleteItem(id: item.id)
        #expect(
            try log(store.path) == [
                "project insert", "item insert", "item update", "project update", "item delete",
            ])
    }

    @Test func deletingAProjectDeletesAndLogsItsItemsEvenWithForeignKeysOff() throws {
        let store = try makeStore()
        let project = try store.addProject(title: "Garden")
        for title in ["Mow", "Weed", "Water"] { try store.addItem(projectID: project.id, title: title) }
        let other = try store.addProject(title: "Other")
        try store.addItem(projectID: other.id, title: "Keep me")

        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let raw = try DatabaseQueue(path: store.path, configuration: configuration)
        try raw.write { db in
            #expect(try Int.fetchOne(db, sql: "PRAGMA foreign_keys") == 0)
            try db.execute(sql: "DELETE FROM projects WHERE id = ?", arguments: [project.id])
        }
        try raw.close()
        let remaining = try store.read { try $0.itemCount() }
        #expect(remaining == 1)
        #expect(try log(store.path).suffix(4) == ["item delete", "item delete", "item delete", "project delete"])
    }

    @Test func modifiedAtIsKeptByTheStoreNotTheCaller() throws {
        let store = try makeStore()
        let project = try store.addProject(title: "P")
        let item = try store.addItem(projectID: project.id, title: "Old title")
        try DatabaseQueue(path: store.path).write { db in
            try db.execute(
                sql: "UPDATE items SET title = 'New', modified_at = '1999-01-01T00:00:00Z' WHERE id = ?",
                arguments: [item.id])
        }
        let updated = try #require(try store.read { try $0.item(id: item.id) })
        #expect(updated.title == "New")
        #expect(updated.modifiedAt != "1999-01-01T00:00:00Z")
        #expect(try #require(Timestamp.seconds(updated.modifiedAt)) >= Timestamp.seconds(item.modifiedAt)!)
    }

    @Test func theSchemaRefusesWhatWritersMustNotStore() throws {
        let store = try makeStore()
        let project = try store.addProject(title: "P")
        let raw = try DatabaseQueue(path: store.path)
        let rejected = [
            "INSERT INTO items (project_id, title, priority) VALUES ('\(project.id)', 'x', 4)",
            "INSERT INTO items (project_id, title) VALUES ('\(project.id)', '   ')",
            "INSERT INTO items (project_id, title) VALUES ('00000000-0000-4000-8000-000000000000', 'orphan')",
            "INSERT INTO items (id, project_id, title) VALUES ('not-a-uuid', '\(project.id)', 'x')",
            "UPDATE projects SET id = '00000000-0000-4000-8000-000000000000'",
        ]
        for sql in rejected {
            #expect(throws: DatabaseError.self, "\(sql)") { try raw.write { try $0.execute(sql: sql) } }
        }
        // Rows inserted by a plain client get a canonical UUID by default.
        try raw.write {
            try $0.execute(sql: "INSERT INTO items (project_id, title) VALUES ('\(project.id)', 'from sqlite3')")
        }
        let id = try raw.read { try String.fetchOne($0, sql: "SELECT id FROM items")! }
        #expect(TrackerURI.isCanonicalUUID(id))
    }

    @Test func badInputIsRefusedWithASentence() throws {
        let store = try makeStore()
        let project = try store.addProject(title: "P")
        #expect { try store.addItem(projectID: project.id, title: "  ") } throws: {
            ($0 as? StoreError)?.message == "the item title is empty; give it a few words"
        }
        #expect { try store.addItem(projectID: project.id, title: "x", priority: 5) } throws: {
            ($0 as? StoreError)?.message == "priority 5 is out of range; use 1 (low), 2 (medium) or 3 (high)"
        }
        #expect { try store.findProject("Nope") } throws: {
            ($0 as? StoreError)?.code == .notFound
        }
        #expect(try store.read { try $0.itemCount() } == 0)
    }

    @Test func aMissingStoreSaysHowToCreateOne() {
        #expect { try TrackerStore.open(at: directory.file("none.sqlite")) } throws: {
            guard let error = $0 as? StoreError else { return false }
            return error.code == .missingStore && error.message.contains("spotlite init")
        }
    }

    @Test func aFileThatIsNotSQLiteIsRefusedAndLeftAlone() throws {
        let path = directory.file("notes.txt")
        let contents = Data("these are my notes, not a database\n".utf8)
        try contents.write(to: URL(fileURLWithPath: path))
        #expect { try TrackerStore.open(at: path) } throws: {
            ($0 as? StoreError)?.message == "\(path) is not a Spotlite store (not an SQLite database)"
        }
        #expect(FileManager.default.contents(atPath: path) == contents)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func anSQLiteFileThatIsNotAStoreIsRefused() throws {
        let path = directory.file("other.sqlite")
        try DatabaseQueue(path: path).write { try $0.execute(sql: "CREATE TABLE t (x)") }
        #expect { try TrackerStore.open(at: path) } throws: {
            ($0 as? StoreError)?.message == "\(path) is an SQLite database but not a Spotlite store"
        }
    }

    /// A store opened again in a process that has it open (a server's store sets open its own store again) keeps
    /// that process's locks on the file: another program that writes and closes does not take itself for the last
    /// user and delete the write-ahead log, so what the first handle writes next is in the file for everyone.
    @Test func openingAnOpenStoreAgainLosesNothingItWritesLater() throws {
        let store = try makeStore()
        let project = try store.addProject(title: "Kept")
        _ = try TrackerStore.open(at: store.path)
        _ = try TrackerStore.open(at: store.path, readOnly: true)
        let insert = "INSERT INTO projects (id, title) VALUES ('\(UUID().uuidString.lowercased())', 'Shell');"
        let shell = TestSupport.run(["sqlite3", "-bail", store.path], input: Data(insert.utf8))
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(FileManager.default.fileExists(atPath: store.path + "-wal"))
        _ = try store.addItem(projectID: project.id, title: "Written after the shell closed")
        let count = TestSupport.run(["sqlite3", store.path], input: Data("SELECT count(*) FROM items;".utf8))
        #expect(count.stdout == "1\n", "\(count.stderr)")
    }

    @Test func uriLookupsTellForeignFromMissing() throws {
        let store = try makeStore()
        let project = try store.addProject(title: "P")
        let item = try store.addItem(projectID: project.id, title: "Thing")
        #expect(try store.entity(for: store.uri(.item, item.id)) == .item(item, project: project))
        try store.deleteItem(id: item.id)
        #expect { try store.entity(for: store.uri(.item, item.id)) } throws: { ($0 as? StoreError)?.code == .notFound }
        let foreign = TrackerURI(storeID: "00000000-0000-4000-8000-000000000000", kind: .item, entityID: item.id)
        #expect { try store.entity(for: foreign) } throws: { ($0 as? StoreError)?.code == .foreignStore }
    }
}
