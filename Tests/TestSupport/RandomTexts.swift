import Foundation

/// A seeded generator (Steele, Lea and Flood's SplitMix64): the same texts on every run.
public struct SeededRandom: RandomNumberGenerator {
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

/// Texts of twelve words whose first six (``common``) fill half of all places: phrases of them match often, and their
/// words stand apart in many more texts. TEXTS_SEED=N gives other texts.
public struct RandomTexts {
    public static let vocabulary = [
        "ant", "bee", "cat", "dog", "elk", "fox", "gnu", "hen", "ibis", "jay", "kiwi", "lynx",
    ]
    public static let common = Array(vocabulary.prefix(6))
    public var random: SeededRandom

    public init() {
        random = SeededRandom(seed: UInt64(ProcessInfo.processInfo.environment["TEXTS_SEED"] ?? "") ?? 7)
    }

    public mutating func word() -> String {
        Bool.random(using: &random)
            ? Self.common.randomElement(using: &random)! : Self.vocabulary.randomElement(using: &random)!
    }

    /// A text of `count` words.
    public mutating func text(_ count: ClosedRange<Int>) -> String {
        (0..<Int.random(in: count, using: &random)).map { _ in word() }.joined(separator: " ")
    }
}
