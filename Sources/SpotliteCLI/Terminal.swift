import Foundation

/// What stdout is: a terminal (colour, width) or a pipe (plain text).
struct Terminal {
    var isInteractive: Bool
    var usesColor: Bool
    var width: Int

    /// The width used when stdout is not a terminal and `COLUMNS` is not set.
    static let defaultWidth = 100

    static var current: Terminal {
        let interactive = isatty(STDOUT_FILENO) == 1
        var size = winsize()
        var width = Paths.environment("COLUMNS").flatMap(Int.init) ?? defaultWidth
        if interactive, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { width = Int(size.ws_col) }
        // https://no-color.org: any non-empty NO_COLOR turns colour off.
        let color = interactive && Paths.environment("NO_COLOR") == nil && Paths.environment("TERM") != "dumb"
        return Terminal(isInteractive: interactive, usesColor: color, width: max(40, width))
    }

    func bold(_ text: String) -> String { usesColor ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    func dim(_ text: String) -> String { usesColor ? "\u{1B}[2m\(text)\u{1B}[0m" : text }
    /// Matched words in snippets: bold yellow on a terminal, as they are in a pipe.
    var highlight: (start: String, end: String) { usesColor ? ("\u{1B}[1;33m", "\u{1B}[0m") : ("", "") }
}

extension String {
    /// Cut to `width` terminal columns with an ellipsis, or padded with spaces to `width`: columns, not characters,
    /// so that CJK text (two columns a character) and combining accents (none) line up.
    func fitted(to width: Int) -> String {
        guard width > 0 else { return "" }
        let columns = displayWidth
        if columns <= width { return self + String(repeating: " ", count: width - columns) }
        var out = ""
        var used = 0
        for character in self {
            let next = character.displayWidth
            if used + next > width - 1 { break }
            out.append(character)
            used += next
        }
        return out + "…" + String(repeating: " ", count: max(0, width - 1 - used))
    }

    /// The columns a terminal gives this text.
    var displayWidth: Int { reduce(0) { $0 + $1.displayWidth } }
}

extension Character {
    /// The columns a terminal gives this character: 2 for East Asian wide and full-width characters and emoji,
    /// 0 for a lone combining mark or control, else 1 (after Unicode's East Asian Width, as `wcwidth` does).
    var displayWidth: Int {
        guard let first = unicodeScalars.first else { return 0 }
        let value = first.value
        if value < 0x20 || (value >= 0x7F && value < 0xA0) { return 0 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if first.properties.isEmojiPresentation { return 2 }
        return Self.wideRanges.contains { $0.contains(value) } ? 2 : 1
    }

    /// East Asian wide and full-width blocks (made once, not for every character printed).
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
        0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
        0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]
}
