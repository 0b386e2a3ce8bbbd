import Benchmark
import BenchmarkSupport
import Foundation
import Indexer
import Logging
import SearchIndex
import SpotliteJSON
import TrackerStore

// Spotlite's benchmarks. Every comparison runs Spotlite and its baselines (raw Xapian through the C API,
// SQLite FTS5 in the same store) in the same iteration on the same data, and records the ratio of that
// iteration: on a shared, noisy machine the ratios' medians are what to compare, not absolute times.
//
// wallClock is Spotlite's own part (between startMeasurement and stopMeasurement); the baselines' times and
// the ratios are custom metrics: "… ms" / "… µs" times, "… %" ratios where 100 % means equal and less is
// faster for Spotlite.
//
// SPOTLITE_BENCH=short (CI) runs the 10k synthetic corpus only, a few iterations each, and not the search as a
// process (which needs the release binary of `make build`).

let short = ProcessInfo.processInfo.environment["SPOTLITE_BENCH"] == "short"
let searchCorpora: [Corpus] = short ? [.synthetic(10_000)] : [.debian, .synthetic(100_000), .zipf(100_000)]
let freshnessCorpora: [Corpus] = short ? [.synthetic(10_000)] : [.debian, .synthetic(10_000)]

func metric(_ name: String, larger: Bool = false) -> BenchmarkMetric {
    .custom(name, polarity: larger ? .prefersLarger : .prefersSmaller, useScalingFactor: false)
}

func percent(_ part: Double, of whole: Double) -> Int { whole > 0 ? Int((part / whole * 100).rounded()) : 0 }

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock], timeUnits: .milliseconds, warmupIterations: 0, maxDuration: .seconds(120),
        maxIterations: short ? 3 : 5)

    let rebuildCorpora: [Corpus] =
        short
        ? [.synthetic(10_000)]
        : [.debian, .synthetic(10_000), .synthetic(100_000), .dictionary(100_000), .zipf(100_000)]
    for corpus in rebuildCorpora { rebuildBenchmark(corpus) }
    importBenchmark(short ? .synthetic(10_000) : .synthetic(100_000))
    catchUpBenchmark()
    bulkCatchUpBenchmark()
    if !short { searchProcessBenchmark() }
    for corpus in freshnessCorpora { freshnessBenchmark(corpus) }
    for corpus in searchCorpora { searchBenchmarks(corpus) }
    for corpus in searchCorpora { pageBenchmarks(corpus) }
    manyStoresBenchmarks()
}

// MARK: - Indexing

