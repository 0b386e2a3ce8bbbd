import Foundation

/// Figures for the summary tables `make bench` prints after the suite (`scripts/bench-tables.py`): the page table
/// (kind × corpus) and the size table (one row a corpus). The framework runs each benchmark in a process of its own
/// and prints one table per benchmark; these lines gather the figures across them.
///
/// Each call appends one JSON line to the file `SPOTLITE_BENCH_SUMMARY` names, and does nothing when it is unset, so
/// a benchmark run by hand is unchanged. Lines are appended whole (`O_APPEND`), as processes follow one another.
public enum Summary {
    static let path = ProcessInfo.processInfo.environment["SPOTLITE_BENCH_SUMMARY"].flatMap { $0.isEmpty ? nil : $0 }

    /// Records one sample: `table` and `row` say where it goes, `column` what it is; rows are printed by `order`
    /// (the benchmarks run in the order of their names, not the suite's).
    public static func record(table: String, row: String, order: Int, column: String, _ value: Double) {
        guard let path, value.isFinite else { return }
        let fields: [String: Any] = ["table": table, "row": row, "order": order, "column": column, "value": value]
        guard var line = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) else { return }
        line.append(UInt8(ascii: "\n"))
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// Starts the process's peak resident set over from its current size (Linux's `clear_refs` 5), so that
    /// ``peakResidentBytes()`` afterwards is the peak of what ran in between. False where the kernel refuses.
    @discardableResult
    public static func resetPeakResident() -> Bool {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return write(descriptor, "5", 1) == 1
    }

    /// The process's peak resident set (`VmHWM` in `/proc/self/status`), in bytes; nil where it cannot be read.
    public static func peakResidentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kilobytes = Int(fields[1]) else { return nil }
            return kilobytes.multipliedReportingOverflow(by: 1_024).overflow ? nil : kilobytes * 1_024
        }
        return nil
    }
}
