import ArgumentParser
import Foundation
import Indexer

struct IndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Bring the index up to date with the store (or rebuild it).",
        discussion: """
            Applies the store's change log since the index's cursor, in batches each committed with its cursor. \
            A missing index, another store's index, an old layout or a pruned log makes a full rebuild, built in \
            a fresh directory and swapped in atomically. Waits up to --wait seconds for another writer; while \
            `spotlite watch` keeps the index live, waits for it to apply what the store holds instead. Applied \
            changes beyond the newest --keep-log are then pruned from the store's change log.
            """
    )

    @OptionGroup var options: StoreOptions

    @Flag(help: "Build a fresh index from the store and swap it in atomically.")
    var rebuild = false

    @Option(help: ArgumentHelp("Seconds to wait for another writer before giving up.", valueName: "seconds"))
    var wait: Double = StoreIndexer.defaultLockTimeout

    @Option(help: ArgumentHelp("Changes applied per commit.", valueName: "n"))
    var batchSize: Int = StoreIndexer.defaultBatchSize

    @Option(help: ArgumentHelp("Applied changes to keep in the store's change log.", valueName: "n"))
    var keepLog: Int = Int(StoreIndexer.defaultLogRetention)

    func validate() throws {
        if keepLog < 0 { throw ValidationError("--keep-log must be 0 or more") }
        if batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
        if wait < 0 { throw ValidationError("--wait must be 0 or more seconds") }
    }

    func run() throws {
        try running {
            let indexer = try options.openIndexer()
            let started = Date()
            let report: StoreIndexer.Report
            let meter = ProgressMeter()
            do {
                defer { Output.progress(nil) }  // the progress line goes before anything else is said
                report =
                    rebuild
                    ? try indexer.rebuild(lockTimeout: wait, progress: meter.show)
                    : try indexer.catchUp(lockTimeout: wait, batchSize: batchSize) { progress in
                        // A catch-up of one commit is quick: no progress line.
                        guard progress.work == .rebuilding || progress.total > batchSize else { return }
                        meter.show(progress)
                    }
            }
            let seconds = String(format: "%.2f", Date().timeIntervalSince(started))
            for skipped in report.skipped {
                Output.note("spotlite: warning: skipped \(skipped.uri): \(skipped.reason)")
            }
            if let watcher = report.keptLiveBy {
                let holder = report.keptLiveByPurpose ?? StoreIndexer.watchPurpose
                Output.line("index is kept live by \(holder) (process \(watcher)); cursor \(report.cursor)")
                return
            }
            try indexer.pruneAppliedChanges(through: report.cursor, keeping: Int64(keepLog))
            if let reason = report.rebuildReason {
                Output.line(
                    "rebuilt \(indexer.location.root): \(count(report.documentsWritten, "document")) in \(seconds) s (\(reason)); "
                        + "cursor \(report.cursor)")
            } else if report.changesApplied == 0 {
                Output.line("index is up to date (cursor \(report.cursor))")
            } else {
                Output.line(
                    "applied \(count(report.changesApplied, "change")) (\(count(report.documentsWritten, "document")), "
                        + "\(count(report.batches, "commit"))) in \(seconds) s; cursor \(report.cursor)")
            }
        }
    }
}