/// A full rebuild from the store: Spotlite's default (measured: a shard per core merged by compaction), then
/// its single writer, raw Xapian and FTS5 on the same rows.
func rebuildBenchmark(_ corpus: Corpus) {
    let documents = metric("documents/s", larger: true)
    let single = metric("single writer ms")
    let xapian = metric("raw Xapian ms")
    let fts5 = metric("FTS5 ms")
    let versusXapian = metric("Spotlite/Xapian %")
    let singleVersusXapian = metric("single/Xapian %")
    let versusFTS5 = metric("Spotlite/FTS5 %")
    let size = metric("index MB")
    let sizeVersusText = metric("index/text %")
    Benchmark(
        "Rebuild \(corpus)",
        configuration: .init(
            metrics: [
                .wallClock, .peakMemoryResident, documents, single, xapian, fts5, versusXapian, singleVersusXapian,
                versusFTS5, size, sizeVersusText,
            ],
            maxDuration: .seconds(corpus.isLarge ? 600 : 120), maxIterations: corpus.isLarge ? 3 : (short ? 3 : 5))
    ) { benchmark in
        let fixture = try Fixture.prepared(corpus)
        let store = try fixture.openStore()
        let scratch = fixture.scratchDirectory("rebuild")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let indexer = StoreIndexer(store: store, indexPath: scratch + "/index")
        var report: StoreIndexer.Report?
        // Each build starts with the page cache written back: the previous build's unsynced files (hundreds
        // of megabytes at 100k) would otherwise be flushed during the next one and slow whichever comes next.
        sync()
        let peakReset = Summary.resetPeakResident()
        benchmark.startMeasurement()
        let spotlite = try milliseconds { report = try indexer.rebuild() }
        benchmark.stopMeasurement()
        let peak = peakReset ? Summary.peakResidentBytes() : nil
        let oneWriter = StoreIndexer(store: store, indexPath: scratch + "/single")
        sync()
        let singleTime = try milliseconds { try oneWriter.rebuild(options: .singleWriter) }
        sync()
        let raw = try milliseconds { try RawXapian.build(store: store, at: scratch + "/raw") }
        let fts = try FTS5(storePath: fixture.storePath)
        sync()
        let full = try milliseconds { try fts.rebuild() }
        try fts.drop()
        let indexBytes = directorySize(scratch + "/index")
        benchmark.measurement(documents, Int(Double(report?.documentsWritten ?? 0) / spotlite * 1_000))
        benchmark.measurement(single, Int(singleTime))
        benchmark.measurement(xapian, Int(raw))
        benchmark.measurement(fts5, Int(full))
        benchmark.measurement(versusXapian, percent(spotlite, of: raw))
        benchmark.measurement(singleVersusXapian, percent(singleTime, of: raw))
        benchmark.measurement(versusFTS5, percent(spotlite, of: full))
        benchmark.measurement(size, indexBytes / 1_000_000)
        let text = try textOf(store)
        benchmark.measurement(sizeVersusText, percent(Double(indexBytes), of: Double(text.bytes)))
        guard benchmark.currentIteration >= benchmark.configuration.warmupIterations else { return }
        let (row, order) = ("\(corpus)", corpus.summaryOrder)
        Summary.record(table: "size", row: row, order: order, column: "items", Double(text.items))
        Summary.record(table: "size", row: row, order: order, column: "text bytes", Double(text.bytes))
        Summary.record(table: "size", row: row, order: order, column: "index bytes", Double(indexBytes))
        Summary.record(table: "size", row: row, order: order, column: "rebuild ms", spotlite)
        if let peak { Summary.record(table: "size", row: row, order: order, column: "peak RSS bytes", Double(peak)) }
    }
}

/// The bytes of every title and detail in the store, the raw text an index is compared with, and its items.
func textOf(_ store: TrackerStore) throws -> (bytes: Int, items: Int) {
    try store.read { reader in
        var total = try reader.allProjects().reduce(0) { $0 + $1.title.utf8.count + $1.detail.utf8.count }
        var items = 0
        try reader.forEachItem {
            total += $0.title.utf8.count + $0.detail.utf8.count
            items += 1
        }
        return (total, items)
    }
}

/// Importing the corpus's JSON Lines into a new store (parse, validate, insert, log).
func importBenchmark(_ corpus: Corpus) {
    let items = metric("items/s", larger: true)
    Benchmark("Import \(corpus)", configuration: .init(metrics: [.wallClock, .peakMemoryResident, items])) {
        benchmark in
        let data = try corpus.jsonLines()
        let directory = NSTemporaryDirectory() + "spotlite-import-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try TrackerStore.create(at: directory + "/tracker.sqlite")
        var summary: ImportSummary?
        benchmark.startMeasurement()
        let elapsed = try milliseconds { summary = try store.importJSONLines(data) }
        benchmark.stopMeasurement()
        let count = (summary?.itemsAdded ?? 0) + (summary?.projectsAdded ?? 0)
        benchmark.measurement(items, Int(Double(count) / elapsed * 1_000))
    }
}

/// Applying 1,000 mixed changes (edits, completions, inserts, deletes) from the change log.
func catchUpBenchmark() {
    Benchmark("Catch-up 1,000 mixed changes (synthetic 10k)", configuration: .init(maxIterations: short ? 3 : 10)) {
        benchmark in
        let fixture = try Fixture.prepared(.synthetic(10_000)).scratchCopy()
        defer { fixture.remove() }
        let store = try fixture.openStore()
        let indexer = StoreIndexer(store: store, indexPath: fixture.indexPath)
        try MixedChanges.apply(1_000, to: store, seed: 42)
        benchmark.startMeasurement()
        let report = try indexer.catchUp()
        benchmark.stopMeasurement()
        precondition(report.rebuildReason == nil && report.changesApplied >= 1_000)
    }
}

