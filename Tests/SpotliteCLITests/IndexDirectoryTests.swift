import Foundation
import Testing
import TestSupport

/// Spotlite writes and deletes only in a directory it can tell is its own index, and only what it made there.
@Suite struct IndexDirectoryTests {
    func expectRefusal(_ result: ProcessResult, containing text: String) {
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("spotlite: ") && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains(text), "\(result.stderr)")
    }

    @Test func aDirectoryHoldingOtherThingsIsRefusedAndNothingInItIsTouched() throws {
        let cli = CLI()
        #expect(cli("init").status == 0)
        #expect(cli("import", Repository.portfolio).status == 0)
        let work = cli.directory.file("work")
        try FileManager.default.createDirectory(atPath: work + "/db-migrations", withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: work + "/db-migrations/001.sql"))
        try Data("n\n".utf8).write(to: URL(fileURLWithPath: work + "/db-notes.txt"))
        for arguments in [["search", "boat"], ["index"], ["index", "--rebuild"], ["verify"], ["watch"]] {
            let result = cli.run(arguments: arguments + ["--index", work])
            expectRefusal(result, containing: "is not empty and not a Spotlite index (it holds db-migrations, db-notes.txt)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: work).sorted() == ["db-migrations", "db-notes.txt"])
        #expect(try String(contentsOfFile: work + "/db-migrations/001.sql", encoding: .utf8) == "keep me")
        #expect(try String(contentsOfFile: work + "/db-notes.txt", encoding: .utf8) == "n\n")
    }

    @Test func theStoresOwnDirectoryIsNeverAnIndex() throws {
        let cli = CLI()
        let store = cli.directory.file("db-tracker.sqlite")
        #expect(cli("init", "--store", store).status == 0)
        #expect(cli("import", "--store", store, Repository.portfolio).status == 0)
        let before = cli("export", "--store", store).stdout
        for arguments in [["index"], ["index", "--rebuild"], ["search", "tap"]] {
            expectRefusal(
                cli.run(arguments: arguments + ["--store", store, "--index", cli.directory.path]),
                containing: "would hold the store")
        }
        // The store file itself as the index path (the old NSCocoaErrorDomain 516 message).
        expectRefusal(
            cli("index", "--store", store, "--index", store), containing: "is a file, not a directory; give --index a directory")
        #expect(cli("export", "--store", store).stdout == before)
        #expect(!before.isEmpty)
    }

    @Test func anEmptyOrNewDirectoryIsMarkedAndOnlyGenerationsSpotliteMadeAreRemoved() throws {
        let cli = CLI.withSamples()
        let marker = try String(contentsOfFile: cli.indexPath + "/spotlite-index", encoding: .utf8)
        let uuid = try #require(cli.statusJSON()["store_uuid"] as? String)
        #expect(marker.contains("store \(uuid)\n"))
        #expect(marker.hasPrefix("# A Spotlite search index"))

        // A generation-like directory holding someone's file, and a link named like a generation, are kept; a
        // leftover generation of Xapian files goes.
        let foreign = cli.indexPath + "/db-7"
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: foreign + "/notes.txt"))
        let outside = cli.directory.file("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: false)
        try Data("x".utf8).write(to: URL(fileURLWithPath: outside + "/postlist.glass"))
        try FileManager.default.createSymbolicLink(atPath: cli.indexPath + "/db-8", withDestinationPath: outside)
        let leftover = cli.indexPath + "/db-5.shard-0"
        try FileManager.default.createDirectory(atPath: leftover, withIntermediateDirectories: false)
        for name in ["iamglass", "postlist.glass", "flintlock"] {
            try Data().write(to: URL(fileURLWithPath: leftover + "/" + name))
        }

        #expect(cli("index", "--rebuild").status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: cli.indexPath)
        #expect(!names.contains("db-5.shard-0"))
        #expect(names.contains("db-7") && names.contains("db-8"))
        #expect(try String(contentsOfFile: foreign + "/notes.txt", encoding: .utf8) == "mine")
        #expect(FileManager.default.fileExists(atPath: outside + "/postlist.glass"))
        #expect(cli("search", "tap", "--format", "ids").status == 0)
    }

    @Test func anIndexMadeBeforeMarkersIsAdopted() throws {
        let cli = CLI.withSamples()
        try FileManager.default.removeItem(atPath: cli.indexPath + "/spotlite-index")
        try? FileManager.default.removeItem(atPath: cli.indexPath + "/check-state")
        #expect(cli("add", "item", "--project", "Garden", "Adopted afterwards").status == 0)
        let result = cli("index")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("applied 1 change "))
        #expect(FileManager.default.fileExists(atPath: cli.indexPath + "/spotlite-index"))
    }

    @Test func twoStoresGivenOneIndexPathNeverShareIt() throws {
        let cli = CLI.withSamples()
        let other = cli.directory.file("other.sqlite")
        #expect(cli("init", "--store", other).status == 0)
        #expect(cli("add", "project", "--store", other, "Boat").status == 0)
        let watch = try RunningWatch(cli)
        #expect(watch.waitUntilWatching())
        // Store B's commands, with A's index path and A's watcher running: refused, naming both stores.
        for arguments in [["index"], ["search", "boat"], ["verify"], ["watch"]] {
            let result = cli.run(arguments: arguments + ["--store", other])
            expectRefusal(result, containing: "is the index of another store")
        }
        #expect(cli("status", "--store", other).stdout.contains("problem:    "))
        #expect(watch.stop().status == 0)
        // Without the watcher too: the index stays A's.
        expectRefusal(cli("index", "--store", other), containing: "is the index of another store")
        #expect(cli("search", "leaking", "tap", "--format", "ids").stdoutLines.count == 2)
        #expect(cli("verify").status == 0)
    }

    @Test func anIndexDirectoryRemovedUnderTheWatcherIsMadeAgainAndStaysLocked() throws {
        let cli = CLI.withSamples()
        let watch = try RunningWatch(cli)
        #expect(watch.waitUntilWatching())
        try FileManager.default.removeItem(atPath: cli.indexPath)
        #expect(watch.waitForLog("rebuilt the index"))
        #expect(watch.process.isRunning)
        // The lock is where the index is: a second watcher is refused, and status names the first.
        let second = try RunningWatch(cli, "--wait", "0")
        #expect(second.waitForExit() == 6)
        #expect(second.log.contains("process \(watch.pid)"), "\(second.log)")
        #expect(cli.statusJSON()["watcher_pid"] as? Int == watch.pid)
        // It keeps applying changes.
        #expect(cli("add", "item", "--project", "Garden", "Planted after the removal").status == 0)
        #expect(cli.waitForWatcher().status == 0)
        #expect(cli("search", "planted", "removal", "--format", "ids").stdoutLines.count == 1)
        #expect(!watch.log.contains("mkdir"))
        #expect(watch.stop().status == 0)
        #expect(cli("verify").status == 0)
    }
}
