import Foundation
import TestSupport
import Testing

/// Spotlite writes and deletes only in a directory it can tell is its own index, and only what it made there.
@Suite struct IndexDirectoryTests {
    func expectRefusal(_ result: ProcessResult, containing text: String) {
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix("spotlite: ") && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)"
        )
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
            expectRefusal(
                result, containing: "is not empty and not a Spotlite index (it holds db-migrations, db-notes.txt)")
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: work).sorted() == ["db-migrations", "db-notes.txt"])
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
            cli("index", "--store", store, "--index", store),
            containing: "is a file, not a directory; give --index a directory")
        #expect(cli("export", "--store", store).stdout == before)
        #expect(!before.isEmpty)
    }

    @Test func anEmptyOrNewDirectoryIsMarkedAndOnlyGenerationsSpotliteMadeAreRemoved() throws {
        let cli = CLI.withSamples()
        let marker = try String(contentsOfFile: cli.indexPath + "/spotlite-index", encoding: .utf8)
        let uuid = try #require(cli.statusJSON()["store_uuid"] as? String)
        #expect(marker.contains("store \(uuid)\n"))
        #expect(marker.hasPrefix("# A Spotlite search index"))

        // Directories named like generations that Spotlite did not make are kept, whatever they hold: someone's
        // file, Xapian's files planted or copied there, a link, one marked as another index's.
        let foreign = cli.indexPath + "/db-7"
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: foreign + "/notes.txt"))
        let outside = cli.directory.file("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: false)
        try Data("x".utf8).write(to: URL(fileURLWithPath: outside + "/postlist.glass"))
        try FileManager.default.createSymbolicLink(atPath: cli.indexPath + "/db-8", withDestinationPath: outside)
        func generation(_ name: String, files: [String], marker: String? = nil) throws {
            let path = cli.indexPath + "/" + name
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            for file in files { try Data("x".utf8).write(to: URL(fileURLWithPath: path + "/" + file)) }
            if let marker { try Data(marker.utf8).write(to: URL(fileURLWithPath: path + "/spotlite-generation")) }
        }
        try generation("db-9", files: ["postlist.glass"])
        try generation("db-10.shard-1", files: ["iamglass"])
        let another = "index 11111111-2222-4333-8444-555555555555\n"
        try generation("db-4", files: ["iamglass", "postlist.glass"], marker: another)
        // A generation this index made and a kill left behind (its marker names the index's id): it goes.
        let idLine = marker.split(separator: "\n").first { $0.hasPrefix("id ") }
        let id = try #require(idLine.map { String($0.dropFirst(3)) })
        #expect(UUID(uuidString: id) != nil)
        // With the changesets a published index's commits leave beside the tables (serve --publish).
        try generation(
            "db-5.shard-0", files: ["iamglass", "postlist.glass", "flintlock", "changes3", "changes4", "changestmp"],
            marker: "index \(id)\n")
        let current = try #require(
            try String(contentsOfFile: cli.indexPath + "/XAPIANDB", encoding: .utf8)
                .split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(
            try String(contentsOfFile: cli.indexPath + "/\(current)/spotlite-generation", encoding: .utf8)
                .contains("index \(id)\n"))

        #expect(cli("index", "--rebuild").status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: cli.indexPath)
        #expect(!names.contains("db-5.shard-0") && !names.contains(current), "\(names)")
        for kept in ["db-4", "db-7", "db-8", "db-9", "db-10.shard-1"] {
            #expect(names.contains(kept), "\(kept): \(names)")
        }
        #expect(FileManager.default.fileExists(atPath: cli.indexPath + "/db-9/postlist.glass"))
        #expect(FileManager.default.fileExists(atPath: cli.indexPath + "/db-10.shard-1/iamglass"))
        #expect(try String(contentsOfFile: foreign + "/notes.txt", encoding: .utf8) == "mine")
        #expect(FileManager.default.fileExists(atPath: outside + "/postlist.glass"))
        #expect(cli("search", "tap", "--format", "ids").status == 0)
    }

    /// An index made before generations were marked: its marker gains an id, its current generation (the one its
    /// stub names) is marked as its, and is removed by the next rebuild like any of its own.
    @Test func anIndexMarkedBeforeIDsAdoptsItsCurrentGeneration() throws {
        let cli = CLI.withSamples()
        let markerPath = cli.indexPath + "/spotlite-index"
        let old =
            try String(contentsOfFile: markerPath, encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("id ") }.joined(separator: "\n") + "\n"
        try Data(old.utf8).write(to: URL(fileURLWithPath: markerPath))
        let current = try #require(
            try String(contentsOfFile: cli.indexPath + "/XAPIANDB", encoding: .utf8)
                .split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        try FileManager.default.removeItem(atPath: cli.indexPath + "/\(current)/spotlite-generation")
        #expect(cli("add", "item", "--project", "Garden", "Adopted generation").status == 0)
        #expect(cli("index").status == 0)
        let marker = try String(contentsOfFile: markerPath, encoding: .utf8)
        #expect(marker.contains("\nid "), "\(marker)")
        #expect(FileManager.default.fileExists(atPath: cli.indexPath + "/\(current)/spotlite-generation"))
        #expect(cli("index", "--rebuild").status == 0)
        #expect(!FileManager.default.fileExists(atPath: cli.indexPath + "/\(current)"))
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
