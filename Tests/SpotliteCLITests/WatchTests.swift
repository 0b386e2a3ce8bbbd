import Foundation
import TestSupport
import Testing

/// A `spotlite watch` process on a CLI's store, logging at debug level to a file.
final class RunningWatch {
    let process: Process
    let logPath: String

    init(_ cli: CLI, _ arguments: String...) throws {
        logPath = cli.directory.file("watch-\(UUID().uuidString.prefix(8)).log")
        FileManager.default.createFile(atPath: logPath, contents: nil)
        process = try cli.start(
            ["watch", "--log-level", "debug"] + arguments, stderr: FileHandle(forWritingAtPath: logPath))
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var pid: Int { Int(process.processIdentifier) }
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Waits until the log holds `text`; false if the process exits first (or after a bound only a hang reaches).
    @discardableResult
    func waitForLog(_ text: String, times: Int = 1) -> Bool {
        func found() -> Bool { log.components(separatedBy: text).count - 1 >= times }
        _ = poll(within: 120) { found() || !process.isRunning }
        return found()
    }

    /// Waits for the process to exit on its own and returns its status; nil if it is still running after a
    /// bound only a hang reaches (``deinit`` then kills it).
    func waitForExit() -> Int32? {
        guard poll(within: 60, until: { !process.isRunning }) else { return nil }
        return process.terminationStatus
    }

    /// Checks `condition` every 5 ms until it holds (true) or `seconds` have passed (false).
    private func poll(within seconds: TimeInterval, until condition: () -> Bool) -> Bool {
        let bound = Date().addingTimeInterval(seconds)
        while Date() < bound {
            if condition() { return true }
            usleep(5_000)
        }
        return condition()
    }

    /// Waits until it watches (it has opened or built the index).
    func waitUntilWatching() -> Bool { waitForLog("watching the store for changes") }

    /// Sends `signal` and returns the exit status (or the signal's number if it was killed by it).
    func stop(_ signal: Int32 = SIGTERM) -> (status: Int32, exited: Bool) {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason == .exit)
    }
}

extension CLI {
    /// `spotlite index`, which returns once a running watcher has applied everything the store holds.
    func waitForWatcher() -> ProcessResult { self("index", "--wait", "120") }

    func statusJSON() -> [String: Any] {
        json(self("status", "--format", "json")) as? [String: Any] ?? [:]
    }

