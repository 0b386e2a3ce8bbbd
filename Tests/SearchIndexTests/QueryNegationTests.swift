import Foundation
import TestSupport
import Testing

@testable import SearchIndex

/// `NOT` takes the one term after it, wherever it stands (``NotBinding``); priority ranges are cut to 1–3 in both
/// query languages, in the same words.
@Suite struct QueryNegationTests {
    let directory = TemporaryDirectory("negation")
    var path: String { directory.file("index") }

    @Test(arguments: [
        ("NOT x y", "y NOT x"),
        ("NOT x y z", "y NOT x AND z"),
        ("a NOT b c", "a NOT b AND c"),
        ("a NOT b c d", "a NOT b AND c d"),
        ("a AND NOT b c", "a AND NOT b AND c"),
        ("a NOT b c OR d", "a NOT b AND c OR d"),
        ("x OR NOT a b", "x OR b NOT a"),
        ("NOT fix (tap OR hose)", "( tap OR hose ) NOT fix"),
        ("(NOT a b) c", "( b NOT a ) c"),
        ("NOT (a OR b) c", "c NOT ( a OR b )"),
        ("NOT \"leaking tap\" washer", "washer NOT \"leaking tap\""),
        ("NOT project:\"Home renovation\" tap", "tap NOT project:\"Home renovation\""),
        ("NOT a NEAR b c", "c NOT a NEAR b"),
        ("NOT a NOT b", "NOT a NOT b"),
        ("a NOT b", "a NOT b"),
        ("NOT a", "NOT a"),
        // Excluded terms alone (NotBinding.excludingAlone gives them a NOT each).
        ("NOT a NOT \"b c\"", "NOT a NOT \"b c\""),
        // No NOT (a lowercase "not" is a word): the text as it was.
        ("leaking tap", "leaking tap"),
        ("do not disturb", "do not disturb"),
    ])
    func notBindsToOneTerm(query: String, rewritten: String) {
        #expect(NotBinding.rewrite(query) == rewritten)
    }

    @Test(arguments: [
        ("-draft", "NOT draft"),
        ("-draft -\"old notes\"", "NOT draft NOT \"old notes\""),
        ("-draft NOT project:garden", "NOT draft NOT project:garden"),
        ("NOT draft", "NOT draft"),
        // A group of excluded terms alone, wherever it stands.
        ("(-draft)", "( NOT draft )"),
        ("notes (-draft -wip)", "notes ( NOT draft NOT wip )"),
        ("notes OR (-draft NOT \"old notes\")", "notes OR ( NOT draft NOT \"old notes\" )"),
        ("(notes (-draft)) -wip", "( notes ( NOT draft ) ) -wip"),
        ("-draft NOT (a OR b)", "NOT draft NOT ( a OR b )"),
        // Anything to keep, an operator or a group: as typed.
        ("-draft notes", "-draft notes"),
        ("-draft OR notes", "-draft OR notes"),
        ("(-draft notes)", "(-draft notes)"),
        ("-draft (notes)", "-draft (notes)"),
        ("(-draft))", "(-draft))"),
        ("- draft", "- draft"),
        ("--draft", "--draft"),
        ("C++ -draft", "C++ -draft"),
    ])
    func excludedTermsAloneAreNegated(query: String, rewritten: String) {
        #expect(NotBinding.excludingAlone(query) == rewritten)
    }

    /// Search as you type: the last word stays last, for it is the prefix being typed.
    @Test func thePrefixWordOfSearchAsYouTypeStaysLast() {
        #expect(NotBinding.rewrite("NOT tap fi", partial: true) == "NOT tap AND fi")
        #expect(NotBinding.rewrite("NOT tap fix wa", partial: true) == "fix NOT tap AND wa")
    }

    /// What a user relies on: the matches of a leading, middle or trailing NOT are those of the positive words
    /// without the one negated term, as `-term` gives, with the positive words' ranking.
    @Test func aNegatedTermExcludesItselfAloneWhereverItStands() throws {
        let index = try SearchableIndex(path: path)
        try index.indexSearchableItems([
            // The projects: a `project:` filter finds its items by the project's own document.
            item("home", "Home", domain: "home", container: "Home", kind: .project),
            item("garden", "Garden", domain: "garden", container: "Garden", kind: .project),
            item("tap", "Fix the leaking tap", domain: "home", container: "Home"),
            item("hose", "Fix the leaking hose", domain: "garden", container: "Garden"),
            item("roof", "Leaking roof over the shed", domain: "garden", container: "Garden"),
            item("boiler", "Service the boiler", domain: "home", container: "Home"),
        ])
        let reader = try SearchReader(path: path)
        func ids(_ text: String) throws -> [String] {
            try reader.search(try SearchQueryParser().parse(text), SearchRequest()).hits.map(\.uniqueIdentifier)
                .sorted()
        }
        let expected = ["tap"]
        #expect(try ids("leaking -project:garden") == expected)
        #expect(try ids("NOT project:garden leaking") == expected)
        #expect(try ids("leaking NOT project:garden") == expected)
        #expect(try ids("-project:garden leaking") == expected)
        #expect(try ids("NOT hose leaking") == ["roof", "tap"])
        #expect(try ids("leaking NOT hose fix") == ["tap"])
        #expect(try ids("fix NOT hose OR boiler") == ["boiler", "tap"])
        // Excluded words alone exclude them from everything, as NOT does (not search for them).
        let items = ["boiler", "garden", "home", "hose", "roof", "tap"]
        #expect(try ids("-leaking") == ["boiler", "garden", "home"])
        #expect(try ids("-leaking -boiler") == ["garden", "home"])
        #expect(try ids("-\"leaking tap\"") == items.filter { $0 != "tap" })
        #expect(try ids("-leaking -project:garden") == ["boiler", "home"])
        #expect(try ids("-leaking") == ids("NOT leaking"))
        // So do excluded words alone in a group.
        #expect(try ids("(-leaking)") == ids("NOT leaking"))
        #expect(try ids("fix (-hose)") == ["tap"])
        #expect(try ids("boiler OR (-leaking -project:home)") == ["boiler", "garden"])
        // The same ranking as the positive words alone, filtered.
        let negated = try reader.search(try SearchQueryParser().parse("NOT hose leaking"), SearchRequest()).hits
        let plain = try reader.search(try SearchQueryParser().parse("leaking"), SearchRequest()).hits
            .filter { $0.uniqueIdentifier != "hose" }
        #expect(negated.map(\.uniqueIdentifier) == plain.map(\.uniqueIdentifier))
        #expect(zip(negated, plain).allSatisfy { abs($0.score - $1.score) < 1e-9 })
    }

