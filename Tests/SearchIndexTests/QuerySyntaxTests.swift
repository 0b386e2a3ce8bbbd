import Foundation
import TestSupport
import Testing

@testable import SearchIndex

/// Every query syntax, valid and invalid, read against a fixed clock: Saturday 2024-06-15 12:00 UTC.
@Suite struct QuerySyntaxTests {
    static let now = Date(timeIntervalSince1970: 1_718_452_800)  // 2024-06-15T12:00:00Z
    static let clock = QueryClock.fixed(now, timeZone: TimeZone(identifier: "UTC")!)

    func filters(_ query: String) throws -> [String] {
        try SearchQueryParser(clock: Self.clock).parse(query).filters
    }

    @Test(arguments: [
        ("is:open", ["status is open"]),
        ("is:completed", ["status is completed"]),
        ("is:done", ["status is completed"]),
        ("is:closed", ["status is closed (projects) or completed (items)"]),
        ("kind:item", ["kind is item"]),
        ("kind:Project", ["kind is project"]),
        ("priority:2", ["priority is 2"]),
        ("priority:2..3", ["priority is 2…3"]),
        ("priority:..2", ["priority is 1…2"]),
        ("priority:>=2", ["priority is 2…3"]),
        ("priority:>1", ["priority is 2…3"]),
        ("priority:<=2", ["priority is 1…2"]),
        ("priority:<3", ["priority is 1…2"]),
        ("project:garden", ["project title is 'garden' (any case)"]),
        ("project:\"Home renovation\"", ["project title is 'Home renovation' (any case)"]),
        ("project:tracker://s/project/p", ["project is tracker://s/project/p"]),
        // A URI with real UUIDs: their hyphens are not compound words.
        (
            "project:tracker://caa11ecb-58b1-493c-a3f5-35491c90030c/project/953a4663-deee-5949-939c-dafc5108b393 tap",
            ["project is tracker://caa11ecb-58b1-493c-a3f5-35491c90030c/project/953a4663-deee-5949-939c-dafc5108b393"]
        ),
        (
            "(project:tracker://caa11ecb-58b1-493c-a3f5-35491c90030c/project/953a4663-deee-5949-939c-dafc5108b393)",
            ["project is tracker://caa11ecb-58b1-493c-a3f5-35491c90030c/project/953a4663-deee-5949-939c-dafc5108b393"]
        ),
        ("-is:completed", ["not: status is completed"]),
        ("NOT project:garden", ["not: project title is 'garden' (any case)"]),
        (
            "tap -project:\"Home renovation\" kind:item",
            ["not: project title is 'Home renovation' (any case)", "kind is item"]
        ),
        ("tap is:open priority:3", ["status is open", "priority is 3"]),
    ])
    func filtersParse(query: String, expected: [String]) throws {
        #expect(try filters(query) == expected)
    }

    @Test(arguments: [
        ("created:2024", "created from 2024-01-01 00:00:00 to 2024-12-31 23:59:59 (UTC)"),
        ("created:2024-05", "created from 2024-05-01 00:00:00 to 2024-05-31 23:59:59 (UTC)"),
        ("created:2024-02", "created from 2024-02-01 00:00:00 to 2024-02-29 23:59:59 (UTC)"),
        ("modified:2024-05-01", "modified from 2024-05-01 00:00:00 to 2024-05-01 23:59:59 (UTC)"),
        ("created:2024-01-01..2024-03-31", "created from 2024-01-01 00:00:00 to 2024-03-31 23:59:59 (UTC)"),
        ("created:..2023", "created from the beginning to 2023-12-31 23:59:59 (UTC)"),
        ("created:2024-06..", "created from 2024-06-01 00:00:00 to now and later (UTC)"),
        ("created:>=2024-06-01", "created from 2024-06-01 00:00:00 to now and later (UTC)"),
        ("created:>2024-06-01", "created from 2024-06-02 00:00:00 to now and later (UTC)"),
        ("created:<2024-06-01", "created from the beginning to 2024-05-31 23:59:59 (UTC)"),
        ("created:<=2024-06", "created from the beginning to 2024-06-30 23:59:59 (UTC)"),
        ("created:today", "created from 2024-06-15 00:00:00 to 2024-06-15 23:59:59 (UTC)"),
        ("created:yesterday", "created from 2024-06-14 00:00:00 to 2024-06-14 23:59:59 (UTC)"),
        ("created:this_week", "created from 2024-06-10 00:00:00 to 2024-06-16 23:59:59 (UTC)"),
        ("created:last_week", "created from 2024-06-03 00:00:00 to 2024-06-09 23:59:59 (UTC)"),
        ("created:this_month", "created from 2024-06-01 00:00:00 to 2024-06-30 23:59:59 (UTC)"),
        ("created:last_month", "created from 2024-05-01 00:00:00 to 2024-05-31 23:59:59 (UTC)"),
        ("created:this_year", "created from 2024-01-01 00:00:00 to 2024-12-31 23:59:59 (UTC)"),
        ("created:last_year", "created from 2023-01-01 00:00:00 to 2023-12-31 23:59:59 (UTC)"),
        ("created:-7d", "created from 2024-06-08 00:00:00 to now and later (UTC)"),
        ("created:-2w", "created from 2024-06-01 00:00:00 to now and later (UTC)"),
        ("created:-3m", "created from 2024-03-15 00:00:00 to now and later (UTC)"),
        ("created:-1y", "created from 2023-06-15 00:00:00 to now and later (UTC)"),
        ("created:last_month..today", "created from 2024-05-01 00:00:00 to 2024-06-15 23:59:59 (UTC)"),
    ])
    func datesParse(query: String, expected: String) throws {
        #expect(try filters(query) == [expected])
    }

