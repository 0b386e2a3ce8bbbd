import Foundation
import TestSupport
import Testing

/// Damage done to an index behind Xapian's back — a table cut short, a block overwritten — is found by `verify`
/// (which reads every table), by `index` (which checks tables that changed since a writer recorded them) and by
/// an idle `watch`, and the index is rebuilt from the store, which nothing touches.
@Suite struct DamageTests {
    static func generationPath(_ cli: CLI) throws -> String {
        let stub = try String(contentsOfFile: cli.indexPath + "/XAPIANDB", encoding: .utf8)
        let generation = try #require(stub.split(separator: " ").last?.trimmingCharacters(in: .newlines))
        return cli.indexPath + "/" + generation
    }

    /// Cuts a table to half its length, as a failing disk or an interrupted copy would.
    static func truncateHalf(_ path: String) throws {
        let size = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(truncate(path, off_t(size / 2)) == 0)
    }

    /// Overwrites the first 4 KiB of a table with zeros, as `dd conv=notrunc` would.
    static func zeroFirstBlock(_ path: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: Data(count: 4_096))
        try handle.close()
    }

    @Test func aTruncatedPostingTableIsFoundByVerifyAndRebuiltByIndex() throws {
        let cli = CLI()
        #expect(cli("init").status == 0)
        #expect(cli("import", "-", input: Repository.debianCorpusData).status == 0)
        #expect(cli("index").status == 0)
        let before = cli("export").stdout
        try Self.truncateHalf(try Self.generationPath(cli) + "/postlist.glass")

        let verify = cli("verify")
        #expect(verify.status == 1, "\(verify.stdout)\(verify.stderr)")
        #expect(verify.stdout.contains("damaged  "))
        #expect(verify.stdout.contains("the index is damaged"))
        // What can be counted is: the store's rows (not "0 store rows, 0 index documents").
        #expect(verify.stdout.contains("verify: 9895 store rows, "), "\(verify.stdout)")
        let report = try #require(cli.json(cli("verify", "--format", "json")) as? [String: Any])
        #expect(report["damage"] is String && report["store_rows"] as? Int == 9895, "\(report)")
        #expect(report["index_documents"] is NSNull || (report["index_documents"] as? Int ?? 0) > 0, "\(report)")

        let index = cli("index")
        #expect(index.status == 0, "\(index.stderr)")
        #expect(index.stdout.contains("(the index is damaged ("), "\(index.stdout)")
        #expect(cli("verify").status == 0)
        #expect(cli("search", "dpkg", "--format", "ids").status == 0)
        #expect(cli("export").stdout == before)
    }

    /// The posting table holds the documents' packed positions and the numbers of their terms (layout 12: no
    /// position table), which a phrase reads.
    @Test func aZeroedPostingBlockIsFoundAndPhraseSearchesWorkAfterTheRebuild() throws {
        let cli = CLI.withSamples()
        try Self.zeroFirstBlock(try Self.generationPath(cli) + "/postlist.glass")
        let verify = cli("verify")
        #expect(verify.status == 1)
        #expect(verify.stdout.contains("damaged  "), "\(verify.stdout)")
        let repair = cli("verify", "--repair")
        #expect(repair.status == 0, "\(repair.stdout)\(repair.stderr)")
        #expect(repair.stdout.contains("rebuilt the index: the index is damaged"))
        #expect(cli("search", "\"leaking tap\"", "--format", "ids").stdoutLines.count == 1)
    }

    @Test func anIdleWatcherNoticesDamageAndRebuilds() throws {
        let cli = CLI.withSamples()
        let watch = try RunningWatch(cli)
        #expect(watch.waitUntilWatching())
        // A small table is one block (16 KiB), its root: the watcher's reader check may meet it before the full
        // check does ("cannot be read" rather than "is damaged"); either way it rebuilds.
        try Self.zeroFirstBlock(try Self.generationPath(cli) + "/termlist.glass")
        #expect(watch.waitForLog("rebuilding the index from the store: the index "))
        #expect(watch.waitForLog("rebuilt the index"))
        #expect(cli.waitForWatcher().status == 0)
        #expect(cli("verify").status == 0)
        #expect(watch.stop().status == 0)
    }
}