/// The bulk case: a store of the 45 sample rows, indexed, then the Debian corpus imported (9,895 changes), then
/// `spotlite index`. Spotlite's catch-up (which rebuilds a backlog of half the store or more) next to a rebuild of
/// the same store (the two in alternating order), and to the catch-up forced through the change log, with the
/// documents that wrote.
func bulkCatchUpBenchmark() {
    let rebuildTime = metric("rebuild ms")
    let forcedTime = metric("forced catch-up ms")
    let versusRebuild = metric("catch-up/rebuild %")
    let forcedVersusRebuild = metric("forced/rebuild %")
    let forcedDocuments = metric("forced documents/change %")
    Benchmark(
        "Catch-up after importing the Debian corpus into a small indexed store",
        configuration: .init(
            metrics: [.wallClock, rebuildTime, forcedTime, versusRebuild, forcedVersusRebuild, forcedDocuments],
            maxIterations: short ? 1 : 5)
    ) { benchmark in
        let directory = NSTemporaryDirectory() + "spotlite-bulk-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let corpus = try Corpus.debian.jsonLines()
        let samples = try Data(contentsOf: URL(fileURLWithPath: Fixture.repositoryRoot + "/samples/portfolio.jsonl"))
        func prepared(_ name: String) throws -> StoreIndexer {
            let store = try TrackerStore.create(at: directory + "/\(name).sqlite")
            _ = try store.importJSONLines(samples)
            let indexer = StoreIndexer(store: store, indexPath: directory + "/\(name)-index")
            try indexer.catchUp()
            _ = try store.importJSONLines(corpus)
            return indexer
        }
        let spotlite = try prepared("spotlite")
        let rebuilt = try prepared("rebuilt")
        let forced = try prepared("forced")
        func timedCatchUp() throws -> Double {
            sync()
            benchmark.startMeasurement()
            defer { benchmark.stopMeasurement() }
            return try milliseconds { try spotlite.catchUp() }
        }
        func timedRebuild() throws -> Double {
            sync()
            return try milliseconds { try rebuilt.rebuild() }
        }
        // Which of the two goes first alternates from one iteration to the next, so that neither always runs on
        // the caches and page-cache state the other left.
        var caughtUp = 0.0
        var rebuild = 0.0
        if benchmark.currentIteration % 2 == 0 {
            caughtUp = try timedCatchUp()
            rebuild = try timedRebuild()
        } else {
            rebuild = try timedRebuild()
            caughtUp = try timedCatchUp()
        }
        sync()
        var report: StoreIndexer.Report?
        let forcing = try milliseconds { report = try forced.catchUp(rebuildShare: .infinity) }
        benchmark.measurement(rebuildTime, Int(rebuild))
        benchmark.measurement(forcedTime, Int(forcing))
        benchmark.measurement(versusRebuild, percent(caughtUp, of: rebuild))
        benchmark.measurement(forcedVersusRebuild, percent(forcing, of: rebuild))
        let changes = Double(report?.changesApplied ?? 0)
        benchmark.measurement(forcedDocuments, percent(Double(report?.documentsWritten ?? 0), of: changes))
    }
}

/// `spotlite search WORD --format ids` as a whole process on the Debian corpus (the release binary `make build`
/// makes: process start, store and index open, the search, the output), next to `spotlite --version` (process
/// start alone). Skipped, with a note, when the binary is missing.
func searchProcessBenchmark() {
    let startOnly = metric("--version µs")
    Benchmark(
        "Search as a process, spotlite search WORD --format ids (Debian corpus)",
        configuration: .init(
            metrics: [.wallClock, startOnly], timeUnits: .microseconds, warmupIterations: 10,
            maxDuration: .seconds(20), maxIterations: short ? 50 : 300)
    ) { benchmark in
        let binary = Fixture.repositoryRoot + "/.build/release/spotlite"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            print("no \(binary): run `make build` first (make bench does)")
            return
        }
        let fixture = try Fixture.prepared(.debian)
        let words = ["dpkg", "security", "upload", "translation", "fix"]
        let word = words[Int.random(in: 0..<words.count)]
        let arguments = ["--store", fixture.storePath, "--index", fixture.indexPath, "search", word, "--format", "ids"]
        benchmark.startMeasurement()
        try ProcessTimer.run(binary, arguments)
        benchmark.stopMeasurement()
        benchmark.measurement(startOnly, Int(try microseconds { try ProcessTimer.run(binary, ["--version"]) }))
    }
}

