import Foundation

/// What the index and the query parser both see of text, so that what is written is what is found:
///
/// - **NFKC with diacritics folded**: `Café` and a decomposed `cafe\u{301}` both read `Cafe`, full-width `ＡＢＣ`
///   reads `ABC` (Xapian lowercases afterwards, and splits CJK text into n-grams).
/// - **Compound words are followed by their parts** ("word delimiter", as search engines do for code and product
///   names): `NativeAzureFsOutputStream` also gives `Native Azure Fs Output Stream`, `S3AFileSystem` gives
///   `S 3 A File System`, `9.4.43` gives `9 4 43`, `HADOOP_CONF_DIR` gives `HADOOP CONF DIR`. The whole word is still indexed, so it is found exactly; its
///   parts are found by people who write them apart (`output stream`), as bug reports about the same class do.
///
/// ASCII text without compound words, most text, is returned as it is without copying.
public enum TextNormalizer {
    /// `text` folded (NFKC, no diacritics) with each compound word followed by its parts: what the index holds.
    public static func indexed(_ text: String) -> String {
        let folded = fold(text)
        guard hasCompound(folded) else { return folded }
        return folded.isAllASCII ? asciiIndexed(folded) : characterIndexed(folded)
    }

    /// ``indexed(_:)`` of folded text, by characters (any script).
    static func characterIndexed(_ folded: String) -> String {
        var out = ""
        out.reserveCapacity(folded.utf8.count + 32)
        var token = ""
        func flush() {
            guard !token.isEmpty else { return }
            out += token
            let parts = compoundParts(token)
            if parts.count > 1 { out += " " + parts.joined(separator: " ") }
            token = ""
        }
        let characters = Array(folded)
        for (index, character) in characters.enumerated() {
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            if isTokenCharacter(character, in: token, before: next) {
                token.append(character)
            } else {
                flush()
                out.append(character)
            }
        }
        flush()
        return out
    }

