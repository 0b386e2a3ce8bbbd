import SearchIndex
import TrackerStore

/// A query kind of the search benchmarks, in Spotlite's syntax and as the FTS5 and raw Xapian baselines
/// express it (nil: the baseline has no equivalent worth timing).
public struct QueryKind: Sendable {
    public var name: String
    public var spotlite: @Sendable (QueryWords) -> String
    public var sort: SearchSort = .relevance
    public var fts5: (@Sendable (QueryWords) -> (match: String, extra: String, order: String?))?
    public var xapian: (@Sendable (QueryWords) -> String)?

    /// The kinds the search suite times, and `profile search` runs by name.
    public static let all: [QueryKind] = [
        QueryKind(name: "word", spotlite: { $0.middle }, fts5: { ($0.middle, "", nil) }, xapian: { $0.middle }),
        QueryKind(
            name: "two-word AND", spotlite: { "\($0.common) \($0.middle)" },
            fts5: { ("\($0.common) \($0.middle)", "", nil) }, xapian: { "\($0.common) \($0.middle)" }),
        QueryKind(
            name: "OR", spotlite: { "\($0.common) OR \($0.middle)" },
            fts5: { ("\($0.common) OR \($0.middle)", "", nil) }, xapian: { "\($0.common) OR \($0.middle)" }),
        QueryKind(
            name: "phrase", spotlite: { "\"\($0.phrase)\"" }, fts5: { ("\"\($0.phrase)\"", "", nil) },
            xapian: { "\"\($0.phrase)\"" }),
        QueryKind(
            name: "filtered", spotlite: { "\($0.middle) priority:3 is:open" },
            fts5: { ($0.middle, "AND items.priority = 3 AND items.completed = 0", nil) }),
        QueryKind(
            name: "date-ranged", spotlite: { "\($0.middle) created:2022-01-01..2022-12-31" },
            fts5: { ($0.middle, "AND items.created_at BETWEEN '2022-01-01' AND '2022-12-31T23:59:59Z'", nil) }),
        QueryKind(
            name: "sorted by modified", spotlite: { $0.common }, sort: .modified,
            fts5: { ($0.common, "", "items.modified_at DESC") }),
    ]
}

/// Words of the synthetic vocabulary for one query: a frequent and a mid-frequency one, and a phrase
/// taken from a real title.
public struct QueryWords: Sendable {
    public var common: String
    public var middle: String
    public var phrase: String
}

/// The words of one query after another: each call to ``next()`` moves on.
public struct QueryWordSource {
    let phrases: [String]
    var counter = 0

    /// Phrases are the first two words of the store's first 200 titles.
    public init(store: TrackerStore) throws {
        var titles: [String] = []
        try store.read { reader in
            try reader.forEachItem { item in
                if titles.count < 200 { titles.append(item.title) }
            }
        }
        phrases = titles.map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
    }

    public mutating func next() -> QueryWords {
        counter += 1
        return QueryWords(
            common: SyntheticCorpus.commonWord(counter), middle: SyntheticCorpus.middleWord(counter),
            phrase: phrases[counter % phrases.count])
    }
}