// MARK: - Freshness

/// One edit committed to the store → found by a search, through `spotlite watch`'s loop running in this
/// process; the catch-up path (edit, catch up, search) alongside. Baselines on a copy of their own: FTS5
/// (the edit and the full-text update in one commit, by FTS5's external-content triggers, then a search) and
/// raw Xapian (the document replaced and committed, the reader reopened, a search).
func freshnessBenchmark(_ corpus: Corpus) {
    let catchUpPath = metric("catch-up path µs")
    let fts5Time = metric("FTS5 µs")
    let xapianTime = metric("raw Xapian µs")
    let versusFTS5 = metric("Spotlite/FTS5 %")
    let versusXapian = metric("Spotlite/Xapian %")
    Benchmark(
        "Freshness: edit → searchable via watch (\(corpus))",
        configuration: .init(
            metrics: [.wallClock, catchUpPath, fts5Time, xapianTime, versusFTS5, versusXapian],
            timeUnits: .microseconds, warmupIterations: 3, maxDuration: .seconds(30), maxIterations: short ? 50 : 300,
            setup: { try FreshnessRig.start(corpus) }, teardown: { FreshnessRig.stop() })
    ) { benchmark in
        let rig = FreshnessRig.current!
        let word = rig.nextWord()
        benchmark.startMeasurement()
        let spotlite = try microseconds {
            try rig.store.updateItem(id: rig.item.id, ItemChanges(title: "edited \(word)"))
            try rig.waitUntilSearchable(word)
        }
        benchmark.stopMeasurement()
        // The path without a watcher, on a second copy: edit, catch up, search.
        let other = rig.nextWord()
        let elapsed = try microseconds {
            try rig.plainStore.updateItem(id: rig.item.id, ItemChanges(title: "edited \(other)"))
            try rig.plainIndexer.catchUp()
            let found = try rig.plainIndexer.search(other).total
            precondition(found == 1)
        }
        benchmark.measurement(catchUpPath, Int(elapsed))
        let fts5Word = rig.nextWord()
        let fts5 = try microseconds {
            try rig.baselineStore.updateItem(id: rig.item.id, ItemChanges(title: "edited \(fts5Word)"))
            let found = try rig.fts5.search(fts5Word).count
            precondition(found == 1)
        }
        benchmark.measurement(fts5Time, Int(fts5))
        benchmark.measurement(versusFTS5, percent(spotlite, of: fts5))
        let rawWord = rig.nextWord()
        var edited = rig.item
        edited.title = "edited \(rawWord)"
        let raw = try microseconds {
            try rig.rawWriter.replace(edited, in: rig.project)
            try rig.rawSearcher.reopen()
            let found = try rig.rawSearcher.search(rawWord).count
            precondition(found == 1)
        }
        benchmark.measurement(xapianTime, Int(raw))
        benchmark.measurement(versusXapian, percent(spotlite, of: raw))
    }
}

/// A watcher on a scratch copy of a corpus, a second copy without one, and a third with the baselines.
final class FreshnessRig: @unchecked Sendable {
    nonisolated(unsafe) static var current: FreshnessRig?

    let fixture: Fixture
    let plainFixture: Fixture
    let baselineFixture: Fixture
    let store: TrackerStore
    let plainStore: TrackerStore
    let plainIndexer: StoreIndexer
    let baselineStore: TrackerStore
    let fts5: FTS5
    let rawWriter: RawXapian.Writer
    let rawSearcher: RawXapian.Searcher
    let watcher: IndexWatcher
    /// The item every iteration edits, and its project.
    let item: Item
    let project: Project?
    var counter = 0
    let thread: Thread

    static func start(_ corpus: Corpus) throws {
        current = try FreshnessRig(corpus)
    }

