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
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        opening = true
    }

    /// An object's key made from data (a facet's name), escaped as a string is.
    public mutating func key(_ name: String) {
        separate()
        JSONLines.appendQuoted(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        opening = true
    }

    public mutating func string(_ value: String) {
        separate()
        JSONLines.appendQuoted(value, to: &bytes)
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

    /// A number as `%.6g` writes it (C's formatting, without Foundation's string formatting per score); `null` for
    /// what JSON cannot hold.
    public mutating func double(_ value: Double) {
        separate()
        guard value.isFinite else {
            bytes.append(contentsOf: "null".utf8)
            return
        }
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 32) { buffer in
            let written = withVaList([value]) { vsnprintf(buffer.baseAddress, buffer.count, "%.6g", $0) }
            let count = Int(max(0, min(written, Int32(buffer.count - 1))))
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
        }
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
