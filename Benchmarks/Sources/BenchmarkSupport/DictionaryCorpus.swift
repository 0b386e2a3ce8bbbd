import Foundation

/// A corpus whose words are drawn Zipf(1) from a whole dictionary (`/usr/share/dict/words`, Debian's `wamerican`:
/// 104,334 words, names and possessives included): titles of 4–8 words, details of 40–80. Unlike
/// ``SyntheticCorpus``'s 30,000 pseudo-words, its long tail of rare words is what makes an index large (most
/// terms in few documents), so it is the size benchmark's hardest case. Deterministic for a seed and dictionary.
public struct DictionaryCorpus: Sendable {
    public var items: Int
    public var projects: Int
    public var seed: UInt64

    public static let dictionaryPath = "/usr/share/dict/words"

    public init(items: Int, projects: Int = 1_000, seed: UInt64 = 20_261_124) {
        self.items = items
        self.projects = projects
        self.seed = seed
    }

    /// The dictionary's words in file order (ranked by it for Zipf's law); throws if the file is missing.
    static func words() throws -> [String] {
        guard let text = try? String(contentsOfFile: dictionaryPath, encoding: .utf8) else {
            throw CocoaError(
                .fileReadNoSuchFile,
                userInfo: [
                    NSLocalizedDescriptionKey: "\(dictionaryPath) is missing: install Debian's wamerican (make deps)"
                ])
        }
        return text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// The corpus in the import format (JSON Lines): projects first, then items.
    public func jsonLines() throws -> Data {
        var vocabulary = try Self.words()
        // Zipf ranks in a shuffled order, so that the frequent words are not all the dictionary's A's.
        var shuffle = SplitMix64(seed: seed ^ 0x5EED)
        vocabulary.shuffle(using: &shuffle)
        var total = 0.0
        let cumulative = (1...vocabulary.count).map { rank -> Double in
            total += 1 / Double(rank)
            return total
        }
        var random = SplitMix64(seed: seed)
        func word() -> String {
            let target = Double(random.next() >> 11) / Double(1 << 53) * total
            var low = 0
            var high = cumulative.count - 1
            while low < high {
                let middle = (low + high) / 2
                if cumulative[middle] < target { low = middle + 1 } else { high = middle }
            }
            return vocabulary[low]
        }
        func text(_ range: ClosedRange<Int>) -> String {
            let count = range.lowerBound + Int(random.next() % UInt64(range.count))
            return (0..<count).map { _ in Self.escaped(word()) }.joined(separator: " ")
        }
        var out = ""
        out.reserveCapacity(items * 700)
        for number in 0..<projects {
            out += "{\"kind\":\"project\",\"id\":\"\(SyntheticCorpus.uuid(3, number, seed: seed))\","
            out += "\"title\":\"\(text(2...4))\",\"detail\":\"\(text(8...16))\",\"created\":\"2024-01-01T00:00:00Z\"}\n"
        }
        for number in 0..<items {
            let project = SyntheticCorpus.uuid(3, Int(random.next() % UInt64(projects)), seed: seed)
            out +=
                "{\"kind\":\"item\",\"id\":\"\(SyntheticCorpus.uuid(4, number, seed: seed))\",\"project\":\"\(project)\","
            out += "\"title\":\"\(text(4...8))\",\"detail\":\"\(text(40...80))\",\"priority\":\(1 + random.next() % 3),"
            out += "\"completed\":false,\"created\":\"2024-01-01T00:00:00Z\"}\n"
        }
        return Data(out.utf8)
    }

    /// A word as a JSON string's content (dictionary words hold no quotes or controls, but a dictionary may).
    static func escaped(_ word: String) -> String {
        guard word.contains(where: { $0 == "\"" || $0 == "\\" || $0.asciiValue.map { $0 < 0x20 } ?? false }) else {
            return word
        }
        return word.unicodeScalars.map { scalar -> String in
            switch scalar {
            case "\"": return "\\\""
            case "\\": return "\\\\"
            case _ where scalar.value < 0x20: return String(format: "\\u%04x", scalar.value)
            default: return String(scalar)
            }
        }.joined()
    }
}
