import TrackerStore

/// Text for HTML documents.
enum HTML {
    /// `text` safe in an HTML element's content or a quoted attribute value: `&`, `<`, `>`, `"` and `'` as
    /// character references, and control characters shown as escapes (``VisibleText``; a NUL among them).
    ///
    /// Escaped byte by byte over the UTF-8, never by Swift `Character`: a `Character` is a grapheme cluster, and
    /// one such as U+0600 followed by `<` is a single `Character` that is not equal to `"<"`, so an escaper that
    /// compares characters lets the `<` through (stored XSS). In UTF-8 those five are single bytes that no other
    /// character's encoding contains.
    ///
    /// - Parameter keepingLineBreaks: keep newlines and tabs (a detail shown with `white-space: pre-wrap`).
    static func escaped(_ text: String, keepingLineBreaks: Bool = false) -> String {
        let visible = VisibleText.escaped(text, keepingLineBreaks: keepingLineBreaks)
        guard visible.utf8.contains(where: { special($0) != nil }) else { return visible }
        var out: [UInt8] = []
        out.reserveCapacity(visible.utf8.count + 16)
        for byte in visible.utf8 {
            if let reference = special(byte) {
                out.append(contentsOf: reference.utf8)
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func special(_ byte: UInt8) -> String? {
        switch byte {
        case UInt8(ascii: "&"): return "&amp;"
        case UInt8(ascii: "<"): return "&lt;"
        case UInt8(ascii: ">"): return "&gt;"
        case UInt8(ascii: "\""): return "&quot;"
        case UInt8(ascii: "'"): return "&#39;"
        default: return nil
        }
    }
}
