import Foundation
import TrackerStore

/// Compact JSON written straight to UTF-8 bytes, a value at a time, keys in the order written. A page of hits is
/// written this way, with no tree of ``JSON`` values made first: a tree costs an array for every object and a copy
/// of every value before a byte is written. A tree, where one is kept, is written through a writer too
/// (``JSON/write(to:)``), so both come out alike.
///
/// Commas are the writer's: each value, or key, is preceded by one unless it opens its object or array or follows
/// its key. A body passed to ``object(_:)`` or ``array(_:)`` writes that container's members.
public struct JSONWriter {
    /// The text written so far.
    public private(set) var bytes: [UInt8] = []

    /// The next value needs no comma before it: it opens a container, or follows its key.
    private var opening = true

    /// The bytes reserved when the caller has no better guess: a row, or a short answer.
    public static let defaultCapacity = 1_024

    /// The opening quote and scheme every URI's text starts with.
    private static let uriPrefix = Array("\"\(TrackerURI.scheme)://".utf8)

    /// `capacity`: the bytes the whole text is expected to take, reserved at once.
    public init(capacity: Int = defaultCapacity) {
        bytes.reserveCapacity(capacity)
    }

    /// The text, then `ending` (a line of JSON Lines, a server's body).
    public consuming func line(ending: String = "\n") -> [UInt8] {
        bytes.append(contentsOf: ending.utf8)
        return bytes
    }

    @inline(__always)
    private mutating func separate() {
        if opening { opening = false } else { bytes.append(UInt8(ascii: ",")) }
    }

