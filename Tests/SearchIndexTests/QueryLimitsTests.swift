import Foundation
import PropertyBased
import TestSupport
import Testing

@testable import SearchIndex

/// Every number in a filter is range-checked before any arithmetic, and no query nests deeper than the parsers'
/// limit: out-of-range input is a syntax error with a sentence, never an overflow trap or a stack overflow.
@Suite struct QueryLimitsTests {
    func parse(_ text: String, spotlight: Bool) throws(SearchIndexError) -> SearchQuery {
        let words = try SearchQueryParser()
        return spotlight ? try SpotlightQueryParser(words: words).parse(text) : try words.parse(text)
    }

    func expectSyntaxError(_ text: String, spotlight: Bool, containing expected: String? = nil) {
        do {
            _ = try parse(text, spotlight: spotlight)
            Issue.record("\(text.prefix(60)) parsed")
        } catch {
            #expect(error.code == .querySyntax)
            if let expected { #expect(error.message.contains(expected), "\(error.message)") }
        }
    }

    @Test(arguments: [
        "priority:>9223372036854775807", "priority:<-9223372036854775808", "priority:>=9223372036854775807",
        "priority:<=-9223372036854775808", "priority:-9223372036854775808..3", "priority:1..9223372036854775807",
        "priority:9223372036854775807", "priority:>1000000001", "priority:99999999999999999999",
    ])
    func hugePriorityNumbersAreSyntaxErrors(query: String) {
        expectSyntaxError(query, spotlight: false, containing: "priority")
    }

    @Test(arguments: [
        "priority > 9223372036854775807", "priority < -9223372036854775808", "priority == -9223372036854775808",
        "priority != 9223372036854775807", "InRange(priority, -9223372036854775808, 9223372036854775807)",
        "contentCreationDate > $time.today(9223372036854775807)",
        "contentCreationDate > $time.now(-9223372036854775808)",
    ])
    func hugeSpotlightNumbersAreSyntaxErrors(query: String) {
        expectSyntaxError(query, spotlight: true)
    }

    @Test func nestingBeyondTheLimitIsRefusedInBothLanguagesWithTheSameWords() {
        let limit = SearchQueryParser.maximumNesting
        let deep = String(repeating: "(", count: 2_200) + "tap" + String(repeating: ")", count: 2_200)
        expectSyntaxError(deep, spotlight: false, containing: "at most \(limit) levels")
        let deepSpotlight =
            String(repeating: "(", count: 2_200) + "title == \"a\"" + String(repeating: ")", count: 2_200)
        expectSyntaxError(deepSpotlight, spotlight: true, containing: "at most \(limit) levels")
        expectSyntaxError(
            String(repeating: "!", count: 3_250) + "title == \"a\"", spotlight: true,
            containing: "at most \(limit) levels")
        expectSyntaxError(
            String(repeating: "!(", count: 40) + "title == \"a\"" + String(repeating: ")", count: 40),
            spotlight: true, containing: "at most \(limit) levels")
        // At the limit, both parse.
        #expect(throws: Never.self) {
            _ = try parse(
                String(repeating: "(", count: limit) + "tap" + String(repeating: ")", count: limit), spotlight: false)
            _ = try parse(String(repeating: "!", count: limit) + "title == \"a\"", spotlight: true)
        }
    }

    @Test func aQueryOverTheLengthLimitIsRefused() {
        let long = Array(repeating: "tap", count: 3_000).joined(separator: " ")
        expectSyntaxError(long, spotlight: false, containing: "at most \(SearchQueryParser.maximumQueryBytes)")
        expectSyntaxError("title == \"" + long + "\"", spotlight: true, containing: "at most")
    }

    /// Numbers of every size, in every place a filter takes one.
    static let number = Gen.frequency(
        (2, Gen.int(in: -4...6).map(String.init)),
        (2, Gen.int(in: Int.min...Int.max).map(String.init)),
        (
            1,
            Gen.element(of: [
                "9223372036854775807", "-9223372036854775808", "9223372036854775808",
                "99999999999999999999999", "-0", "007", "1e3", "",
            ]).map { $0 ?? "" }
        )
    )

    static let numberedQuery = zip(Gen.int(in: 0...13), number, number).map { input -> (String, Bool) in
        let (form, a, b) = input
        switch form {
        case 0: return ("priority:\(a)", false)
        case 1: return ("priority:>\(a)", false)
        case 2: return ("priority:<\(a)", false)
        case 3: return ("priority:>=\(a)", false)
        case 4: return ("priority:<=\(a)", false)
        case 5: return ("priority:\(a)..\(b)", false)
        case 6: return ("created:-\(a)d", false)
        case 7: return ("modified:\(a)-01..\(b)", false)
        case 8: return ("priority > \(a)", true)
        case 9: return ("priority <= \(a)", true)
        case 10: return ("InRange(priority, \(a), \(b))", true)
        case 11: return ("contentCreationDate >= $time.today(\(a))", true)
        case 12: return ("contentModificationDate < $time.now(\(a))", true)
        default: return ("priority != \(a)", true)
        }
    }

    @Test func everyFilterNumberParsesOrIsASyntaxError() async {
        await propertyCheck(count: 2_000, input: Self.numberedQuery) { query in
            do throws(SearchIndexError) {
                _ = try parse(query.0, spotlight: query.1)
            } catch {
                #expect(error.code == .querySyntax, "\(query.0): \(error)")
            }
        }
    }

    static let nestedQuery = zip(Gen.int(in: 0...300), Gen.int(in: 0...3)).map { input -> (String, Bool) in
        let (depth, form) = input
        switch form {
        case 0: return (String(repeating: "(", count: depth) + "tap" + String(repeating: ")", count: depth), false)
        case 1: return (String(repeating: "NOT (", count: depth) + "tap" + String(repeating: ")", count: depth), false)
        case 2: return (String(repeating: "!", count: depth) + "title == \"a\"", true)
        default:
            return (String(repeating: "(!", count: depth) + "priority > 1" + String(repeating: ")", count: depth), true)
        }
    }

    @Test func everyNestingDepthParsesOrIsASyntaxError() async {
        await propertyCheck(count: 300, input: Self.nestedQuery) { query in
            do throws(SearchIndexError) {
                _ = try parse(query.0, spotlight: query.1)
            } catch {
                #expect(error.code == .querySyntax, "\(query.0.prefix(40)): \(error)")
            }
        }
    }
}
