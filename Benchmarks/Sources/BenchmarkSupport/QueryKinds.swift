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
            name: "date-ranged", spotlite: { "\($0.middle) created:\($0.year)-01-01..\($0.year)-12-31" },
            fts5: {
                ($0.middle, "AND items.created_at BETWEEN '\($0.year)-01-01' AND '\($0.year)-12-31T23:59:59Z'", nil)
            }),
        QueryKind(
            name: "sorted by modified", spotlite: { $0.common }, sort: .modified,
            fts5: { ($0.common, "", "items.modified_at DESC") }),
    ]
}

/// Words for one query: a frequent and a mid-frequency one, and a phrase taken from a real title; and the year a
/// date range covers.
public struct QueryWords: Sendable {
    public var common: String
    public var middle: String
    public var phrase: String
    /// The year most of the store's items were created in (a corpus's dates are its own: 2022 for the Debian and
    /// synthetic corpora, 2024 for the Zipf one, where a range over 2022 found nothing).
    public var year: String
}

/// The words of one query after another: each call to ``next()`` moves on.
public struct QueryWordSource {
    let phrases: [String]
    /// Frequent and mid-frequency words of a real corpus; nil for the synthetic vocabulary's.
    let corpusWords: (common: [String], middle: [String])?
    let year: String
    var counter = 0

    /// Phrases are the first two consecutive plain words (letters and digits, which every query language
    /// takes as they are) of each of the store's first 200 titles that has them. With `synthetic`, the other words
    /// come from ``SyntheticCorpus``'s vocabulary; otherwise from the store: the 16 words (letters only, four
    /// or more) whose share of items is nearest 20 % (common) and nearest 1 % (middle).
    public init(store: TrackerStore, synthetic: Bool) throws {
        var titles: [String] = []
        var frequencies: [String: Int] = [:]
        var items = 0
        var years: [Substring: Int] = [:]
        try store.read { reader in
            try reader.forEachItem { item in
                if titles.count < 200 { titles.append(item.title) }
                years[item.createdAt.prefix(4), default: 0] += 1
                guard !synthetic else { return }
                items += 1
                let words = (item.title + " " + item.detail).lowercased()
                    .split(whereSeparator: { !($0.isASCII && $0.isLetter) }).filter { $0.count >= 4 }
                for word in Set(words) { frequencies[String(word), default: 0] += 1 }
            }
        }
        phrases = titles.compactMap(Self.phrase(in:))
        year = years.max { ($0.value, $1.key) < ($1.value, $0.key) }.map { String($0.key) } ?? "2022"
        if synthetic {
            corpusWords = nil
        } else {
            func nearest(_ share: Double) -> [String] {
                let target = share * Double(items)
                return frequencies.sorted {
                    (abs(Double($0.value) - target), $0.key) < (abs(Double($1.value) - target), $1.key)
                }.prefix(16).map(\.key)
            }
            corpusWords = (nearest(0.2), nearest(0.01))
        }
    }

    static func phrase(in title: String) -> String? {
        let words = title.split(separator: " ")
        let plain = words.map { word in word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
        guard let first = plain.indices.dropLast().first(where: { plain[$0] && plain[$0 + 1] }) else { return nil }
        return "\(words[first]) \(words[first + 1])"
    }

    public mutating func next() -> QueryWords {
        counter += 1
        guard let (common, middle) = corpusWords else {
            return QueryWords(
                common: SyntheticCorpus.commonWord(counter), middle: SyntheticCorpus.middleWord(counter),
                phrase: phrases[counter % phrases.count], year: year)
        }
        return QueryWords(
            common: common[counter % common.count], middle: middle[(counter * 7) % middle.count],
            phrase: phrases[counter % phrases.count], year: year)
    }
}