    /// ``indexed(_:)`` for ASCII text, on its bytes (the same rules; most text is ASCII, and long).
    static func asciiIndexed(_ text: String) -> String {
        var bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 8)
        var start = -1
        func isAlnum(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        }
        func flush(_ end: Int) {
            guard start >= 0 else { return }
            let token = bytes[start..<end]
            out += token
            let parts = asciiParts(token)
            if parts.count > 1 {
                for part in parts {
                    out.append(0x20)
                    out += part
                }
            }
            start = -1
        }
        bytes.append(0x20)  // a last separator flushes the last word
        for index in 0..<bytes.count {
            let byte = bytes[index]
            let continues =
                isAlnum(byte)
                || (byte == 0x2E && start >= 0 && index > 0 && bytes[index - 1] >= 0x30 && bytes[index - 1] <= 0x39
                    && index + 1 < bytes.count && bytes[index + 1] >= 0x30 && bytes[index + 1] <= 0x39)
                || (byte == 0x5F && start >= 0 && index + 1 < bytes.count && isAlnum(bytes[index + 1]))
            if continues {
                if start < 0 { start = index }
            } else {
                flush(index)
                if index < bytes.count - 1 { out.append(byte) }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// ``compoundParts(_:)`` of an ASCII word.
    static func asciiParts(_ word: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var parts: [ArraySlice<UInt8>] = []
        var partStart = word.startIndex
        var index = word.startIndex
        while index < word.endIndex {
            let byte = word[index]
            if byte == 0x2E || byte == 0x5F {
                if partStart < index { parts.append(word[partStart..<index]) }
                partStart = index + 1
            } else if index > partStart {
                let previous = word[index - 1]
                let next = index + 1 < word.endIndex ? word[index + 1] : 0
                let afterNext = index + 2 < word.endIndex ? word[index + 2] : 0
                // `APIs`, `IDsFor`: an acronym's plural `s` stays with it.
                let plural = next == 0x73 && !afterNext.isASCIILowercase
                if (previous.isASCIILowercase && byte.isASCIIUppercase)
                    || (previous.isASCIIUppercase && byte.isASCIIUppercase && next.isASCIILowercase && !plural)
                    || (previous.isASCIIDigit != byte.isASCIIDigit)
                {
                    parts.append(word[partStart..<index])
                    partStart = index
                }
            }
            index += 1
        }
        if partStart < word.endIndex { parts.append(word[partStart..<word.endIndex]) }
        return parts
    }

    /// A title as `project:` filters compare titles: folded, lowercased, white space collapsed to single spaces.
    public static func titleKey(_ title: String) -> String {
        fold(title).lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// NFKC with diacritics folded; the text itself when it is ASCII (which neither changes).
    public static func fold(_ text: String) -> String {
        if text.isAllASCII { return text }
        let decomposed = text.decomposedStringWithCompatibilityMapping
        var scalars = String.UnicodeScalarView()
        for scalar in decomposed.unicodeScalars where scalar.properties.generalCategory != .nonspacingMark {
            scalars.append(scalar)
        }
        return String(scalars).precomposedStringWithCanonicalMapping
    }

    /// The parts of a compound word: split where lowercase meets uppercase (`fsOutput`), before the last capital of
    /// a run of capitals followed by lowercase (`HTTPServer` → `HTTP Server`) unless that lowercase is an acronym's
    /// plural `s` (`APIs`, `IDsFor` → `IDs For`: bug reports are full of them, and `AP Is` would match the word "is"),
    /// between letters and digits, at the dots of a dotted number and at underscores. One part (the word itself) for
    /// a plain word.
    public static func compoundParts(_ word: String) -> [String] {
        asciiCompoundParts(word) ?? unicodeCompoundParts(word)
    }

    /// ``compoundParts(_:)`` by Unicode's character properties, for any text.
    static func unicodeCompoundParts(_ word: String) -> [String] {
        let characters = Array(word)
        var parts: [String] = []
        var current = ""
        for (index, character) in characters.enumerated() {
            if character == "." || character == "_" {
                if !current.isEmpty { parts.append(current) }
                current = ""
                continue
            }
            if let previous = current.last {
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                let afterNext = index + 2 < characters.count ? characters[index + 2] : nil
                let plural = next == "s" && !(afterNext?.isLowercase ?? false)
                let boundary =
                    (previous.isLowercase && character.isUppercase)
                    || (previous.isUppercase && character.isUppercase && (next?.isLowercase ?? false) && !plural)
                    || (previous.isNumber != character.isNumber)
                if boundary {
                    parts.append(current)
                    current = ""
                }
            }
            current.append(character)
        }
        if !current.isEmpty { parts.append(current) }
        return parts
    }

    /// ``compoundParts(_:)`` read from the bytes (``asciiParts(_:)``), for words of printable ASCII; nil for any other.
    static func asciiCompoundParts(_ word: String) -> [String]? {
        let bytes = Array(word.utf8)
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        if bytes.allSatisfy(\.isASCIILowercase) { return word.isEmpty ? [] : [word] }
        return asciiParts(bytes[...]).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether `character` continues the word being read (`token`) when `next` follows it: a letter or digit, an
    /// underscore between letters or digits, or a dot between digits (a dotted number). The one rule of what a word
    /// is, for the index (``asciiIndexed(_:)`` applies it to bytes) and for queries alike: a word never ends in an
    /// underscore or a dot.
    static func isTokenCharacter(_ character: Character, in token: String, before next: Character?) -> Bool {
        if character.isLetterOrNumber { return true }
        let nextIsWord = next?.isLetterOrNumber ?? false
        if character == "_" { return !token.isEmpty && nextIsWord }
        return character == "." && (token.last?.isNumberQuick ?? false) && (next?.isNumberQuick ?? false)
    }

    /// Whether any word of `text` is a compound (a fast check before rewriting anything).
    static func hasCompound(_ text: String) -> Bool {
        var previous: UInt8 = 0
        var previousWasLetterOrDigit = false
        // The byte before was a dot after a digit, or an underscore after a letter or digit: it joins a word only
        // when what follows continues it (a digit after the dot, a letter or digit after the underscore), as
        // isTokenCharacter(_:in:before:) says (`1..2`, `2.x` and `a_ b` hold no compound).
        var joinsNext = false
        for byte in text.utf8 {
            let isLower = byte >= 0x61 && byte <= 0x7A
            let isUpper = byte >= 0x41 && byte <= 0x5A
            let isDigit = byte >= 0x30 && byte <= 0x39
            if byte >= 0x80 { return true }  // letters outside ASCII: leave the decision to the full scan
            if previousWasLetterOrDigit {
                let previousIsDigit = previous >= 0x30 && previous <= 0x39
                let previousIsLower = previous >= 0x61 && previous <= 0x7A
                if (previousIsLower && isUpper) || ((isLower || isUpper) && previousIsDigit)
                    || (isDigit && !previousIsDigit)
                {
                    return true
                }
                if isUpper && previous >= 0x41 && previous <= 0x5A { return true }
            }
            if joinsNext && (previous == 0x2E ? isDigit : isLower || isUpper || isDigit) { return true }
            joinsNext =
                (byte == 0x2E && previous >= 0x30 && previous <= 0x39) || (byte == 0x5F && previousWasLetterOrDigit)
            previousWasLetterOrDigit = isLower || isUpper || isDigit
            previous = byte
        }
        return false
    }
}

extension TextNormalizer {
    /// A query as the index holds text: folded, and each compound word given its parts in the way the query
    /// combines its words — `(W OR w1 OR w2)` among words joined by OR, `(W OR (w1 w2))` (all parts) otherwise —
    /// and inside quotes followed by its parts as in the index, so that phrases line up. Words with a field
    /// (`title:W`), a `+`/`-`, or a wildcard are not expanded. Words and parts are lowercased (so that every word is
    /// stemmed, and no part reads as an operator); the operators and field names are kept as typed.
    public static func query(_ text: String) -> String { normalizedQuery(text).text }

    /// A query as ``query(_:)`` writes it, and the compound words it gave parts to outside quotes.
    public struct NormalizedQuery: Sendable, Equatable {
        public var text: String
        /// Each compound word (lowercased) followed by its parts, as written into ``text``: a word typed once counts
        /// once in the ranking, whichever of its forms a document holds (see `Query.groupingCompounds`).
        public var compounds: [[String]]
    }

    /// ``query(_:)`` with the compound words it expanded.
    public static func normalizedQuery(_ text: String) -> NormalizedQuery {
        // ASCII without a capital or a compound word (most queries: words, filters, ranges, parentheses) has nothing
        // to rewrite: each word is kept as typed, lowercase already, with no parts to add. Reading such a query as
        // Characters cost more than Xapian's parse of it.
        if text.utf8.allSatisfy({ $0 < 0x80 && !$0.isASCIIUppercase }) && !hasCompound(text) {
            return NormalizedQuery(text: text, compounds: [])
        }
        return characterNormalizedQuery(text)
    }

    /// ``normalizedQuery(_:)`` read Character by Character, for any text.
    static func characterNormalizedQuery(_ text: String) -> NormalizedQuery {
        let folded = fold(text)
        let characters = Array(folded)
        var compounds: [[String]] = []
        var out = ""
        var index = 0
        var quoted = false
        // Inside `field:"…"`: a filter's value, kept exactly as typed.
        var fieldValue = false
        while index < characters.count {
            let character = characters[index]
            if character == "\"" {
                quoted.toggle()
                fieldValue =
                    quoted && index > 0 && characters[index - 1] == ":"
                    && !textFields.contains(fieldName(characters, endingAt: index - 1))
                out.append(character)
                index += 1
                continue
            }
            if fieldValue {
                out.append(character)
                index += 1
                continue
            }
            // A URI after a field (`project:tracker://<store>/project/<uuid>`) is kept as typed, to the next space
            // or closing parenthesis: the hyphens of its UUIDs join no compound.
            if !quoted, index > 0, characters[index - 1] == ":",
                characters[index...].starts(with: "tracker://")
            {
                while index < characters.count, !characters[index].isWhitespaceQuick, characters[index] != ")" {
                    out.append(characters[index])
                    index += 1
                }
                continue
            }
            guard character.isLetterOrNumber else {
                out.append(character)
                index += 1
                continue
            }
            var end = index
            var word = ""
            while end < characters.count,
                isTokenCharacter(
                    characters[end], in: word, before: end + 1 < characters.count ? characters[end + 1] : nil)
            {
                word.append(characters[end])
                end += 1
            }
            let parts = compoundParts(word)
            let before = index > 0 ? characters[index - 1] : " "
            let after = end < characters.count ? characters[end] : " "
            let attached =
                before == ":" || before == "+" || before == "-" || after == "*" || after == ":"
                || before.isLetterOrNumber
            // Words are lowercased, operators kept: Xapian stems only words written in lowercase, and a word at
            // the start of a title-cased sentence ("Fixes") should find "fix" as FTS5's porter does.
            let filterValue = before == ":" && !textFields.contains(fieldName(characters, endingAt: index - 1))
            let lower = isOperator(word, followedBy: after) || after == ":" || filterValue ? word : word.lowercased()
            if parts.count < 2 || attached {
                out += lower
            } else if quoted {
                out += lower + " " + parts.map { $0.lowercased() }.joined(separator: " ")
            } else if neighbourIsOr(characters, before: index, after: end) {
                out += "(" + ([lower] + parts.map { $0.lowercased() }).joined(separator: " OR ") + ")"
                compounds.append([lower] + parts.map { $0.lowercased() })
            } else {
                out += "(" + lower + " OR (" + parts.map { $0.lowercased() }.joined(separator: " ") + "))"
                compounds.append([lower] + parts.map { $0.lowercased() })
            }
            index = end
        }
        return NormalizedQuery(text: out, compounds: compounds)
    }

    /// The fields whose values are text (searched as words); the others are filters whose values stay as typed.
    static let textFields: Set<String> = ["title", "detail"]

    /// The field name before the colon at `colon`.
    static func fieldName(_ characters: [Character], endingAt colon: Int) -> String {
        var start = colon
        while start > 0, characters[start - 1].isLetterQuick { start -= 1 }
        return String(characters[start..<colon]).lowercased()
    }

    /// The query parser's operators, in capitals as they must be typed.
    public static let queryOperators: Set<String> = ["AND", "OR", "NOT", "XOR", "NEAR", "ADJ"]

    /// Whether `word` is one of the query parser's operators (``queryOperators``).
    static func isOperator(_ word: String, followedBy next: Character) -> Bool {
        queryOperators.contains(word)
    }

    /// Whether the word before `start` or after `end` (skipping spaces and parentheses) is the operator OR or XOR.
    static func neighbourIsOr(_ characters: [Character], before start: Int, after end: Int) -> Bool {
        func word(from index: Int, step: Int) -> String {
            var position = index
            while position >= 0, position < characters.count,
                characters[position].isWhitespaceQuick || characters[position] == "(" || characters[position] == ")"
            {
                position += step
            }
            var letters: [Character] = []
            while position >= 0, position < characters.count, characters[position].isLetterQuick {
                letters.append(characters[position])
                position += step
            }
            return String(step < 0 ? letters.reversed() : letters)
        }
        let operators: Set<String> = ["OR", "XOR"]
        return operators.contains(word(from: start - 1, step: -1)) || operators.contains(word(from: end, step: 1))
    }
}
