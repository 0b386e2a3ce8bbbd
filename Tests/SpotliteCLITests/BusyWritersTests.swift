import Foundation
import TestSupport
import Testing

/// Readers under a writer that keeps committing: `verify`, `search` and `status` reopen and go on (Xapian's
/// `DatabaseModifiedError` is never their answer).
@Suite struct BusyWritersTests {
    @Test func readersNeverFailBecauseTheWatcherCommitsMeanwhile() throws {
        let cli = CLI()
        #expect(cli("init").status == 0)
        #expect(cli("import", "-", input: Repository.debianCorpusData).status == 0)
        #expect(cli("index").status == 0)
        let watch = try RunningWatch(cli, "--batch-size", "50")
        #expect(watch.waitUntilWatching())
        // A writer that keeps the watcher committing: each statement is a commit the watcher applies.
        let stop = cli.directory.file("stop")
        let loop = Process()
        loop.executableURL = URL(fileURLWithPath: "/bin/bash")
        loop.arguments = [
            "-c",
            """
            while [ ! -e "\(stop)" ]; do
              sqlite3 -cmd ".timeout 10000" "\(cli.storePath)" \
                "UPDATE items SET detail = detail || ' x' WHERE rowid IN (SELECT rowid FROM items ORDER BY random() LIMIT 200);"
              sleep 0.05
            done
            """,
        ]
        loop.standardOutput = FileHandle.nullDevice
        loop.standardError = FileHandle.nullDevice
        try loop.run()
        defer {
            FileManager.default.createFile(atPath: stop, contents: nil)
            loop.waitUntilExit()
        }
        for round in 0..<8 {
            let verify = cli("verify")
            #expect(verify.status != 6, "round \(round): \(verify.stderr)")
            #expect(!verify.stderr.contains("DatabaseModifiedError"))
            let search = cli("search", "upstream", "release", "--format", "ids")
            #expect(search.status == 0, "round \(round): \(search.stderr)")
            #expect(cli("status").status == 0)
        }
        #expect(watch.process.isRunning)
        #expect(watch.stop().status == 0)
    }
}
