import Foundation

/// A deterministic tracker corpus: the same seed gives the same bytes on every machine.
///
/// Words follow Zipf's law over a fixed vocabulary (a few very common words, a long tail of rare ones), as
/// in real text; items have 6-word titles and 60-word details, as in the figures the benchmarks are
/// compared with, and are spread over `projects` projects and five years of dates.
public struct SyntheticCorpus: Sendable {
    public var items: Int
    public var projects: Int
    public var seed: UInt64

    public static let titleWords = 6
    public static let detailWords = 60
    static let vocabularySize = 30_000
    static let zipfExponent = 1.05

    public init(items: Int, projects: Int = 1_000, seed: UInt64 = 20_261_121) {
        self.items = items
        self.projects = projects
        self.seed = seed
    }

    /// A short name for file and cache names.
    public var name: String { "synthetic-\(items / 1_000)k" }

    /// The `n`-th of the search benchmarks' common query words (ranks 5–40: in 14–70 % of the documents).
    public static func commonWord(_ n: Int) -> String { vocabulary[5 + n % 36] }

    /// The `n`-th of the search benchmarks' mid-frequency query words (ranks 100–399: in 1.5–6 % of the documents).
    public static func middleWord(_ n: Int) -> String { vocabulary[100 + (n * 7) % 300] }

    /// The vocabulary, most frequent first: pronounceable pseudo-words, so that stemming does real work.
    public static let vocabulary: [String] = {
        var random = SplitMix64(seed: 7)
        let onsets = [
            "b", "c", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "st", "tr", "pl", "gr", "ch", "sh",
        ]
        let vowels = ["a", "e", "i", "o", "u", "ai", "ea", "ou"]
        let codas = ["", "n", "r", "s", "t", "l", "nd", "st", "ng", "ck"]
        let suffixes = ["", "", "", "s", "ed", "ing", "er", "ion", "ly"]
        var seen = Set<String>()
        var words: [String] = []
        while words.count < vocabularySize {
            let syllables = 1 + Int(random.next() % 3)
            var word = ""
            for _ in 0..<syllables {
                word +=
                    onsets.randomElement(using: &random)! + vowels.randomElement(using: &random)!
                    + codas.randomElement(using: &random)!
            }
            word += suffixes.randomElement(using: &random)!
            if seen.insert(word).inserted { words.append(word) }
        }
        return words
    }()

    /// Cumulative Zipf weights over the vocabulary, for sampling by binary search.
    static let cumulative: [Double] = {
        var total = 0.0
        return (1...vocabularySize).map { rank in
            total += 1 / pow(Double(rank), zipfExponent)
            return total
        }
    }()

    static func word(_ random: inout SplitMix64) -> String {
        let target = Double(random.next() >> 11) / Double(1 << 53) * cumulative[cumulative.count - 1]
        var low = 0
        var high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] < target { low = middle + 1 } else { high = middle }
        }
        return vocabulary[low]
    }

    static func text(_ words: Int, _ random: inout SplitMix64) -> String {
        (0..<words).map { _ in word(&random) }.joined(separator: " ")
    }

    /// A version-5-shaped UUID made from the seed and a number, so ids are stable across runs.
    static func uuid(_ kind: UInt64, _ number: Int, seed: UInt64) -> String {
        var random = SplitMix64(seed: seed ^ (kind << 56) ^ UInt64(number))
        let a = random.next()
        let b = random.next()
        let hex = String(format: "%016llx%016llx", a, b)
        let chars = Array(hex)
        let variant = "89ab"[String.Index(utf16Offset: Int(b % 4), in: "89ab")]
        return String(chars[0..<8]) + "-" + String(chars[8..<12]) + "-5" + String(chars[13..<16]) + "-"
            + String(variant) + String(chars[17..<20]) + "-" + String(chars[20..<32])
    }

    /// The corpus in Spotlite's import format (JSON Lines): projects first, then items.
    public func jsonLines() -> Data {
        var random = SplitMix64(seed: seed)
        var out = ""
        out.reserveCapacity(items * 600)
        let start = 1_609_459_200  // 2021-01-01
        let span = 5 * 365 * 86_400
        func date(_ seconds: Int) -> String {
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            return String(
                format: "%04d-%02d-%02dT%02d:%02d:%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                parts.tm_hour, parts.tm_min, parts.tm_sec)
        }
        for number in 0..<projects {
            let created = date(start + Int(random.next() % UInt64(span)))
            out +=
                "{\"kind\":\"project\",\"id\":\"\(Self.uuid(1, number, seed: seed))\",\"title\":\"\(Self.text(3, &random))\","
            out += "\"detail\":\"\(Self.text(12, &random))\",\"created\":\"\(created)\"}\n"
        }
        for number in 0..<items {
            let project = Self.uuid(1, Int(random.next() % UInt64(projects)), seed: seed)
            let created = start + Int(random.next() % UInt64(span))
            out += "{\"kind\":\"item\",\"id\":\"\(Self.uuid(2, number, seed: seed))\",\"project\":\"\(project)\","
            out +=
                "\"title\":\"\(Self.text(Self.titleWords, &random))\",\"detail\":\"\(Self.text(Self.detailWords, &random))\","
            out += "\"priority\":\(1 + random.next() % 3),\"completed\":\(random.next() % 5 == 0),"
            out +=
                "\"created\":\"\(date(created))\",\"modified\":\"\(date(created + Int(random.next() % 2_000_000)))\"}\n"
        }
        return Data(out.utf8)
    }
}

/// A small, fast, seedable generator (Steele, Lea and Flood's SplitMix64).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
