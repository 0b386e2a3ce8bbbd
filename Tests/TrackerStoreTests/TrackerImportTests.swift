import Foundation
import GRDB
import TestSupport
import Testing

@testable import TrackerStore

/// Importing trackers' exports (samples/github-issues.json, jira-issues.json, jira-issues.csv, bugzilla-bugs.json,
/// bugzilla-bugs.csv): each read with its fields and links, imported again changing only what changed, a broken
/// record refused by its place with nothing changed, and exported back to the same content.
@Suite struct TrackerImportTests {
    let directory = TemporaryDirectory("tracker-import")

    func makeStore(_ name: String = "tracker.sqlite") throws -> TrackerStore {
        try TrackerStore.create(at: directory.file(name))
    }

    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: Repository.root + "/samples/" + name))
    }

    func export(_ store: TrackerStore) throws -> String {
        var lines: [String] = []
        try store.exportJSONLines { lines.append($0) }
        return lines.joined(separator: "\n")
    }

    func item(_ store: TrackerStore, key: String) throws -> Item? {
        try store.read { reader in
            try reader.allProjects().flatMap { try reader.items(inProjects: [$0.id]) }
        }.first { $0.tracking.sourceKey == key }
    }

    static let fixtures: [(String, ImportFormat, items: Int, messages: Int)] = [
        ("github-issues.json", .github, 4, 2), ("jira-issues.json", .jira, 4, 1), ("jira-issues.csv", .jiraCSV, 3, 1),
        ("bugzilla-bugs.json", .bugzilla, 3, 1), ("bugzilla-bugs.csv", .bugzillaCSV, 3, 0),
    ]

    @Test(arguments: fixtures)
    func eachFixtureIsGuessedImportedAgainUnchangedAndExportsBackTheSame(
        name: String, format: ImportFormat, items: Int, messages: Int
    ) throws {
        let data = try Self.fixture(name)
        #expect(ImportFormat.guess(data) == format)
        let store = try makeStore()
        let (first, notes) = try store.importExport(data, format: format, fileName: name)
        #expect(first.projectsAdded == 1 && first.itemsAdded == items && first.messagesAdded == messages, "\(first)")
        #expect(notes.linksLeftOut == 0)
        let exported = try export(store)
        // The same export again: every record unchanged, nothing logged.
        let sequence = try store.read { try $0.lastChangeSequence() }
        let (again, _) = try store.importExport(data, format: format, fileName: name)
        #expect(again.itemsAdded == 0 && again.itemsUpdated == 0 && again.unchanged == 1 + items + messages)
        #expect(try store.read { try $0.lastChangeSequence() } == sequence)
        #expect(try export(store) == exported)
        // Into another store: the same ids (stable), the same export.
        let other = try makeStore("other.sqlite")
        _ = try other.importExport(data, format: format, fileName: name)
        #expect(try export(other) == exported)
        let roundTrip = try makeStore("round-trip.sqlite")
        _ = try roundTrip.importJSONLines(Data(exported.utf8))
        #expect(try export(roundTrip) == exported)
    }

    @Test func gitHubIssuesKeepTheirPeopleLabelsStateAndDuplicateLink() throws {
        let store = try makeStore()
        _ = try store.importExport(try Self.fixture("github-issues.json"), format: .github)
        let original = try #require(try item(store, key: "octo-org/notes#41"))
        #expect(original.tracking.author == "tjansen" && original.tracking.assignees == ["mira"])
        #expect(original.tracking.tags == ["bug", "export"] && !original.isCompleted)
        #expect(original.tracking.sourceURL == "https://github.com/octo-org/notes/issues/41")
        let duplicate = try #require(try item(store, key: "octo-org/notes#44"))
        #expect(duplicate.isCompleted && duplicate.tracking.resolution == "duplicate")
        #expect(duplicate.tracking.closedAt == "2024-04-06T12:00:00Z")
        #expect(duplicate.tracking.links == [ItemLink(kind: .duplicateOf, itemID: original.id)])
        #expect(try item(store, key: "octo-org/notes#45")?.tracking.resolution == "not_planned")
        let project = try #require(try store.read { try $0.allProjects() }.first)
        #expect(project.title == "octo-org/notes")
    }

    @Test func jiraIssuesKeepTheirLinksPriorityAndDocumentText() throws {
        let store = try makeStore()
        _ = try store.importExport(try Self.fixture("jira-issues.json"), format: .jira)
        let refund = try #require(try item(store, key: "PAY-120"))
        let release = try #require(try item(store, key: "PAY-124"))
        #expect(refund.priority == 3 && refund.tracking.assignees == ["Anna Kowalski"])
        #expect(refund.tracking.links == [ItemLink(kind: .blocks, itemID: release.id)])
        #expect(refund.tracking.sourceURL == "https://jira.example.com/browse/PAY-120")
        #expect(refund.createdAt == "2024-02-12T10:04:11Z")
        #expect(release.detail == "Ship the refund fixes and the new invoice layout." && release.priority == 1)
        #expect(release.tracking.links.isEmpty)  // the inward side is PAY-120's link
        let duplicate = try #require(try item(store, key: "PAY-122"))
        #expect(duplicate.tracking.links == [ItemLink(kind: .duplicateOf, itemID: refund.id)])
        #expect(duplicate.isCompleted && duplicate.tracking.resolution == "Duplicate")
    }

    @Test func csvExportsReadQuotedLinesDatesAndLinksByIdOrKey() throws {
        let store = try makeStore()
        _ = try store.importExport(try Self.fixture("jira-issues.csv"), format: .jiraCSV, fileName: "jira-issues.csv")
        let backup = try #require(try item(store, key: "OPS-301"))
        #expect(backup.detail.contains("\n") && backup.tracking.tags == ["backup", "timeout"])
        #expect(backup.createdAt == "2024-03-04T09:15:00Z" && backup.priority == 3 && !backup.isCompleted)
        let duplicate = try #require(try item(store, key: "OPS-305"))
        #expect(duplicate.detail == "Tenant \"acme\" has had no complete backup since Monday.")
        #expect(duplicate.tracking.links == [ItemLink(kind: .duplicateOf, itemID: backup.id)])
        #expect(duplicate.tracking.closedAt == "2024-03-05T11:30:00Z")

        _ = try store.importExport(try Self.fixture("bugzilla-bugs.csv"), format: .bugzillaCSV)
        let lost = try #require(try item(store, key: "bug-2405"))
        let original = try #require(try item(store, key: "bug-2401"))
        #expect(lost.tracking.links == [ItemLink(kind: .duplicateOf, itemID: original.id)])
        #expect(original.tracking.tags == ["attachments", "dataloss"] && lost.tracking.assignees.isEmpty)
    }

    @Test func bugzillaBugsTakeTheirFirstCommentAsDescription() throws {
        let store = try makeStore()
        _ = try store.importExport(try Self.fixture("bugzilla-bugs.json"), format: .bugzilla)
        let crash = try #require(try item(store, key: "bug-1812"))
        #expect(crash.detail.hasPrefix("Printing any page") && crash.priority == 3)
        let pipeline = try #require(try item(store, key: "bug-1799"))
        #expect(pipeline.tracking.links == [ItemLink(kind: .blocks, itemID: crash.id)])
        #expect(pipeline.tracking.closedAt == "2024-04-28T15:00:00Z" && pipeline.tracking.resolution == "FIXED")
    }

    @Test func anExportWithoutPagesGetsThemOnTheTrackerGiven() throws {
        let store = try makeStore()
        _ = try store.importExport(
            try Self.fixture("bugzilla-bugs.json"), format: .bugzilla, trackerURL: "https://bugzilla.example.org//")
        #expect(
            try item(store, key: "bug-1812")?.tracking.sourceURL == "https://bugzilla.example.org/show_bug.cgi?id=1812")
        _ = try store.importExport(
            try Self.fixture("jira-issues.csv"), format: .jiraCSV, fileName: "jira-issues.csv",
            trackerURL: "https://jira.example.org/jira")
        #expect(try item(store, key: "OPS-301")?.tracking.sourceURL == "https://jira.example.org/jira/browse/OPS-301")
        // GitHub's issues name their own pages; without an address, a bug has none.
        _ = try store.importExport(try Self.fixture("github-issues.json"), format: .github, trackerURL: "https://x.org")
        var pages: [String] = []
        try store.read { reader in try reader.forEachItem { pages.append($0.tracking.sourceURL) } }
        #expect(!pages.isEmpty && !pages.contains { $0.hasPrefix("https://x.org") })
        let other = try makeStore("other.sqlite")
        _ = try other.importExport(try Self.fixture("bugzilla-bugs.csv"), format: .bugzillaCSV)
        #expect(try item(other, key: "bug-2401")?.tracking.sourceURL == "")
    }

    @Test(arguments: [
        ("ftp://bugzilla.example.org", "is not an http(s) address"), ("https://", "names no host"),
        ("https://bugs.example.org/?product=x", "holds a space, a control character, a ? or a #"),
        ("https://bugs example.org", "holds a space"), ("https://bugs.example.org/\u{1B}[2J", "control character"),
    ])
    func aBadTrackerAddressIsRefusedAndNothingChanges(address: String, reason: String) throws {
        let store = try makeStore()
        #expect {
            try store.importExport(try Self.fixture("bugzilla-bugs.json"), format: .bugzilla, trackerURL: address)
        } throws: { error in
            let message = (error as? StoreError)?.message ?? ""
            return message.hasPrefix("the tracker's address ") && message.contains(reason)
                && !message.contains("\u{1B}")
        }
        #expect(try store.read { try $0.itemCount() } == 0)
    }

    @Test func anUpdatedExportChangesOnlyWhatChanged() throws {
        let store = try makeStore()
        let data = try Self.fixture("github-issues.json")
        _ = try store.importExport(data, format: .github)
        let text = String(decoding: data, as: UTF8.self)
            .replacingOccurrences(
                of: "\"title\": \"Dark theme for the editor\"", with: "\"title\": \"Dark theme for the whole editor\""
            )
            .replacingOccurrences(
                of: #"[{"id": "LA_1", "name": "bug", "description": "Something isn't working", "color": "d73a4a"}],"#,
                with: #"[{"name": "bug"}, {"name": "data-loss"}],"#)
        let (summary, _) = try store.importExport(Data(text.utf8), format: .github)
        #expect(summary.itemsUpdated == 2 && summary.itemsAdded == 0 && summary.unchanged == 5, "\(summary)")
        #expect(try item(store, key: "octo-org/notes#44")?.tracking.tags == ["bug", "data-loss"])
    }

    @Test(arguments: [
        (
            ImportFormat.github,
            #"[{"number": 1, "title": "a", "url": "https://github.com/o/r/issues/1"}, {"number": 2, "url": "https://github.com/o/r/issues/2"}]"#,
            #"record 2: field "title" is missing"#
        ),
        (
            .github, #"[{"number": 1, "title": "a", "url": "https://example.org/1"}]"#,
            "does not name a GitHub repository"
        ),
        (
            .github,
            #"[{"number": 1, "title": "a", "url": "https://github.com/o/r/issues/1", "createdAt": "yesterday"}]"#,
            #"record 1: field "createdAt" is "yesterday", not a date"#
        ),
        (
            .github,
            #"[{"number": 1, "title": "a", "url": "https://github.com/o/r/issues/1", "labels": [{"name": "a\u001bb"}]}]"#,
            "record 1 (1): the tag holds the control character"
        ),
        (
            .jira, #"{"issues": [{"key": "A-1", "fields": {"summary": "x"}}, {"key": "A-2"}]}"#,
            #"record 2: field "fields" is missing"#
        ),
        (.jira, #"{"total": 0}"#, #"the document: expected {"issues": [...]}"#),
        (
            .jira,
            #"{"issues": [{"key": "A-1", "fields": {"summary": "x"}}, {"key": "A-1", "fields": {"summary": "y"}}]}"#,
            "record 2 (A-1): the issue is in the export twice (also record 1)"
        ),
        (.bugzilla, #"{"bugs": [{"id": 1, "summary": ""}]}"#, "record 1 (1): the issue title is empty"),
        (.jiraCSV, "Summary,Issue key\nok,A-1\n\"broken,A-2\n", "line 3: a quoted field is not closed"),
        (
            .jiraCSV, "Summary,Issue key,Created\nok,A-1,31/Feb/24 10:00\n",
            #"line 2: created is "31/Feb/24 10:00", not a date"#
        ),
        (.bugzillaCSV, "bug_status,short_desc\nNEW,x\n", "line 1: the header has no issue id and summary columns"),
    ])
    func aBrokenRecordIsRefusedByItsPlaceAndNothingChanges(format: ImportFormat, text: String, message: String) throws {
        let store = try makeStore()
        _ = try store.importExport(try Self.fixture("github-issues.json"), format: .github)
        let before = try export(store)
        #expect {
            try store.importExport(Data(text.utf8), format: format)
        } throws: { error in
            (error as? StoreError)?.message.contains(message) == true
        }
        #expect(try export(store) == before)
    }

    @Test func restIssuesOneALineSkipPullRequestsAndLeaveOutLinksToOthers() throws {
        let lines = """
            {"number": 7, "title": "Crash on start", "body": null, "state": "closed", "state_reason": "duplicate", "html_url": "https://github.com/o/r/issues/7", "user": {"login": "ann"}, "assignee": {"login": "bo"}, "labels": ["bug"], "created_at": "2024-01-01T00:00:00Z", "closed_at": "2024-01-02T00:00:00Z", "comments": 1}
            {"number": 8, "title": "Add a flag", "html_url": "https://github.com/o/r/pull/8", "pull_request": {"url": "x"}, "user": {"login": "cy"}}
            {"number": 9, "title": "Dup", "state": "closed", "state_reason": "duplicate", "html_url": "https://github.com/o/r/issues/9", "comments": [{"user": {"login": "ann"}, "body": "Duplicate of #3", "created_at": "2024-01-03T00:00:00Z"}]}
            {"number": 10, "title": "Self", "state": "closed", "state_reason": "duplicate", "html_url": "https://github.com/o/r/issues/10", "comments": [{"user": {"login": "ann"}, "body": "Duplicate of #10"}]}
            """
        let store = try makeStore()
        let (summary, notes) = try store.importExport(Data(lines.utf8), format: .github)
        #expect(summary.itemsAdded == 3 && notes.skipped == 1 && notes.linksLeftOut == 2, "\(summary) \(notes)")
        let crash = try #require(try item(store, key: "o/r#7"))
        #expect(crash.tracking.author == "ann" && crash.tracking.assignees == ["bo"] && crash.tracking.tags == ["bug"])
        #expect(crash.isCompleted && crash.tracking.resolution == "duplicate" && crash.detail == "")
        let (withPulls, _) = try makeStore("pulls.sqlite").importExport(
            Data(lines.utf8), format: .github, includePullRequests: true)
        #expect(withPulls.itemsAdded == 4)
    }

    @Test func stableIDsAreVersion5UUIDsOfSHA1() {
        #expect(
            SHA1.hash(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined()
                == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(
            SHA1.hash(Array(repeating: UInt8(ascii: "a"), count: 1000)).map { String(format: "%02x", $0) }.joined()
                == "291e9a6c66994949b57ba5e650361e98fc36b1ba")
        // As Python's uuid.uuid5 gives it in the same namespace.
        #expect(StableID.uuid("item github:octo-org/notes 41") == "1f9d63fe-8e4c-53db-b497-0c56b3e0537b")
    }

    @Test(arguments: [
        ("2024-02-12T10:04:11.000+0000", "2024-02-12T10:04:11Z"), ("2024-02-12T10:04:11+01:00", "2024-02-12T09:04:11Z"),
        ("2024-06-01 10:00:00", "2024-06-01T10:00:00Z"), ("2024-06-01 10:00", "2024-06-01T10:00:00Z"),
        ("30/Sep/21 17:20", "2021-09-30T17:20:00Z"), ("04/Mar/24 9:15 AM", "2024-03-04T09:15:00Z"),
        ("06/Mar/24 12:40 PM", "2024-03-06T12:40:00Z"), ("06/Mar/24 12:40 AM", "2024-03-06T00:40:00Z"),
    ])
    func trackerDatesAreReadAsUTC(text: String, expected: String) {
        #expect(TrackerDate.parse(text) == expected)
    }
}
