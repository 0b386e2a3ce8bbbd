import Foundation
import TestSupport
import Testing

/// A store and an index on a read-only mount (a real one: a read-only bind mount in a private namespace) are read
/// as they are: search, resolve, status and export work; writes are refused with one line naming the store.
@Suite struct ReadOnlyTests {
    @Test func aReadOnlyStoreAndIndexAreSearchedAsCommitted() throws {
        let cli = CLI()
        let data = cli.directory.file("data")
        let store = data + "/tracker.sqlite"
        let index = data + "/index"
        let environment = ["SPOTLITE_STORE": store, "SPOTLITE_INDEX": index, "DATA": data]
        func run(_ arguments: String...) -> ProcessResult {
            TestSupport.run([CLI.binary] + arguments, environment: cli.environment.merging(environment) { $1 })
        }
        #expect(run("init").status == 0)
        #expect(run("import", Repository.portfolio).status == 0)
        #expect(run("index").status == 0)
        let uri = run("search", "leaking", "tap", "--format", "ids", "-n", "1").stdout
        // One change the index has not applied yet.
        #expect(run("add", "item", "--project", "Garden", "Prune the roses").status == 0)
        let exported = run("export").stdout
        let script = """
            mount --bind "$DATA" "$DATA" && mount -o remount,bind,ro "$DATA" || exit 99
            "$spotlite" search leaking tap --format ids; echo "search $?"
            "$spotlite" search roses --format ids; echo "roses $?"
            "$spotlite" resolve \(uri.trimmingCharacters(in: .newlines)) --format ids; echo "resolve $?"
            "$spotlite" status >/dev/null; echo "status $?"
            "$spotlite" export > "$TMPDIR_EXPORT"; echo "export $?"
            "$spotlite" verify >/dev/null; echo "verify $?"
            "$spotlite" add project Boat; echo "add $?"
            "$spotlite" import /dev/null; echo "import $?"
            "$spotlite" index; echo "index $?"
            """
        let exportPath = cli.directory.file("export.jsonl")
        var scriptEnvironment = environment
        scriptEnvironment["TMPDIR_EXPORT"] = exportPath
        let result = Namespace.run(script, cli: cli, environment: scriptEnvironment)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("search 0"), "\(result.stdout)\n\(result.stderr)")
        #expect(lines.contains("roses 1"), "\(result.stdout)")
        #expect(lines.contains("resolve 0"), "\(result.stdout)")
        #expect(lines.contains("status 0"), "\(result.stdout)")
        #expect(lines.contains("export 0"), "\(result.stdout)")
        #expect(lines.contains("verify 1"), "\(result.stdout)")  // the index is one change behind, and says so
        #expect(lines.contains("add 5") && lines.contains("import 5"), "\(result.stdout)")
        #expect(lines.contains("index 6"), "\(result.stdout)")
        #expect(try String(contentsOfFile: exportPath, encoding: .utf8) == exported)
        let stderr = result.stderr
        #expect(
            stderr.contains("spotlite: the index is read-only to you; searched it as it is, 1 change behind the store"))
        #expect(stderr.contains("spotlite: the store \(store) is read-only to you"))
        #expect(stderr.contains("is read-only to you (Read-only file system)"))
        #expect(!stderr.contains("attempt to write a readonly database"))
        // Once writable again, everything catches up.
        #expect(run("search", "roses", "--format", "ids").stdoutLines.count == 1)
        #expect(run("verify").status == 0)
    }

    /// Commands that only read a store the user can write leave its file as it was, byte for byte: nothing a
    /// sync engine or a backup would take for a change (a search used to commit a transaction of GRDB's, to set up
    /// the write-ahead log, and SQLite wrote it back into the file when the search closed the store).
    @Test func commandsThatOnlyReadLeaveTheStoreFileAsItWas() throws {
        let cli = CLI.withSamples()
        // One change the index has not applied yet: the search catches up, in the index only.
        #expect(cli("add", "item", "--project", "Garden", "Prune the roses").status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: cli.storePath))
        let search = cli("search", "roses", "--format", "ids")
        #expect(search.status == 0 && search.stdoutLines.count == 1, "\(search.stderr)")
        let uri = search.stdout.trimmingCharacters(in: .newlines)
        #expect(cli("search", "leaking", "tap", "--format", "json").status == 0)
        #expect(cli("resolve", uri, "--format", "ids").stdout == uri + "\n")
        #expect(cli("similar", uri, "--format", "ids").status < 2)
        #expect(cli("status").status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: cli.storePath)) == before)
        // The next writer and the searches after it are unaffected.
        #expect(cli("add", "item", "--project", "Garden", "Water the roses").status == 0)
        #expect(cli("search", "roses", "--format", "ids").stdoutLines.count == 2)
        #expect(try Data(contentsOf: URL(fileURLWithPath: cli.storePath)) != before)
    }

    /// A writer killed after its commit leaves the change in the write-ahead log only, and maybe no `-shm` file: a
    /// search (which opens the store read-only) still reads it, and catches the index up with it.
    @Test func aSearchReadsWhatAKilledWriterCommitted() throws {
        let cli = CLI.withSamples()
        let insert = """
            INSERT INTO items (project_id, title) SELECT id, 'Descale the Zanzibar kettle' FROM projects LIMIT 1;
            .system kill -9 $PPID
            """
        _ = TestSupport.run(["sqlite3", cli.storePath], input: Data(insert.utf8))
        let wal = cli.storePath + "-wal"
        #expect((try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int ?? 0) > 0)
        try? FileManager.default.removeItem(atPath: cli.storePath + "-shm")
        let search = cli("search", "zanzibar", "--format", "ids")
        #expect(search.status == 0 && search.stdoutLines.count == 1, "\(search.stdout)\n\(search.stderr)")
        #expect(cli("verify").status == 0)
    }
}
