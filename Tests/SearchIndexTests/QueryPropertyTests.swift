import Foundation
import PropertyBased
import TestSupport
import Testing

@testable import SearchIndex

/// Any string a person or a program might type either searches or fails with a query-syntax error:
/// never a crash, never another kind of error, never a hang.
@Suite struct QueryPropertyTests {
    /// Pieces of Spotlite and Spotlight syntax, so random strings hit the parsers' corners, not only plain words.
    static let pieces = [
        "tap", "leak*", "f*", "\"", "(", ")", " AND ", " OR ", " NOT ", "-", "+", "is:", "open", "kind:", "project:",
        "priority:", "2..3", ">=", "<", "created:", "modified:", "2024-05", "..", "today", "-7d", "title:", "detail:",
        " ", " ", "==", "&&", "||", "!", "$time.today(-1)", "InRange(", ",", "'", "\\", "*", ":", "ü", "日本", "\u{0}",
        "\u{7}", "tracker://", "/project/", "é",
    ]

    static let queryText = Gen.frequency(
        (3, Gen.element(of: pieces).array(of: 0...12).map { $0.compactMap { $0 }.joined() }),
        (1, Gen.ascii.string(of: 0...30)),
        (1, Gen.character(in: "\u{0}"..."\u{2FF}").string(of: 0...20))
    )

    static let index: (directory: TemporaryDirectory, path: String) = {
        let directory = TemporaryDirectory("property")
        let path = directory.file("index")
        let index = try! SearchableIndex(path: path)
        try! index.indexSearchableItems(
            (0..<50).map { number in
                SearchableItem(
                    uniqueIdentifier: "tracker://s/item/\(number)",
                    domainIdentifier: "tracker://s/project/\(number % 5)",
                    attributeSet: SearchableItemAttributeSet(
                        title: "fix leak \(number)", contentDescription: "the tap leaks near the boiler \(number)",
                        containerTitle: "Project \(number % 5)", priority: number % 3 + 1, isCompleted: number % 2 == 0,
                        createdAt: 1_700_000_000 + Int64(number) * 86_400, modifiedAt: 1_700_000_000))
            })
        try! index.close()
        return (directory, path)
    }()

    @Test func everyQueryEitherSearchesOrFailsAsASyntaxError() async {
        let reader = try! SearchReader(path: Self.index.path)
        await propertyCheck(count: 400, input: Self.queryText) { text in
            for spotlight in [false, true] {
                do {
                    let words = try SearchQueryParser(reader: reader)
                    let query =
                        spotlight
                        ? try SpotlightQueryParser(words: words).parse(text)
                        : try words.parse(text, correctSpelling: true)
                    let results = try reader.search(query, SearchRequest(limit: 5, sort: .created, facets: [.project]))
                    #expect(results.hits.count <= 5)
                } catch let error as SearchIndexError {
                    #expect(error.code == .querySyntax, "\(text.debugDescription): \(error)")
                } catch {
                    Issue.record("\(text.debugDescription): unexpected \(error)")
                }
            }
        }
    }

    @Test func everyPartialPrefixOfAQuerySearchesOrFailsAsASyntaxError() async {
        let reader = try! SearchReader(path: Self.index.path)
        await propertyCheck(count: 100, input: Self.queryText) { text in
            for end in text.indices {
                do {
                    _ = try reader.search(
                        try SearchQueryParser(reader: reader).parse(String(text[..<end]), partial: true))
                } catch let error as SearchIndexError {
                    #expect(error.code == .querySyntax, "\(String(text[..<end]).debugDescription): \(error)")
                } catch {
                    Issue.record("unexpected \(error)")
                }
            }
        }
    }
}