    static func stop() {
        current?.watcher.stop()
        while current?.thread.isFinished == false { usleep(1_000) }
        try? current?.fts5.drop()
        current?.fixture.remove()
        current?.plainFixture.remove()
        current?.baselineFixture.remove()
        current = nil
    }

    init(_ corpus: Corpus) throws {
        let prepared = try Fixture.prepared(corpus)
        fixture = try prepared.scratchCopy()
        plainFixture = try prepared.scratchCopy()
        baselineFixture = try prepared.scratchCopy()
        store = try fixture.openStore()
        plainStore = try plainFixture.openStore()
        plainIndexer = StoreIndexer(store: plainStore, indexPath: plainFixture.indexPath)
        baselineStore = try baselineFixture.openStore()
        (item, project) = try store.read { reader in
            var first: Item?
            try reader.forEachItem { if first == nil { first = $0 } }
            return (first!, try reader.allProjects().first { $0.id == first!.projectID })
        }
        fts5 = try FTS5(storePath: baselineFixture.storePath)
        try fts5.rebuild()
        try fts5.followWrites()
        let rawPath = baselineFixture.directory + "/raw-freshness"
        try RawXapian.build(store: baselineStore, at: rawPath)
        rawWriter = try RawXapian.Writer(path: rawPath, storeUUID: baselineStore.uuid)
        rawSearcher = try RawXapian.Searcher(path: rawPath)
        let logger = Logger(label: "benchmark", factory: { _ in SwiftLogNoOpLogHandler() })
        let watcher = try IndexWatcher(
            indexer: StoreIndexer(store: store, indexPath: fixture.indexPath), logger: logger, lockTimeout: 10)
        self.watcher = watcher
        thread = Thread { try? watcher.watch() }
        thread.start()
    }

    func nextWord() -> String {
        counter += 1
        return "zqfresh\(counter)x\(getpid())"
    }

    /// Polls a reader (reopened each time) until `word` finds the item.
    func waitUntilSearchable(_ word: String) throws {
        let reader = try SearchReader(path: fixture.indexPath)
        let query = try SearchQueryParser().parse(word)
        while try reader.search(query, SearchRequest(limit: 1)).total == 0 {
            usleep(200)
            try reader.reopen()
        }
    }
}

// MARK: - Search

/// Top-20 with resolution (each hit read back from the store), snippets off, through a ``SearchSession`` (the
/// index kept open, as an app would); the one-shot `StoreIndexer.search` (opens the index each time, as the
/// `spotlite search` command does) alongside. FTS5 joins back to `items`; raw Xapian returns the URIs from
/// document data.
func searchBenchmarks(_ corpus: Corpus) {
    let oneShot = metric("one-shot µs")
    let fts5Time = metric("FTS5 µs")
    let xapianTime = metric("raw Xapian µs")
    let versusFTS5 = metric("Spotlite/FTS5 %")
    let versusXapian = metric("Spotlite/Xapian %")
    for kind in QueryKind.all {
        var metrics: [BenchmarkMetric] = [.wallClock, oneShot]
        if kind.fts5 != nil { metrics += [fts5Time, versusFTS5] }
        if kind.xapian != nil { metrics += [xapianTime, versusXapian] }
        Benchmark(
            "Search \(kind.name) (\(corpus))",
            configuration: .init(
                metrics: metrics, timeUnits: .microseconds, warmupIterations: 10, maxDuration: .seconds(20),
                maxIterations: short ? 200 : 1_000,
                setup: { try SearchRig.start(corpus) }, teardown: { SearchRig.current = nil })
        ) { benchmark in
            let rig = SearchRig.current!
            let words = rig.nextWords()
            var options = SearchOptions()
            options.snippets = false
            options.request.limit = 20
            options.request.sort = kind.sort
            let text = kind.spotlite(words)
            benchmark.startMeasurement()
            let spotlite = try microseconds { blackHole(try rig.session.search(text, options: options).hits.count) }
            benchmark.stopMeasurement()
            benchmark.measurement(
                oneShot, Int(try microseconds { blackHole(try rig.indexer.search(text, options: options).hits.count) }))
            if let fts5 = kind.fts5 {
                let query = fts5(words)
                let elapsed = try microseconds {
                    blackHole(try rig.fts5.search(query.match, extra: query.extra, orderBy: query.order))
                }
                benchmark.measurement(fts5Time, Int(elapsed))
                benchmark.measurement(versusFTS5, percent(spotlite, of: elapsed))
            }
            if let xapian = kind.xapian {
                let query = xapian(words)
                let elapsed = try microseconds { blackHole(try rig.raw.search(query)) }
                benchmark.measurement(xapianTime, Int(elapsed))
                benchmark.measurement(versusXapian, percent(spotlite, of: elapsed))
            }
        }
    }
}

