/// Text from the store, made safe to show: every character that would act rather than print is written as a
/// visible escape instead (`\x1b`, `\r`, `\u202e`), as `git` quotes paths and Python's `repr` shows strings.
///
/// Anyone who can write the store (an import, a sync engine, a `sqlite3` shell) chooses these bytes. Sent raw to a
/// terminal, `ESC ] 52 ;` writes the clipboard, `ESC ] 0 ;` the window title, and `CSI 2 J` clears the screen; C1
/// controls (U+0080–U+009F) act the same in terminals that read them; a carriage return overwrites the line, and the
/// bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) reorder what follows them ("Trojan Source").
/// So the CLI's text formats, its error lines and the server's pages show them this way, and JSON writes them as
/// `\u` escapes (``JSONLines/quote(_:)``).
///
/// ```swift
/// VisibleText.escaped("x \u{1B}]0;PWNED\u{7}")  // "x \\x1b]0;PWNED\\x07"
/// ```
public enum VisibleText {
    /// Whether `scalar` acts on what shows it rather than printing: C0 controls (tab and newline only when
    /// `keepingLineBreaks`), DEL, C1 controls, and the bidirectional embeddings, overrides and isolates.
    @inlinable
    public static func isControl(_ scalar: Unicode.Scalar, keepingLineBreaks: Bool = false) -> Bool {
        let value = scalar.value
        if value < 0x20 { return !(keepingLineBreaks && (value == 0x0A || value == 0x09)) }
        return value == 0x7F || (0x80...0x9F).contains(value) || (0x202A...0x202E).contains(value)
            || (0x2066...0x2069).contains(value)
    }

    /// `text` with each control (``isControl(_:keepingLineBreaks:)``) written as an escape: `\t`, `\n`, `\r`,
    /// `\xHH` for the other C0 controls and DEL, `\uHHHH` for the rest. Text without one is returned as it is,
    /// after one pass over its bytes.
    ///
    /// - Parameter keepingLineBreaks: keep newlines and tabs (a detail or a message shown as a block of lines);
    ///   without it every line break is escaped too (a title in a column, a line on stderr).
    public static func escaped(_ text: String, keepingLineBreaks: Bool = false) -> String {
        guard containsControl(text, keepingLineBreaks: keepingLineBreaks) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isControl(scalar, keepingLineBreaks: keepingLineBreaks) else {
                out.append(scalar)
                continue
            }
            let escape: String
            switch scalar.value {
            case 0x09: escape = "\\t"
            case 0x0A: escape = "\\n"
            case 0x0D: escape = "\\r"
            case 0..<0x20, 0x7F: escape = "\\x" + hex(scalar.value, digits: 2)
            default: escape = "\\u" + hex(scalar.value, digits: 4)
            }
            out.append(contentsOf: escape.unicodeScalars)
        }
        return String(out)
    }

    /// Whether `text` holds a control that ``escaped(_:keepingLineBreaks:)`` would escape, found from its UTF-8
    /// bytes: C0 and DEL are one byte; C1 is `C2 80`–`C2 9F`; U+202A–U+202E are `E2 80 AA`–`E2 80 AE`;
    /// U+2066–U+2069 are `E2 81 A6`–`E2 81 A9`.
    public static func containsControl(_ text: String, keepingLineBreaks: Bool = false) -> Bool {
        var previous: (UInt8, UInt8) = (0, 0)
        for byte in text.utf8 {
            if byte < 0x20 {
                if !(keepingLineBreaks && (byte == 0x0A || byte == 0x09)) { return true }
            } else if byte == 0x7F {
                return true
            } else if previous.1 == 0xC2 && (0x80...0x9F).contains(byte) {
                return true
            } else if previous == (0xE2, 0x80) && (0xAA...0xAE).contains(byte) {
                return true
            } else if previous == (0xE2, 0x81) && (0xA6...0xA9).contains(byte) {
                return true
            }
            previous = (previous.1, byte)
        }
        return false
    }

    static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
