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
    /// Cut to `width` characters with an ellipsis, or padded with spaces to `width`.
    func fitted(to width: Int) -> String {
        guard width > 0 else { return "" }
        if count > width { return String(prefix(max(0, width - 1))) + "…" }
        return self + String(repeating: " ", count: width - count)
    }
}
