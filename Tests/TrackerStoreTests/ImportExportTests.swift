import Foundation
import GRDB
import TestSupport
import Testing
import TrackerStore

@Suite struct ImportExportTests {
    let directory = TemporaryDirectory("import")

    func makeStore(_ name: String = "tracker.sqlite") throws -> TrackerStore {
        try TrackerStore.create(at: directory.file(name))
    }

    func export(_ store: TrackerStore) throws -> String {
        var lines: [String] = []
        try store.exportJSONLines { lines.append($0) }
        return lines.joined(separator: "\n") + "\n"
    }

    static let project = "11111111-1111-4111-8111-111111111111"
    static let item = "22222222-2222-4222-8222-222222222222"
    static let good = """
        {"kind":"project","id":"\(project)","title":"Home","detail":"the house","created":"2024-01-01T10:00:00Z"}
        {"kind":"item","id":"\(item)","project":"\(project)","title":"Fix tap","detail":"washer","priority":3,"completed":false,"created":"2024-01-02T10:00:00Z"}

        """

    @Test func importThenExportThenImportIsTheIdentity() throws {
        let first = try makeStore("a.sqlite")
        let summary = try first.importJSONLines(Repository.debianCorpusData)
        #expect(summary.projectsAdded == 392)
        #expect(summary.itemsAdded == 9_503)
        let exported = try export(first)
        let second = try makeStore("b.sqlite")
        _ = try second.importJSONLines(Data(exported.utf8))
        #expect(try export(second) == exported)
    }

    @Test func reimportingTheSameIdsUpdatesThemAndOnlyThem() throws {
        let store = try makeStore()
        _ = try store.importJSONLines(Data(Self.good.utf8))
        let again = try store.importJSONLines(Data(Self.good.utf8))
        #expect(
            again.unchanged == 2
                && again.itemsAdded + again.itemsUpdated + again.projectsAdded + again.projectsUpdated == 0)
        let changed = Self.good.replacingOccurrences(of: "\"Fix tap\"", with: "\"Fix the kitchen tap\"")
        let summary = try store.importJSONLines(Data(changed.utf8))
        #expect(summary.itemsUpdated == 1 && summary.unchanged == 1)
        #expect(try store.read { try $0.item(id: Self.item) }?.title == "Fix the kitchen tap")
        #expect(try store.read { try $0.itemCount() } == 1)
    }

    @Test(arguments: [
        ("{\"kind\":\"item\"}", "line 3: field \"project\" is missing (the id of the item's project)"),
        (
            "{\"kind\":\"item\",\"project\":\"\(project)\",\"title\":\"x\",\"priority\":7}",
            "line 3: field \"priority\" is 7; use 1 (low), 2 (medium) or 3 (high)"
        ),
        ("{\"kind\":\"item\",\"project\":\"\(project)\",\"title\":\"\"}", "line 3: field \"title\" is empty"),
        (
            "{\"kind\":\"item\",\"project\":\"\(project)\",\"title\":\"x\",\"completed\":1}",
            "line 3: field \"completed\" must be true or false"
        ),
        (
            "{\"kind\":\"item\",\"project\":\"\(project)\",\"title\":\"a\\u0000b\"}",
            "line 3: field \"title\" contains a NUL character"
        ),
        (
            "{\"kind\":\"item\",\"project\":\"\(project)\",\"title\":\"x\",\"created\":\"yesterday\"}",
            "line 3: field \"created\" is \"yesterday\", not a real time; use ISO 8601 like 2024-05-01T09:30:00Z (years 0001–9999)"
        ),
        ("{\"kind\":\"task\"}", "line 3: field \"kind\" is \"task\"; use \"project\", \"item\" or \"message\""),
        (
            "{\"kind\":\"item\",\"project\":\"\(project)\",\"title\":\"x\",\"priorty\":1}",
            "line 3: unknown field \"priorty\" for a item; known fields: assignees, author, closed_at, completed, created, detail, id, key, kind, links, modified, priority, project, resolution, tags, title, url"
        ),
        (
            "{\"kind\":\"item\",\"project\":\"33333333-3333-4333-8333-333333333333\",\"title\":\"x\"}",
            "line 3: project 33333333-3333-4333-8333-333333333333 is neither in the file nor in the store"
        ),
        (
            "{\"kind\":\"item\",\"id\":\"\(item)\",\"project\":\"\(project)\",\"title\":\"x\"}",
            "line 3: id \(item) was already used on line 2"
        ),
        ("{not json", "line 3: not valid JSON (expected a \"key\") at byte 2"),
        ("[1, 2]", "line 3: expected a JSON object {…}"),
    ])
    func aBadLineRejectsTheWholeFileAndLeavesTheStoreAsItWas(line: String, message: String) throws {
        let store = try makeStore()
        _ = try store.importJSONLines(Data(Self.good.utf8))
        let before = try export(store)
        let lastSequence = try store.read { try $0.lastChangeSequence() }
        let file = Self.good.replacingOccurrences(of: "\"Home\"", with: "\"Home, renamed\"") + line + "\n"
        #expect { try store.importJSONLines(Data(file.utf8)) } throws: {
            ($0 as? StoreError)?.message == message
        }
        #expect(try export(store) == before)
        #expect(try store.read { try $0.lastChangeSequence() } == lastSequence)
    }

    @Test func invalidUTF8AndRawNULBytesAreRejectedByLine() throws {
        let store = try makeStore()
        var bad = Data(Self.good.utf8)
        bad.append(
            contentsOf: Array("{\"kind\":\"project\",\"title\":\"caf".utf8) + [0xC3, 0x28] + Array("\"}\n".utf8))
        #expect { try store.importJSONLines(bad) } throws: {
            ($0 as? StoreError)?.message == "line 3: is not valid UTF-8"
        }
        var withNul = Data(Self.good.utf8)
        withNul.append(contentsOf: Array("{\"kind\":\"project\",\"title\":\"a".utf8) + [0] + Array("\"}\n".utf8))
        #expect { try store.importJSONLines(withNul) } throws: {
            ($0 as? StoreError)?.message == "line 3: contains a NUL byte (at byte 29)"
        }
        #expect(try store.read { try $0.projectCount() } == 0)
    }
}
