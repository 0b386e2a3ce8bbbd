import Foundation

/// What a query is read for before Xapian's parser sees it: its limits, a tracker key typed alone, where a field may
/// be left empty, the phrase bonus, and the filters it negates. ASCII text is read on its bytes, the rest by
/// Characters; each byte reading says what its Character reading says (QueryBytesTests).
extension SearchQueryParser {
    /// Throws ``SearchIndexError/Code-swift.struct/querySyntax`` for a query over the length limit, or one whose
    /// parentheses nest deeper than ``maximumNesting`` (quoted text aside). Both query languages call it first.
    public static func checkLimits(_ text: String, nestingOf open: Set<Character> = ["("]) throws(SearchIndexError) {
        if text.utf8.count > maximumQueryBytes {
            throw SearchIndexError(
                .querySyntax,
                "the query is \(text.utf8.count) bytes long; at most \(maximumQueryBytes) are allowed")
        }
        let deepest = deepestNesting(text, open: open)
        if deepest > maximumNesting {
            throw nestingError(deepest)
        }
    }

    /// How deep the `open` characters and `)` nest in `text`, quoted text aside: counted on the bytes of ASCII text
    /// (each ASCII character is its byte, but `"\r\n"`, which is no bracket or quote), else on its Characters.
    static func deepestNesting(_ text: String, open: Set<Character>) -> Int {
        let openBytes = open.compactMap { $0.unicodeScalars.count == 1 && $0.isASCII ? $0.asciiValue : nil }
        guard openBytes.count == open.count, text.isAllASCII else { return characterDeepestNesting(text, open: open) }
        return deepestNesting(text.utf8, opens: openBytes.contains, quote: UInt8(ascii: "\""), close: UInt8(ascii: ")"))
    }

    /// ``deepestNesting(_:open:)`` read Character by Character, for any text.
    static func characterDeepestNesting(_ text: String, open: Set<Character>) -> Int {
        deepestNesting(text, opens: open.contains, quote: "\"", close: ")")
    }

    private static func deepestNesting<S: Sequence>(
        _ units: S, opens: (S.Element) -> Bool, quote: S.Element, close: S.Element
    ) -> Int where S.Element: Equatable {
        var depth = 0
        var deepest = 0
        var quoted = false
        for unit in units {
            if unit == quote { quoted.toggle() }
            if quoted { continue }
            if opens(unit) {
                depth += 1
                deepest = max(deepest, depth)
            } else if unit == close {
                depth = max(0, depth - 1)
            }
        }
        return deepest
    }

    static func nestingError(_ depth: Int) -> SearchIndexError {
        SearchIndexError(
            .querySyntax,
            "the query nests parentheses or negations \(depth) deep; at most \(maximumNesting) levels are allowed")
    }

