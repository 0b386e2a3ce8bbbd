import Foundation

/// Character classes for reading queries, answered from the byte for ASCII and by Unicode's properties otherwise.
///
/// `Character.isLetter` and its kin look every character up in Unicode's property tables. Over a short query, read
/// several times (normalised, split into compounds, scanned for spelling corrections), those look-ups were most of
/// the Swift side of a rare phrase's search (`perf` of `PROFILE_QUERY='"chust cheangvosed"' profile search 100000
/// 30000 phrase`). Each property here gives exactly the standard library's answer: for ASCII, letters are `A`–`Z`
/// and `a`–`z`, numbers `0`–`9`, white space tab, line feed, vertical tab, form feed, carriage return and space
/// (and `"\r\n"`, which `asciiValue` reads as a line feed).
extension Character {
    /// `isLetter || isNumber`.
    public var isLetterOrNumber: Bool {
        guard let byte = asciiValue else { return isLetter || isNumber }
        return byte.isASCIILetter || byte.isASCIIDigit
    }

    /// `isLetter`.
    public var isLetterQuick: Bool {
        guard let byte = asciiValue else { return isLetter }
        return byte.isASCIILetter
    }

    /// `isNumber`.
    public var isNumberQuick: Bool {
        guard let byte = asciiValue else { return isNumber }
        return byte.isASCIIDigit
    }

    /// `isWhitespace`.
    public var isWhitespaceQuick: Bool {
        guard let byte = asciiValue else { return isWhitespace }
        return byte.isASCIIWhitespace
    }
}

extension UInt8 {
    /// `A`–`Z` or `a`–`z`.
    public var isASCIILetter: Bool { (self | 0x20) >= 0x61 && (self | 0x20) <= 0x7A }
    /// `0`–`9`.
    public var isASCIIDigit: Bool { self >= 0x30 && self <= 0x39 }
    /// Tab, line feed, vertical tab, form feed, carriage return or space: white space of ASCII.
    public var isASCIIWhitespace: Bool { self == 0x20 || (self >= 0x09 && self <= 0x0D) }
    /// Whether a word of a query may end before this byte, or begin after it (``NotBinding``'s tokens): white space,
    /// a parenthesis, or a byte outside ASCII (which may belong to Unicode's white space).
    var mayBoundAWord: Bool {
        isASCIIWhitespace || self == UInt8(ascii: "(") || self == UInt8(ascii: ")") || self >= 0x80
    }
    /// `a`–`z`.
    public var isASCIILowercase: Bool { self >= 0x61 && self <= 0x7A }
    /// `A`–`Z`.
    public var isASCIIUppercase: Bool { self >= 0x41 && self <= 0x5A }
}

extension StringProtocol where UTF8View: BidirectionalCollection {
    /// `trimmingCharacters(in: .whitespaces)` (tab and Unicode's space separators), without Foundation's
    /// CharacterSet where there is nothing to trim: every search request trims a few values, nearly always with no
    /// white space at either end.
    public func trimmingSpaces() -> String {
        guard let first = utf8.first, let last = utf8.last, first < 0x80, last < 0x80, first != 0x20, first != 0x09,
            last != 0x20, last != 0x09
        else { return trimmingCharacters(in: .whitespaces) }
        return String(self)
    }
}

extension String {
    /// Whether the text's bytes hold those of `word` in a run: what `contains(_:)` of a string and
    /// `utf8.firstRange(of:)` answer for ASCII `word`, without the generic collection algorithms behind them, which
    /// took tens of thousands of instructions over a query of a few words.
    func containsBytes(of word: StaticString) -> Bool {
        let needle = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard let first = needle.first else { return true }
        let found = utf8.withContiguousStorageIfAvailable { text -> Bool in
            guard text.count >= needle.count else { return false }
            var start = 0
            while start <= text.count - needle.count {
                if text[start] == first, needle.indices.allSatisfy({ text[start + $0] == needle[$0] }) { return true }
                start += 1
            }
            return false
        }
        return found ?? (utf8.firstRange(of: needle) != nil)
    }

    /// Whether every byte of the text is ASCII.
    public var isAllASCII: Bool { utf8.allSatisfy { $0 < 0x80 } }
}