    /// An object's key that is a literal of ours: ASCII with nothing to escape, written as it is.
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        opening = true
    }

    /// An object's key made from data (a facet's name), escaped as a string is. (Named apart from
    /// ``key(_:)``, which a literal key then always takes: it is copied as it is, not escaped.)
    public mutating func key(escaping name: String) {
        separate()
        JSONLines.appendQuoted(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        opening = true
    }

    public mutating func string(_ value: String) {
        separate()
        JSONLines.appendQuoted(value, to: &bytes)
    }

    /// A string from its UTF-8 bytes (whole characters), leaving out any byte equal to either of `dropping`.
    public mutating func string(utf8 text: UnsafeBufferPointer<UInt8>, dropping: (UInt8, UInt8)? = nil) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        JSONLines.appendEscaped(text, dropping: dropping, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// A URI's canonical text (``TrackerURI/description``) as a string, written from its parts with no String made.
    public mutating func uri(_ uri: TrackerURI) {
        separate()
        bytes.append(contentsOf: Self.uriPrefix)
        JSONLines.appendEscaped(uri.storeID, to: &bytes)
        bytes.append(UInt8(ascii: "/"))
        bytes.append(contentsOf: uri.kind.rawValue.utf8)  // a literal of ours: nothing to escape
        bytes.append(UInt8(ascii: "/"))
        JSONLines.appendEscaped(uri.entityID, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func int(_ value: Int) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A number as `%.6g` writes it; `null` for what JSON cannot hold. A score (and most numbers) is written by
    /// ``appendSixDigits(_:to:)``; the rest by C's formatting.
    public mutating func double(_ value: Double) {
        separate()
        guard value.isFinite else {
            bytes.append(contentsOf: "null".utf8)
            return
        }
        if Self.appendSixDigits(value, to: &bytes) { return }
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 32) { buffer in
            let written = withVaList([value]) { vsnprintf(buffer.baseAddress, buffer.count, "%.6g", $0) }
            let count = Int(max(0, min(written, Int32(buffer.count - 1))))
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
        }
    }

    /// `value` as `%.6g` writes it, appended to `bytes`, for 0 and a normal number of magnitude 1e-5 up to 1e6 (what
    /// a page's scores are); false, nothing appended, for any other. C's formatting (vsnprintf through a `va_list`)
    /// costs several thousand instructions a number, a good part of a page's JSON.
    ///
    /// Exact, as C's is: the value is m·2^e with m < 2^53; its six significant digits are m·10^k·2^e for
    /// k = 5 − its decimal exponent, an integer of 128 bits here, rounded half to even on the bits shifted out.
    static func appendSixDigits(_ value: Double, to bytes: inout [UInt8]) -> Bool {
        let magnitude = value.magnitude
        if magnitude == 0 {
            bytes.append(contentsOf: (value.sign == .minus ? "-0" : "0").utf8)
            return true
        }
        guard magnitude.isNormal, magnitude >= 1e-5, magnitude < 1e6 else { return false }
        let significand = UInt128(magnitude.significandBitPattern | (1 << 52))
        let shift = 1075 - Int(magnitude.exponentBitPattern)  // magnitude = significand / 2^shift; 33...69 here
        // The decimal exponent, estimated, then made exact by the digits it gives.
        var exponent = Int(log10(magnitude).rounded(.down))
        var digits: UInt128 = 0
        var rest: UInt128 = 0
        for _ in 0..<3 {
            let k = 5 - exponent  // 0...10
            guard (0...10).contains(k) else { return false }
            var power: UInt128 = 1
            for _ in 0..<k { power *= 10 }
            let scaled = significand * power  // < 2^53 · 10^10 < 2^87
            digits = scaled >> UInt128(shift)
            rest = scaled & ((1 << UInt128(shift)) - 1)
            if digits < 100_000 {
                exponent -= 1
            } else if digits >= 1_000_000 {
                exponent += 1
            } else {
                break
            }
        }
        guard digits >= 100_000, digits < 1_000_000 else { return false }
        let half = UInt128(1) << UInt128(shift - 1)
        if rest > half || (rest == half && digits & 1 == 1) { digits += 1 }
        if digits == 1_000_000 {
            digits = 100_000
            exponent += 1
        }
        if value.sign == .minus { bytes.append(UInt8(ascii: "-")) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 6) { text in
            // The six digits, and how many are left once trailing zeros go.
            var remaining = Int(digits)
            for index in stride(from: 5, through: 0, by: -1) {
                text[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
                remaining /= 10
            }
            var kept = 6
            while kept > 1 && text[kept - 1] == UInt8(ascii: "0") { kept -= 1 }
            if exponent >= -4 && exponent < 6 {
                if exponent >= 0 {
                    bytes.append(contentsOf: text[0...exponent])
                    if kept > exponent + 1 {
                        bytes.append(UInt8(ascii: "."))
                        bytes.append(contentsOf: text[(exponent + 1)..<kept])
                    }
                } else {
                    bytes.append(contentsOf: "0.".utf8)
                    for _ in 0..<(-exponent - 1) { bytes.append(UInt8(ascii: "0")) }
                    bytes.append(contentsOf: text[0..<kept])
                }
            } else {
                bytes.append(text[0])
                if kept > 1 {
                    bytes.append(UInt8(ascii: "."))
                    bytes.append(contentsOf: text[1..<kept])
                }
                bytes.append(contentsOf: (exponent < 0 ? "e-" : "e+").utf8)
                if exponent.magnitude < 10 { bytes.append(UInt8(ascii: "0")) }
                bytes.append(contentsOf: String(exponent.magnitude).utf8)
            }
        }
        return true
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    /// Text a writer wrote before, as one value: a row written once and put in a list.
    public mutating func written(_ text: [UInt8]) {
        separate()
        bytes.append(contentsOf: text)
    }

    /// An object whose members `body` writes, a key and a value at a time.
    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "{"))
        body(&self)
        close(UInt8(ascii: "}"))
    }

    /// An array whose values `body` writes.
    public mutating func array(_ body: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "["))
        body(&self)
        close(UInt8(ascii: "]"))
    }

    /// An array of strings.
    public mutating func strings(_ values: [String]) {
        array { for value in values { $0.string(value) } }
    }

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        opening = true
    }

    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        opening = false
    }

    // MARK: - A key and its value

    public mutating func field(_ name: StaticString, _ value: String) {
        key(name)
        string(value)
    }

    /// `null` for nil.
    public mutating func field(_ name: StaticString, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }

    public mutating func field(_ name: StaticString, _ value: Int) {
        key(name)
        int(value)
    }

    /// `null` for nil.
    public mutating func field(_ name: StaticString, _ value: Int?) {
        key(name)
        if let value { int(value) } else { null() }
    }

    public mutating func field(_ name: StaticString, _ value: Double) {
        key(name)
        double(value)
    }

    public mutating func field(_ name: StaticString, _ value: Bool) {
        key(name)
        bool(value)
    }

    public mutating func field(_ name: StaticString, uri value: TrackerURI) {
        key(name)
        uri(value)
    }

    public mutating func field(_ name: StaticString, strings values: [String]) {
        key(name)
        strings(values)
    }
}