    /// Ranges reaching past 1–3 are cut to it in both languages; only a range with no priority in it is refused,
    /// in the same words.
    @Test func priorityRangesAreCutToOneThroughThreeInBothLanguages() throws {
        let index = try SearchableIndex(path: path)
        try index.indexSearchableItems(
            (1...3).map { priority in
                item("p\(priority)", "Task \(priority)", priority: priority)
            })
        let reader = try SearchReader(path: path)
        func ids(_ text: String, spotlight: Bool = false) throws -> [String] {
            let query =
                spotlight
                ? try SpotlightQueryParser(words: SearchQueryParser()).parse(text) : try SearchQueryParser().parse(text)
            return try reader.search(query, SearchRequest()).hits.map(\.uniqueIdentifier).sorted()
        }
        #expect(try ids("task priority:>=0") == ["p1", "p2", "p3"])
        #expect(try ids("task priority:3..4") == ["p3"])
        #expect(try ids("task priority:0..1") == ["p1"])
        #expect(try ids("task priority:..9") == ["p1", "p2", "p3"])
        #expect(try ids("InRange(priority, 0, 1)", spotlight: true) == ["p1"])
        #expect(try ids("priority != 0", spotlight: true) == ["p1", "p2", "p3"])
        #expect(try ids("priority >= 0", spotlight: true) == ["p1", "p2", "p3"])
        #expect(try ids("priority < 9 && priority > 2", spotlight: true) == ["p3"])
        func refusal(_ text: String, spotlight: Bool = false) -> String {
            do {
                _ = try ids(text, spotlight: spotlight)
                return "parsed"
            } catch {
                return "\(error)"
            }
        }
        let words = "no priority lies in 4…9; priorities are 1, 2 and 3"
        #expect(refusal("priority:4..9") == "cannot parse the query 'priority:4..9': \(words)")
        #expect(refusal("InRange(priority, 4, 9)", spotlight: true).contains(": \(words) at character"))
        #expect(refusal("priority:7").hasSuffix("no priority is 7; priorities are 1, 2 and 3"))
        #expect(refusal("priority == 7", spotlight: true).contains("no priority is 7; priorities are 1, 2 and 3"))
    }

    /// A wildcard that expands too far is refused in Spotlite's words wherever the search meets it, not Xapian's
    /// ("Wildcard a* expands to more than 1000 terms").
    @Test func aWildcardThatExpandsTooFarIsRefusedInSpotlitesWordsEverywhere() throws {
        let index = try SearchableIndex(path: path)
        // 1,100 words starting with "a", made of letters only (digits would split them into parts).
        let letters = Array("abcdefghij")
        try index.indexSearchableItems(
            (0..<1_100).map { number in
                item(
                    "w\(number)",
                    "a" + String(String(number).compactMap { $0.wholeNumberValue.map { letters[$0] } }) + " word")
            })
        let reader = try SearchReader(path: path)
        for text in ["!(!(title == \"a*\"))", "(title == \"a*\" || title == \"x\") && !(title == \"y\")"] {
            let query = try SpotlightQueryParser(words: SearchQueryParser()).parse(text)
            #expect(throws: SearchIndexError.self) { try reader.search(query, SearchRequest()) }
            do {
                _ = try reader.allMatches(query, limit: 10)
                Issue.record("\(text) matched")
            } catch {
                #expect(error.message.contains("matches more than 1000 words; type more letters before the *"))
                #expect(!error.message.contains("expands to"), "\(error.message)")
            }
        }
    }

    func item(
        _ id: String, _ title: String, domain: String = "home", container: String = "Home", priority: Int = 2,
        kind: SearchableItemAttributeSet.Kind = .item
    ) -> SearchableItem {
        SearchableItem(
            uniqueIdentifier: id, domainIdentifier: domain,
            attributeSet: SearchableItemAttributeSet(
                title: title, contentDescription: "", kind: kind, containerTitle: container,
                priority: kind == .item ? priority : nil,
                isCompleted: false, createdAt: 1_700_000_000, modifiedAt: 1_700_000_000))
    }
}