    func firstID(_ sql: String) -> String {
        sqlite(sql).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

@Suite struct WatchTests {
    @Test func changesFromEveryKindOfWriterBecomeSearchable() throws {
        let cli = CLI.withSamples()
        let watch = try RunningWatch(cli)
        #expect(watch.waitUntilWatching())

        // Our CLI: a search right after the write reads it (it waits for the watcher, briefly).
        let added = cli("add", "project", "Aquarium", "--detail", "the zebrafish tank")
        #expect(added.status == 0)
        let item = cli("add", "item", "--project", "Aquarium", "Feed the zebrafish", "--detail", "flakes twice a day")
        #expect(item.status == 0)
        #expect(cli("search", "zebrafish", "--format", "ids").stdoutLines.count == 2)

        // A plain sqlite3 shell.
        cli.sqlite("UPDATE items SET title = 'Feed the axolotl' WHERE title = 'Feed the zebrafish';")
        #expect(
            cli("search", "axolotl", "--format", "ids").stdoutLines == [item.stdout.trimmingCharacters(in: .newlines)])
        #expect(cli("search", "title:zebrafish", "--format", "ids").status == 1)
        cli.sqlite("DELETE FROM projects WHERE title = 'Aquarium';")
        #expect(cli("search", "axolotl OR zebrafish", "--format", "ids").status == 1)

        // The watcher is the writer; index and verify defer to it.
        let status = cli.statusJSON()
        #expect(status["watcher_pid"] as? Int == watch.pid)
        #expect(status["changes_behind"] as? Int == 0)
        #expect(cli("status").stdout.contains("watcher:    process \(watch.pid) keeps the index live"))
        let index = cli.waitForWatcher()
        #expect(index.status == 0)
        #expect(index.stdout.hasPrefix("index is kept live by spotlite watch (process \(watch.pid))"))
        #expect(cli("verify").status == 0)
        #expect(watch.log.contains("applied a batch"))
        #expect(watch.stop().status == 0)
    }

    @Test func aStoreFileReplacedByARenameIsFollowedAndAnotherStoresFileEndsTheWatch() throws {
        let cli = CLI.withSamples()
        let watch = try RunningWatch(cli)
        #expect(watch.waitUntilWatching())
        /// What a restore or a sync tool does: the new file renamed over the store, its old -wal and -shm
        /// removed first (as SQLite requires of anyone replacing a database file).
        func replaceStore(with file: String) {
            for suffix in ["-wal", "-shm"] { unlink(cli.storePath + suffix) }
            #expect(rename(file, cli.storePath) == 0)
        }

        let copy = cli.directory.file("copy.sqlite")
        #expect(cli.sqlite("VACUUM INTO '\(copy)';").status == 0)
        let project = cli.firstID("SELECT id FROM projects LIMIT 1;")
        let insert = "INSERT INTO items (project_id, title) VALUES ('\(project)', 'Restored from the copy');"
        #expect(TestSupport.run(["sqlite3", copy], input: Data(insert.utf8)).status == 0)

        // First a file that is no store: logged once, tried again at each wake, and the watch goes on.
        let garbage = cli.directory.file("garbage.sqlite")
        #expect(FileManager.default.createFile(atPath: garbage, contents: Data("not a database".utf8)))
        replaceStore(with: garbage)
        try #require(watch.waitForLog("the new one cannot be opened (will retry)"))
        usleep(2_500_000)  // two idle wakes
        #expect(watch.log.components(separatedBy: "cannot be opened").count == 2)

        replaceStore(with: copy)
        try #require(watch.waitForLog("the store file was replaced; reading the new one"))
        #expect(cli.waitForWatcher().status == 0)
        #expect(cli("search", "restored", "--format", "ids").stdoutLines.count == 1)
        #expect(cli("verify").status == 0)

        // Another store's file in its place: this index is not that store's, so the watch ends and says why.
        let other = CLI()
        #expect(other("init").status == 0)
        replaceStore(with: other.storePath)
        #expect(watch.waitForExit() == 5)
        #expect(watch.log.contains("was replaced by another store"))
    }

    @Test func oneWatcherPerIndexAndRebuildsRefuseNamingIt() throws {
        let cli = CLI.withSamples()
        let watch = try RunningWatch(cli)
        #expect(watch.waitUntilWatching())
        let second = cli("watch")
        #expect(second.status == 6)
        #expect(second.stderr.contains("already kept live by `spotlite watch` (process \(watch.pid))"))
        #expect(!second.stderr.contains("\n") || second.stderr.split(separator: "\n").count == 1)
        let rebuild = cli("index", "--rebuild")
        #expect(rebuild.status == 6)
        #expect(rebuild.stderr.contains("kept live by `spotlite watch` (process \(watch.pid))"))
        // A repair writes too: refused at once, though the index is clean and there would be nothing to repair.
        let repair = cli("verify", "--repair")
        #expect(repair.status == 6)
        #expect(repair.stderr.contains("kept live by `spotlite watch` (process \(watch.pid))"), "\(repair.stderr)")
        #expect(cli("verify").status == 0)
        #expect(watch.process.isRunning)
        #expect(watch.stop(SIGINT).status == 0)
        // Once it is gone the lock is free at once.
        #expect(cli.statusJSON()["writer_pid"] is NSNull)
        #expect(cli("index", "--rebuild", "--wait", "0").status == 0)
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalCommitsWholeBatchesReleasesTheLockAndExitsZero(signal: Int32) throws {
        let cli = CLI()
        #expect(cli("init").status == 0)
        let watch = try RunningWatch(cli, "--batch-size", "50")
        #expect(watch.waitUntilWatching())
        #expect(cli("import", "-", input: Repository.debianCorpusData).status == 0)
        #expect(watch.waitForLog("applied a batch"))
        let stopped = watch.stop(signal)
        #expect(stopped.exited && stopped.status == 0, "\(watch.log)")
        #expect(watch.log.contains("stopped"))
        let status = cli.statusJSON()
        #expect(status["writer_pid"] is NSNull)
        let cursor = try #require(status["cursor"] as? Int)
        #expect(cursor % 50 == 0 || cursor == status["last_change"] as? Int)  // whole batches only
        #expect(cli("index", "--wait", "0").status == 0)  // the lock is free
        #expect(cli("verify").status == 0)
    }

    @Test func searchesRunningEveryFewMillisecondsDuringHeavyIndexingAllSucceed() throws {
        let cli = CLI.withSamples()
        let watch = try RunningWatch(cli, "--batch-size", "100")
        #expect(watch.waitUntilWatching())
        let importing = DispatchGroup()
        DispatchQueue.global().async(group: importing) {
            _ = cli("import", "-", input: Repository.debianCorpusData)
        }
        var failures: [String] = []
        var searches = 0
        while importing.wait(timeout: .now()) == .timedOut || searches < 20 {
            let result = cli("search", "release OR upstream", "--format", "ids", "--limit", "5")
            if result.status != 0 && result.status != 1 { failures.append(result.stderr) }
            searches += 1
        }
        #expect(failures.isEmpty, "\(failures.prefix(3))")
        #expect(cli.waitForWatcher().status == 0)
        #expect(cli("verify").status == 0)
        #expect(watch.stop().status == 0)
    }

    @Test func appliedChangesArePrunedAndAnIndexThatNeededThemIsRebuilt() throws {
        let cli = CLI.withSamples()
        let otherIndex = cli.directory.file("other-index")
        #expect(cli("index", "--index", otherIndex).status == 0)  // at cursor 45, then left behind
        let watch = try RunningWatch(cli, "--keep-log", "20")
        #expect(watch.waitUntilWatching())
        let updates = (1...300).map { "UPDATE items SET priority = \($0 % 3 + 1) WHERE rowid = \($0 % 40 + 1);" }
        cli.sqlite(updates.joined(separator: "\n"))
        #expect(cli.waitForWatcher().status == 0)
        let remaining = try #require(Int(cli.firstID("SELECT count(*) FROM change_log;")))
        let prunedThrough = try #require(Int(cli.firstID("SELECT log_pruned_through FROM store_info;")))
        #expect(remaining < 345 && remaining <= 3 * 20 + 100, "\(remaining) entries left")
        #expect(prunedThrough > 45)
        #expect(cli("verify").status == 0)
        let other = cli("index", "--index", otherIndex)
        #expect(other.status == 0)
        #expect(other.stdout.contains("rebuilt") && other.stdout.contains("pruned"), "\(other.stdout)")
        #expect(cli("verify", "--index", otherIndex).status == 0)
        #expect(watch.stop().status == 0)
    }

    @Test func damagedIndexIsRebuiltFromTheStoreWhetherFoundOnOpenOrWhileRunning() throws {
        let cli = CLI.withSamples()
        let storeBefore = cli("export").stdout

        // Found on open: a truncated table file.
        try truncateTable(cli)
        let watch = try RunningWatch(cli)
        #expect(watch.waitUntilWatching())
        #expect(watch.log.contains("rebuilding the index from the store"))
        #expect(cli("verify").status == 0)

        // Found while running: the next write meets the damage.
        try truncateTable(cli)
        #expect(cli("add", "item", "--project", "Garden", "Oil the hinges").status == 0)
        #expect(watch.waitForLog("rebuilt the index", times: 2))
        #expect(cli.waitForWatcher().status == 0)
        #expect(cli("search", "hinges", "--format", "ids").stdoutLines.count == 1)
        #expect(cli("verify").status == 0)
        #expect(watch.stop().status == 0)

        // The store lost and gained nothing but the one item.
        let storeAfter = cli("export").stdoutLines.filter { !$0.contains("Oil the hinges") }
        #expect(storeAfter == storeBefore.split(separator: "\n").map(String.init))
    }

    /// Truncates the current generation's postlist table, as a failing disk or a stray `>` would.
    func truncateTable(_ cli: CLI) throws {
        let stub = try String(contentsOfFile: cli.indexPath + "/XAPIANDB", encoding: .utf8)
        let generation = try #require(stub.split(separator: " ").last?.trimmingCharacters(in: .newlines))
        #expect(truncate(cli.indexPath + "/" + generation + "/postlist.glass", 0) == 0)
    }

    @Test func badInputAtScaleIsIndexedOrSkippedAndTheWatcherGoesOn() throws {
        let cli = CLI.withSamples()
        let watch = try RunningWatch(cli)
        #expect(watch.waitUntilWatching())
        let project = cli.firstID("SELECT id FROM projects WHERE title = 'Garden';")
        cli.sqlite(
            """
            INSERT INTO items (project_id, title, detail)
                VALUES ('\(project)', 'megabyte detail', replace(hex(zeroblob(600000)), '00', 'hugeword '));
            INSERT INTO items (project_id, title, detail)
                VALUES ('\(project)', CAST(x'696e76616c6964c328ff2075746638' AS TEXT), 'broken ' || CAST(x'fffe' AS TEXT));
            INSERT INTO items (project_id, title, detail)
                VALUES ('\(project)', 'longword ' || replace(hex(zeroblob(400)), '00', 'x'), 'over the term limit');
            INSERT INTO items (project_id, title, detail)
                VALUES ('\(project)', 'control' || char(1, 2, 3, 7, 27) || 'characters', 'bell' || char(7) || 'tab' || char(9));
            """)
        #expect(cli.waitForWatcher().status == 0)
        #expect(watch.process.isRunning)
        for word in ["hugeword", "invalid", "longword", "characters"] {
            #expect(cli("search", word, "--format", "ids").stdoutLines.count == 1, "\(word)")
        }
        // It goes on applying ordinary changes.
        #expect(cli("add", "item", "--project", "Garden", "Plain item after the odd ones").status == 0)
        #expect(cli.waitForWatcher().status == 0)
        #expect(cli("search", "odd", "--format", "ids").stdoutLines.count == 1)
        #expect(cli("verify").status == 0)
        #expect(watch.stop().status == 0)
    }
}

/// Writers hammering the store while the watcher runs, is killed and restarted.
@Suite struct WatchUnderLoadTests {
    /// The shells edit and delete any item but those the CLI writer is working on: its `complete`, `edit` and
    /// `delete` of an item it has just added must find it.
    static let notCLIItems = "title NOT LIKE 'cli item%'"

    /// SQL for a mix of changes: inserts, edits, completes, deletes and a project delete now and then.
    static func mixedChanges(projects: [String], round: Int, seed: inout UInt64) -> String {
        func next() -> UInt64 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return seed >> 33
        }
        let words = [
            "kernel", "patch", "upstream", "release", "fix", "crash", "build", "docs", "translation", "security",
        ]
        var sql = ""
        for step in 0..<40 {
            let project = projects[Int(next()) % projects.count]
            let title = (0..<4).map { _ in words[Int(next()) % words.count] }.joined(separator: " ")
            switch next() % 10 {
            case 0...4:
                sql +=
                    "INSERT INTO items (project_id, title, detail) SELECT '\(project)', '\(title) \(round)-\(step)', 'load test' WHERE EXISTS (SELECT 1 FROM projects WHERE id = '\(project)');\n"
            case 5, 6:
                sql +=
                    "UPDATE items SET title = '\(title) edited' WHERE rowid = (SELECT rowid FROM items WHERE \(Self.notCLIItems) ORDER BY random() LIMIT 1);\n"
            case 7:
                sql +=
                    "UPDATE items SET completed = 1 - completed WHERE rowid = (SELECT rowid FROM items WHERE \(Self.notCLIItems) ORDER BY random() LIMIT 1);\n"
            case 8:
                sql +=
                    "DELETE FROM items WHERE rowid = (SELECT rowid FROM items WHERE \(Self.notCLIItems) ORDER BY random() LIMIT 1);\n"
            default:
                sql += "INSERT INTO projects (title) VALUES ('load project \(round)-\(step)');\n"
                if next() % 4 == 0 {
                    sql +=
                        "DELETE FROM projects WHERE id = (SELECT id FROM projects WHERE title LIKE 'load project%' ORDER BY random() LIMIT 1);\n"
                }
            }
        }
        return sql
    }

    @Test func twentyRandomKillsWhileWritersWriteLoseNothing() throws {
        let cli = CLI.withSamples()
        let projects = cli.sqlite("SELECT id FROM projects;").stdoutLines
        let writing = DispatchGroup()
        nonisolated(unsafe) var stop = false
        nonisolated(unsafe) var writerFailures: [String] = []
        for writer in 0..<2 {
            DispatchQueue.global().async(group: writing) {
                var seed = UInt64(writer + 1)
                var round = 0
                while !stop {
                    let result = cli.sqlite(Self.mixedChanges(projects: projects, round: round, seed: &seed))
                    if result.status != 0 { writerFailures.append(result.stderr) }
                    round += 1
                }
            }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let watch = try RunningWatch(cli, "--batch-size", "25")
            // Kill at a random moment: while opening, catching up, or waiting.
            usleep(UInt32.random(in: 20_000...400_000, using: &generator))
            let killed = watch.stop(SIGKILL)
            #expect(!killed.exited || killed.status == 0, "\(watch.log)")
        }
        stop = true
        writing.wait()
        #expect(writerFailures.isEmpty, "\(writerFailures.prefix(2))")

        let watch = try RunningWatch(cli)
        #expect(watch.waitUntilWatching())
        #expect(cli.waitForWatcher().status == 0)
        let verify = cli("verify")
        #expect(verify.status == 0, "\(verify.stdout)")
        #expect(watch.stop().status == 0)
    }

    @Test func concurrentCLIAndShellWritersThenVerifyIsClean() throws {
        let cli = CLI.withSamples()
        let projects = cli.sqlite("SELECT id FROM projects;").stdoutLines
        let watch = try RunningWatch(cli)
        #expect(watch.waitUntilWatching())
        let writing = DispatchGroup()
        nonisolated(unsafe) var failures: [String] = []
        let lock = NSLock()
        for shell in 0..<3 {
            DispatchQueue.global().async(group: writing) {
                var seed = UInt64(100 + shell)
                for round in 0..<25 {
                    let result = cli.sqlite(Self.mixedChanges(projects: projects, round: round, seed: &seed))
                    if result.status != 0 { lock.withLock { failures.append(result.stderr) } }
                }
            }
        }
        DispatchQueue.global().async(group: writing) {
            for round in 0..<30 {
                let added = cli(
                    "add", "item", "--project", "Garden", "cli item \(round)", "--detail", "written by the CLI")
                guard added.status == 0 else {
                    lock.withLock { failures.append(added.stderr) }
                    continue
                }
                let uri = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                let next =
                    round % 3 == 0
                    ? cli("complete", uri) : round % 3 == 1 ? cli("edit", uri, "--priority", "3") : cli("delete", uri)
                if next.status != 0 { lock.withLock { failures.append(next.stderr) } }
            }
        }
        writing.wait()
        #expect(failures.isEmpty, "\(failures.prefix(2))")
        let changes = try #require(Int(cli.firstID("SELECT seq FROM sqlite_sequence WHERE name = 'change_log';")))
        #expect(changes > 3_000)
        // verify waits for the watcher to apply what the store holds, then compares every row.
        let started = Date()
        let verify = cli("verify", "--format", "json")
        let object = try #require(cli.json(verify) as? [String: Any])
        #expect(object["clean"] as? Bool == true, "\(verify.stdout.prefix(500))")
        #expect(object["changes_behind"] as? Int == 0)
        print("verify clean \(String(format: "%.2f", Date().timeIntervalSince(started))) s after the writers stopped")
        #expect(watch.stop().status == 0)
    }
}
