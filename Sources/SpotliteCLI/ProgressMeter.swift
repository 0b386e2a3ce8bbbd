import Foundation
import Indexer
import TrackerStore

/// A progress line for a long run (catch-up, rebuild, import) on a terminal: what is done, of how much, the rate,
/// and the time left, e.g. `spotlite: rebuilding: 4000 of 9940 rows, 2950/s, 2 s left`. Nothing on a pipe
/// (``Output/progress(_:)``), and at most one line every tenth of a second, whatever the caller's pace.
final class ProgressMeter {
    private let clock: () -> Date
    private var started: Date?
    private var shown: Date?
    private var work = ""

    init(clock: @escaping () -> Date = Date.init) { self.clock = clock }

    /// The line for `done` of `total` (nil: unknown) `unit`s of `work`, or nil while the last one is still fresh.
    /// A new `work` restarts the rate.
    func line(_ work: String, done: Int, total: Int?, unit: String) -> String? {
        let now = clock()
        if work != self.work || started == nil {
            self.work = work
            started = now
            shown = nil
        }
        if let shown, now.timeIntervalSince(shown) < 0.1, done != total { return nil }
        shown = now
        var text = "spotlite: \(work): \(done)"
        if let total { text += " of \(total)" }
        text += " \(unit)"
        let elapsed = now.timeIntervalSince(started ?? now)
        guard elapsed >= 0.2, done > 0 else { return text }
        let rate = Double(done) / elapsed
        text += ", \(Int(rate.rounded()))/s"
        if let total, total > done {
            text += ", \(Self.duration(Double(total - done) / rate)) left"
        }
        return text
    }

    /// Shows the line for `progress` (see ``line(_:done:total:unit:)``).
    func show(_ progress: IndexProgress) {
        let text =
            progress.work == .rebuilding
            ? line("rebuilding", done: progress.done, total: progress.total, unit: "rows")
            : line("applying changes", done: progress.done, total: progress.total, unit: "changes")
        if let text { Output.progress(text) }
    }

    /// Shows the line for an import's `progress`.
    func show(_ progress: ImportProgress) {
        let text: String?
        switch progress.stage {
        case .reading:
            text =
                progress.total.map { total in
                    line("reading", done: progress.done >> 20, total: total >> 20, unit: "MiB")
                } ?? line("reading", done: progress.done, total: nil, unit: "lines")
        case .writing:
            text = line("writing", done: progress.done, total: progress.total, unit: "records")
        }
        if let text { Output.progress(text) }
    }

    /// `45 s`, `3 min`, `2 h`.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        if seconds < 90 { return "\(max(1, Int(seconds.rounded()))) s" }
        if seconds < 90 * 60 { return "\(Int((seconds / 60).rounded())) min" }
        return "\(Int((seconds / 3_600).rounded())) h"
    }
}