/// The page `serve` answers `/v1/search` with, minus HTTP: 20 hits with snippets through a ``SearchSession``,
/// written as the answer's JSON bytes; the same query for one hit alongside, whose difference over 19 is the cost of
/// a hit (its row, snippet and JSON); FTS5's page (the rows and `snippet()` of each detail) as the baseline.
func pageBenchmarks(_ corpus: Corpus) {
    let oneHit = metric("1-hit page µs")
    let perHit = metric("per hit µs")
    let fts5Time = metric("FTS5 page µs")
    let versusFTS5 = metric("page Spotlite/FTS5 %")
    // CI's short run: two kinds (each benchmark's setup builds the FTS5 table and reads the corpus's words again).
    for (index, kind) in QueryKind.all.enumerated() where !short || ["word", "phrase"].contains(kind.name) {
        var metrics: [BenchmarkMetric] = [.wallClock, oneHit, perHit]
        if kind.fts5 != nil { metrics += [fts5Time, versusFTS5] }
        let row = "\(kind.name) (\(corpus))"
        let order = index * 10 + corpus.summaryOrder
        Benchmark(
            "Page \(row)",
            configuration: .init(
                metrics: metrics, timeUnits: .microseconds, warmupIterations: 10, maxDuration: .seconds(20),
                maxIterations: short ? 100 : 1_000,
                setup: { try SearchRig.start(corpus) }, teardown: { SearchRig.current = nil })
        ) { benchmark in
            let rig = SearchRig.current!
            let words = rig.nextWords()
            var options = SearchOptions()
            options.request.limit = 20
            options.request.sort = kind.sort
            let text = kind.spotlite(words)
            benchmark.startMeasurement()
            let page = try microseconds {
                blackHole(SearchJSON.outcome(try rig.session.search(text, options: options)).line())
            }
            benchmark.stopMeasurement()
            options.request.limit = 1
            let one = try microseconds {
                blackHole(SearchJSON.outcome(try rig.session.search(text, options: options)).line())
            }
            let hitCost = max(0, (page - one) / 19)
            benchmark.measurement(oneHit, Int(one))
            benchmark.measurement(perHit, Int(hitCost))
            let counted = benchmark.currentIteration >= benchmark.configuration.warmupIterations
            if counted {
                Summary.record(table: "page", row: row, order: order, column: "page µs", page)
                Summary.record(table: "page", row: row, order: order, column: "per hit µs", hitCost)
            }
            if let fts5 = kind.fts5 {
                let query = fts5(words)
                let elapsed = try microseconds {
                    blackHole(try rig.fts5.searchPage(query.match, extra: query.extra, orderBy: query.order))
                }
                benchmark.measurement(fts5Time, Int(elapsed))
                benchmark.measurement(versusFTS5, percent(page, of: elapsed))
                if counted { Summary.record(table: "page", row: row, order: order, column: "FTS5 page µs", elapsed) }
            }
        }
    }
}