    /// A filter's explanation gives its bounds in the clock's zone, with that zone's offset, across a change of
    /// daylight saving time and for the earliest year there is.
    @Test func dateFiltersAreExplainedInTheLocalTimeZone() throws {
        let newYork = QueryClock.fixed(Self.now, timeZone: TimeZone(identifier: "America/New_York")!)
        func filters(_ query: String) throws -> [String] { try SearchQueryParser(clock: newYork).parse(query).filters }
        #expect(
            try filters("created:2024-03-09..2024-03-10")
                == ["created from 2024-03-09 00:00:00 to 2024-03-10 23:59:59 (UTC-04:00)"])
        #expect(
            try filters("modified:today") == ["modified from 2024-06-15 00:00:00 to 2024-06-15 23:59:59 (UTC-04:00)"])
        let kolkata = QueryClock.fixed(Self.now, timeZone: TimeZone(identifier: "Asia/Kolkata")!)
        #expect(
            try SearchQueryParser(clock: kolkata).parse("created:0001..0001-01-31").filters
                == ["created from 0001-01-01 00:00:00 to 0001-01-31 23:59:59 (UTC+05:30)"])
    }

    @Test func relativeDatesFollowTheLocalTimeZone() throws {
        let tokyo = QueryClock.fixed(Self.now, timeZone: TimeZone(identifier: "Asia/Tokyo")!)
        // 12:00 UTC is 21:00 in Tokyo, still the 15th; its day starts at 15:00 UTC on the 14th.
        let range = try #require(DateFilter(clock: tokyo).range("today"))
        #expect(range.lower == 1_718_377_200)  // 2024-06-14T15:00:00Z
        #expect(range.upper == 1_718_463_599)
    }

    @Test(arguments: [
        ("is:pending", "is:pending is not a status; use is:open, is:completed or is:closed"),
        ("kind:task", "kind:task is not a kind; use kind:item, kind:project or kind:message"),
        ("priority:9", "no priority is 9; priorities are 1, 2 and 3"),
        ("priority:high", "priority:high is not a priority; use 1, 2 or 3, a range like 2..3, or >=2, <=2, >1, <3"),
        ("priority:4..7", "no priority lies in 4…7; priorities are 1, 2 and 3"),
        ("priority:3..1", "no priority lies in 3…1; priorities are 1, 2 and 3"),
        ("priority:>3", "no priority lies in 4…3; priorities are 1, 2 and 3"),
        ("priority:<1", "no priority lies in 1…0; priorities are 1, 2 and 3"),
        ("author:", "author: needs a name, e.g. author:alice"),
        ("leaking -project:", "project: needs a project title or URI"),
        ("title: tap", "title: needs a word or a \"phrase\", e.g. title:boiler"),
        ("priority:..", "priority:.. is not a priority; use 1, 2 or 3, a range like 2..3, or >=2, <=2, >1, <3"),
        ("created:2024-13", "created:2024-13 is not a date; \(DateFilter.help)"),
        ("created:2024-02-30", "created:2024-02-30 is not a date; \(DateFilter.help)"),
        ("created:tomorrow", "created:tomorrow is not a date; \(DateFilter.help)"),
        ("modified:2024-05..2024-01", "modified:2024-05..2024-01 is not a date; \(DateFilter.help)"),
        ("created:-7x", "created:-7x is not a date; \(DateFilter.help)"),
        ("created:..", "created:.. is not a date; \(DateFilter.help)"),
        (
            "project:tracker://s/item/x",
            "project:tracker://s/item/x is not a project URI (tracker://<store>/project/<uuid>)"
        ),
        (
            "tap AND",
            "AND needs a word or phrase on each side; to search for the word itself, write it in lowercase (and) or quote it"
        ),
        (
            "OR tap",
            "OR needs a word or phrase on each side; to search for the word itself, write it in lowercase (or) or quote it"
        ),
    ])
    func invalidQueriesSayWhatIsWrong(query: String, reason: String) {
        do {
            _ = try SearchQueryParser(clock: Self.clock).parse(query)
            Issue.record("\(query) parsed")
        } catch {
            #expect(error.code == .querySyntax)
            #expect(error.message == "cannot parse the query '\(query)': \(reason)")
        }
    }

    @Test func emptyQueriesAreRefused() {
        for query in ["", "   ", "\n"] {
            #expect { try SearchQueryParser().parse(query) } throws: {
                ($0 as? SearchIndexError)?.message
                    == "the query is empty; type some words, or a filter such as kind:item"
            }
        }
    }

    // MARK: - Spotlight query strings

    func spotlight(_ query: String) throws(SearchIndexError) -> SearchQuery {
        try SpotlightQueryParser(words: try SearchQueryParser(clock: Self.clock), clock: Self.clock).parse(query)
    }

    @Test(arguments: [
        ("title == \"fix*\"cd && priority >= 2", ["priority is 2…3"]),
        ("contentDescription == \"washer\"", []),
        ("textContent == \"leaking tap\"w", []),
        ("kind == \"item\" && completed == false", ["kind is item", "status is open"]),
        ("completed != true", ["status is open"]),
        ("containerTitle == \"Home renovation\"", ["project title is 'Home renovation' (any case)"]),
        ("domainIdentifier == \"tracker://s/project/p\"", ["project is tracker://s/project/p"]),
        ("priority < 3 || priority == 3", ["priority is 1…2", "priority is 3…3"]),
        ("!(priority > 1)", ["priority is 2…3"]),
        ("InRange(priority, 1, 2)", ["priority is 1…2"]),
        ("contentCreationDate > $time.today(-7)", ["created > $time.today(-7)"]),
        ("contentModificationDate >= $time.now(-3600)", ["modified >= $time.now(-3600)"]),
        ("contentCreationDate == $time.iso(\"2024-05-01\")", ["created == 2024-05-01"]),
        ("InRange(contentCreationDate, $time.today(-30), $time.today)", ["created in $time.today(-30) … $time.today"]),
        ("(title == \"tap\" || title == \"hose\") && !(completed == true)", ["status is completed"]),
    ])
    func spotlightQueriesTranslate(query: String, filters: [String]) throws {
        #expect(try spotlight(query).filters == filters)
    }

    @Test(arguments: [
        ("title = \"x\"", "'=' is not an operator (use ==, !=, <, >, <=, >=, &&, ||, !) at character 7"),
        ("title == \"x", "a string is not closed at character 10"),
        ("title == \"x\"q", "'q' is not a string modifier (use c, d or w) at character 13"),
        (
            "author == \"x\"",
            "unknown attribute author; Spotlite knows title, contentDescription, textContent, *, kind, priority, completed, containerTitle, domainIdentifier, contentCreationDate, contentModificationDate, authorNames, keywords, participants, identifier, completionDate at character 1"
        ),
        ("title > \"x\"", "title supports == and != only at character 7"),
        ("priority >= \"2\"", "priority compares with a whole number from 1 to 3 at character 13"),
        ("priority >= 5", "no priority lies in 5…3; priorities are 1, 2 and 3 at character 13"),
        ("completed == 1", "completed compares with true or false at character 14"),
        ("title == \"*fix\"", "'*fix': Spotlite supports a * only at the end of a word at character 10"),
        ("title == \"x\" &&", "the query ends too early at the end"),
        ("title == \"x\" title == \"y\"", "unexpected title after a complete expression at character 14"),
        ("(title == \"x\"", "the query ends too early at the end"),
        (
            "contentCreationDate > $time.yesterday",
            "$time.yesterday is not a value; use a number, a \"string\", true, false, $time.now, $time.today(±n) or $time.iso(\"date\") at character 23"
        ),
        (
            "InRange(title, 1, 2)",
            "InRange takes priority, contentCreationDate or contentModificationDate at character 9"
        ),
        ("kind == \"task\"", "kind:task is not a kind; use kind:item, kind:project or kind:message at character 9"),
    ])
    func invalidSpotlightQueriesSayWhatIsWrong(query: String, reason: String) {
        do {
            _ = try spotlight(query)
            Issue.record("\(query) parsed")
        } catch {
            #expect(error.code == .querySyntax)
            #expect(error.message == "cannot parse the Spotlight query '\(query)': \(reason)")
        }
    }
}