    /// The query if it is one tracker key and nothing else: letters (digits and `_` after the first), `-`, digits
    /// (`HADOOP-1234`, `gh-12`).
    static func sourceKey(typedAlone text: String) -> String? {
        // Read on its bytes: a key is ASCII, and walking Characters to its last `-` was most of this function's time.
        let key = text.trimmingSpaces()
        let bytes = key.utf8
        guard bytes.count <= 64, let dash = bytes.lastIndex(of: UInt8(ascii: "-")), let first = bytes.first,
            first.isASCIILetter
        else { return nil }
        let number = bytes[bytes.index(after: dash)...]
        guard !number.isEmpty, number.allSatisfy(\.isASCIIDigit),
            bytes[..<dash].allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || $0 == UInt8(ascii: "_") })
        else { return nil }
        return key
    }

    /// Whether a word of `text` may end in a colon: a colon before the end, white space or a parenthesis, or before
    /// any byte outside ASCII (which may be Unicode's white space). A colon before a letter, digit, quote or other
    /// ASCII punctuation is inside its word, and tokenizing the query for nothing was a visible part of a filtered
    /// search.
    static func mayEndAField(_ text: String) -> Bool {
        var afterColon = false
        for byte in text.utf8 {
            if afterColon, byte.mayBoundAWord { return true }
            afterColon = byte == UInt8(ascii: ":")
        }
        return afterColon
    }

    /// `"a b c"` for a query of two or more plain words (no operators, fields, quotes or wildcards), else nil.
    static func phraseBonus(for text: String, partial: Bool) -> String? {
        // A quote is in no plain word (and splitting a quoted phrase into words was most of this function's time).
        guard !partial, !text.utf8.contains(UInt8(ascii: "\"")) else { return nil }
        return text.isAllASCII ? asciiPhraseBonus(for: text) : characterPhraseBonus(for: text)
    }

    /// ``phraseBonus(for:partial:)`` read Character by Character, for any text without quotes.
    static func characterPhraseBonus(for text: String) -> String? {
        plainPhrase(
            text, isSpace: \.isWhitespaceQuick, isPlain: { $0.isLetterOrNumber || $0 == "'" || $0 == "-" || $0 == "." },
            dash: "-", words: { $0 })
    }

    /// ``phraseBonus(for:partial:)`` of ASCII text, on its bytes (splitting a query into Characters cost more than
    /// Xapian's parse of it).
    static func asciiPhraseBonus(for text: String) -> String? {
        plainPhrase(
            text.utf8, isSpace: \.isASCIIWhitespace,
            isPlain: {
                $0.isASCIILetter || $0.isASCIIDigit || $0 == UInt8(ascii: "'") || $0 == UInt8(ascii: "-")
                    || $0 == UInt8(ascii: ".")
            }, dash: UInt8(ascii: "-"), words: { Substring($0) })
    }

    /// `"a b c"` of the 2 to 8 words of `units` (split at white space) if each is plain: made of `isPlain` units,
    /// no operator, not excluded (a leading `dash`).
    private static func plainPhrase<C: BidirectionalCollection>(
        _ units: C, isSpace: (C.Element) -> Bool, isPlain: (C.Element) -> Bool, dash: C.Element,
        words: (C.SubSequence) -> Substring
    ) -> String? where C.Element: Equatable {
        let split = units.split(whereSeparator: isSpace)
        guard split.count >= 2, split.count <= 8,
            split.allSatisfy({ word in
                word.allSatisfy(isPlain) && word.first != dash
                    && !TextNormalizer.queryOperators.contains(String(words(word)))
            })
        else { return nil }
        return "\"" + split.map(words).joined(separator: " ") + "\""
    }

    /// `-field:value` → `NOT field:value` for filter fields. Xapian reads a query made only of `-is:completed` as
    /// the filter `is:completed` (the opposite of what was typed); `NOT` means the same wherever `-` is right.
    static func negatingFilters(_ text: String) -> String {
        guard NotBinding.mayExclude(text) else { return text }
        let filterFields =
            ["project", "is", "kind", "author", "priority", "created", "modified", "closed"] + trackerFields
        var result = ""
        var previous: Character = " "
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "-", previous.isWhitespaceQuick || previous == "(" {
                // The longest field and its colon: lowercasing more of the text would cost its length at each `-`.
                let rest = text[text.index(after: index)...].prefix(11).lowercased()
                if filterFields.contains(where: { rest.hasPrefix($0 + ":") }) {
                    result += "NOT "
                    previous = " "
                    index = text.index(after: index)
                    continue
                }
            }
            result.append(character)
            previous = character
            index = text.index(after: index)
        }
        return result
    }

    /// -field:value, -field:"quoted value", NOT field:value, NOT field:"quoted value"
    private static let negatedFilter = try? NSRegularExpression(
        pattern: #"(?:^|[\s(])(?:-|NOT\s+)([A-Za-z]+):(?:"([^"]*)"|([^\s)]+))"#)

    static func negatedFilters(in text: String) -> Set<String> {
        // Most queries negate nothing: skip the regular expression (compiling it is a visible part of a word search).
        guard text.utf8.contains(UInt8(ascii: ":")),
            NotBinding.mayExclude(text) || text.containsBytes(of: "NOT"),
            let expression = negatedFilter
        else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        var result = Set<String>()
        for match in expression.matches(in: text, range: range) {
            guard let field = Range(match.range(at: 1), in: text) else { continue }
            let value = Range(match.range(at: 2), in: text) ?? Range(match.range(at: 3), in: text)
            if let value { result.insert("\(text[field]):\(text[value])".lowercased()) }
        }
        return result
    }
}