/// A search across three stores of 10k items each (`search --stores`: one Xapian multi-database, hits resolved in
/// their stores, copies collapsed) against the same search on one store of all 30k items, both as the command runs
/// them (one-shot: stores and indexes opened for each search), in the same iteration.
func manyStoresBenchmarks() {
    let oneStore = metric("one 30k store µs")
    let versusOne = metric("3 stores/1 store %")
    let kinds = QueryKind.all.filter {
        short ? $0.name == "word" : ["word", "two-word AND", "OR", "phrase"].contains($0.name)
    }
    for kind in kinds {
        Benchmark(
            "Search \(kind.name) across 3 stores (3 × synthetic 10k) vs one 30k store",
            configuration: .init(
                metrics: [.wallClock, oneStore, versusOne], timeUnits: .microseconds, warmupIterations: 5,
                maxDuration: .seconds(20), maxIterations: short ? 100 : 500,
                setup: { try ManyStoresRig.start() }, teardown: { ManyStoresRig.current = nil })
        ) { benchmark in
            let rig = ManyStoresRig.current!
            let text = kind.spotlite(rig.words.next())
            var options = SearchOptions()
            options.snippets = false
            options.request.limit = 20
            benchmark.startMeasurement()
            let across = try microseconds { blackHole(try rig.stores.search(text, options: options).hits.count) }
            benchmark.stopMeasurement()
            let one = try microseconds { blackHole(try rig.whole.search(text, options: options).hits.count) }
            benchmark.measurement(oneStore, Int(one))
            benchmark.measurement(versusOne, percent(across, of: one))
        }
    }
}

final class ManyStoresRig: @unchecked Sendable {
    nonisolated(unsafe) static var current: ManyStoresRig?

    let stores: StoreSet
    let whole: StoreIndexer
    var words: QueryWordSource

    static func start() throws { current = try ManyStoresRig() }

    init() throws {
        let split = try SplitFixture.prepared(.synthetic(30_000), parts: 3)
        let parts = zip(split.storePaths, split.indexPaths).enumerated().map { index, paths in
            StoreSet.Member(name: "part-\(index)") {
                StoreIndexer(store: try TrackerStore.open(at: paths.0), indexPath: paths.1)
            }
        }
        stores = StoreSet(members: parts)
        let store = try split.whole.openStore()
        whole = StoreIndexer(store: store, indexPath: split.whole.indexPath)
        words = try QueryWordSource(store: store, synthetic: true)
    }
}

/// The search corpus with its index, an FTS5 table beside it and a raw Xapian database of the same rows.
final class SearchRig: @unchecked Sendable {
    nonisolated(unsafe) static var current: SearchRig?

    let fixture: Fixture
    let indexer: StoreIndexer
    let session: SearchSession
    let fts5: FTS5
    let raw: RawXapian.Searcher
    var words: QueryWordSource

    static func start(_ corpus: Corpus) throws { current = try SearchRig(corpus) }

    init(_ corpus: Corpus) throws {
        fixture = try Fixture.prepared(corpus)
        let store = try fixture.openStore()
        indexer = StoreIndexer(store: store, indexPath: fixture.indexPath)
        session = SearchSession(indexer)
        fts5 = try FTS5(storePath: fixture.storePath)
        try fts5.rebuild()
        let rawPath = fixture.directory + "/raw-xapian"
        if !FileManager.default.fileExists(atPath: rawPath + "/iamglass") {
            try RawXapian.build(store: store, at: rawPath)
        }
        raw = try RawXapian.Searcher(path: rawPath)
        let synthetic = if case .synthetic = corpus { true } else { false }
        words = try QueryWordSource(store: store, synthetic: synthetic)
    }

    deinit { try? fts5.drop() }

    /// Words for the next query.
    func nextWords() -> QueryWords { words.next() }
}

// MARK: - Helpers

extension Corpus {
    /// Where the corpus's rows go in the summary tables: Debian, then the synthetic, dictionary and shared corpora.
    var summaryOrder: Int {
        switch self {
        case .debian: return 0
        case .synthetic(let items): return items < 100_000 ? 1 : 2
        case .dictionary: return 3
        case .zipf: return 4
        }
    }

    var isLarge: Bool {
        switch self {
        case .synthetic(let items), .dictionary(let items), .zipf(let items): return items >= 100_000
        case .debian: return false
        }
    }
}

func directorySize(_ path: String) -> Int {
    guard let enumerator = FileManager.default.enumerator(atPath: path) else { return 0 }
    var total = 0
    while let name = enumerator.nextObject() as? String {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path + "/" + name)
        total += (attributes?[.size] as? Int) ?? 0
    }
    return total
}
