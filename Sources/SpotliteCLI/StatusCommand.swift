import ArgumentParser
import Foundation
import Indexer
import SpotliteJSON

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the store and index: paths, UUID, counts, cursor, and how far behind the index is."
    )

    @OptionGroup var options: StoreOptions

    @Option(help: "text or json.")
    var format: ReportFormat = .text

    func run() throws {
        let status = try running { try options.openIndexer(forReading: true).status() }
        // The remote stores named here, and how current their replicas are (a catalog that cannot be read is
        // every store command's error, not this one's).
        let now = Date()
        let replicas = ((try? StoreCatalog.load())?.entries ?? []).compactMap { entry in
            entry.replica.map { (store: entry.name, directory: $0.directory, status: $0.status()) }
        }
        if format == .json {
            Output.line(StatusJSON.status(status, replicas: replicas, now: now).text)
            return
        }
        Output.line("store:      \(status.storePath)")
        Output.line("store uri:  tracker://\(status.storeID)")
        Output.line("index:      \(status.indexPath)")
        Output.line("projects:   \(status.projects)")
        Output.line("items:      \(status.items)")
        Output.line("messages:   \(status.messages)")
        Output.line("documents:  \(status.indexedDocuments.map(String.init) ?? "none (no index)")")
        let cursor = status.cursor.map(String.init) ?? "none"
        Output.line("changes:    last \(status.lastChange), index cursor \(cursor)")
        if let behind = status.changesBehind {
            let age = status.oldestPendingAge.map { ", the oldest logged \($0) s ago" } ?? ""
            let remedy = status.watcher != nil ? "spotlite watch is applying them" : "run `spotlite index`"
            Output.line("behind:     \(behind == 0 ? "up to date" : "\(count(behind, "change"))\(age) (\(remedy))")")
        }
        if let problem = status.indexProblem {
            Output.line("problem:    \(problem)")
        }
        if let reason = status.needsRebuild, status.indexProblem == nil {
            Output.line("rebuild:    needed — \(reason) (`spotlite index` will rebuild)")
        }
        if let watcher = status.watcher, let writer = status.writer {
            Output.line("watcher:    process \(watcher) keeps the index live (\(writer.purpose))")
        } else if let writer = status.writer {
            Output.line("writer:     process \(writer.pid) (\(writer.purpose))")
        }
        if let state = status.writerState {
            Output.line("trouble:    \(state)")
        }
        if status.writer == nil {
            Output.line("watcher:    none (searches catch the index up; `spotlite watch` keeps it live)")
        }
        for replica in replicas {
            let copy = replica.status
            var said =
                copy.copiedAt.map { "copied \(String(format: "%.1f", now.timeIntervalSince($0))) s ago" }
                ?? "no copy yet (`spotlite replica --store \(replica.store)`)"
            if let behind = copy.changesBehind { said += ", \(count(Int(behind), "change")) behind its primary" }
            if let error = copy.error { said += "; the last copy failed: \(error)" }
            Output.line("replica:    \(replica.store) from \(copy.from): \(said)")
        }
    }
}

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Compare the store with the index: missing, stale and extra documents. Exit 0 only if none.",
        discussion: """
            Every store row is compared with its index document by a fingerprint of what is indexed. \
            --repair re-indexes missing and stale rows and deletes extra documents, then checks again. \
            Exit status 0 when clean, 1 when differences remain.
            """
    )

    @OptionGroup var options: StoreOptions

    @Flag(help: "Fix what is found (takes the index's write lock).")
    var repair = false

    @Option(help: "text or json.")
    var format: ReportFormat = .text

    func run() throws {
        let report = try running { try options.openIndexer().verify(repair: repair) }
        if format == .json {
            Output.line(
                JSON.object([
                    ("clean", .bool(report.isClean)),
                    ("store_rows", .int(report.storeRows)),
                    ("index_documents", report.indexDocuments.map { .int($0) } ?? .null),
                    ("changes_behind", .int(report.changesBehind)),
                    ("repaired", .int(report.repaired)),
                    ("damage", report.damage.map { .string($0) } ?? .null),
                    ("rebuilt", report.rebuilt.map { .string($0) } ?? .null),
                    ("missing", .array(report.missing.map { .string($0) })),
                    ("stale", .array(report.stale.map { .string($0) })),
                    ("extra", .array(report.extra.map { .string($0) })),
                    (
                        "dangling_links",
                        .array(
                            report.danglingLinks.map { link in
                                .object([
                                    ("from", .string(link.from)), ("kind", .string(link.kind)),
                                    ("to", .string(link.to)),
                                ])
                            })
                    ),
                ]).text)
        } else {
            for uri in report.missing { Output.line("missing  \(uri)") }
            for uri in report.stale { Output.line("stale    \(uri)") }
            for uri in report.extra { Output.line("extra    \(uri)") }
            for link in report.danglingLinks { Output.line("dangling \(link.from) \(link.kind) \(link.to)") }
            if !report.danglingLinks.isEmpty {
                Output.line(
                    "note: \(count(report.danglingLinks.count, "link")) to deleted items; the store keeps them, "
                        + "`spotlite edit URI --unlink KIND=TARGET` removes one")
            }
            if let damage = report.damage {
                Output.line("damaged  \(damage)")
                Output.line(
                    "note: `spotlite verify --repair` (or `spotlite index --rebuild`) rebuilds it from the store")
            }
            if let reason = report.rebuilt { Output.line("rebuilt the index: \(reason)") }
            if report.repaired > 0 { Output.line("repaired \(count(report.repaired, "document"))") }
            let verdict =
                report.isClean
                ? "clean"
                : report.damage != nil
                    ? "the index is damaged"
                    : "\(report.missing.count) missing, \(report.stale.count) stale, \(report.extra.count) extra"
            let documents = report.indexDocuments.map { count($0, "index document") } ?? "index documents uncounted"
            Output.line("verify: \(count(report.storeRows, "store row")), \(documents): \(verdict)")
            if report.changesBehind > 0 && !report.isClean {
                Output.line(
                    "note: the index is \(count(report.changesBehind, "change")) behind; `spotlite index` applies them")
            }
        }
        if !report.isClean { throw ExitCode(ErrorCode.noResults.rawValue) }
    }
}
