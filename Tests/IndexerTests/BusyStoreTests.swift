import Foundation
import Logging
import SearchIndex
import TestSupport
import Testing
import TrackerStore

@testable import Indexer

/// A catch-up applies what the store held when it began, not what busy writers keep adding; a watcher follows a
/// store reached through a symbolic link in another directory by the store's own file events.
@Suite struct BusyStoreTests {
    let directory = TemporaryDirectory("busy")

    @Test func aCatchUpStopsAtTheChangeLoggedWhenItBegan() throws {
        let store = try TrackerStore.create(at: directory.file("tracker.sqlite"))
        let indexer = StoreIndexer(store: store, indexPath: directory.file("index"))
        let project = try store.addProject(title: "Busy")
        try indexer.catchUp()
        for number in 0..<400 { try store.addItem(projectID: project.id, title: "queued \(number)") }

        // A writer that goes on adding while the catch-up runs, one small commit per batch it applies.
        let stop = Flag()
        let writer = Thread {
            var number = 0
            let bound = Date().addingTimeInterval(5)
            while !stop.isSet && Date() < bound {
                _ = try? store.addItem(projectID: project.id, title: "meanwhile \(number)")
                number += 1
            }
        }
        writer.start()
        let target = try store.read { try $0.lastChangeSequence() }
        let report = try indexer.catchUp(batchSize: 5)
        stop.set()
        let last = try store.read { try $0.lastChangeSequence() }
        #expect(last > report.cursor, "the writer never got a commit in")
        #expect(report.cursor >= target)
        // Not more than what was there when it began, give or take what landed before it read the log's end.
        #expect(report.changesApplied < 400 + 50)
        #expect(try indexer.catchUpIfUnlocked(through: report.cursor + 1)?.cursor == report.cursor + 1)
    }

    @Test func aWatcherFollowsAStoreReachedThroughALinkInAnotherDirectory() throws {
        let real = directory.file("real")
        let elsewhere = directory.file("elsewhere")
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        _ = try TrackerStore.create(at: real + "/tracker.sqlite")
        try FileManager.default.createSymbolicLink(
            atPath: elsewhere + "/tracker.sqlite", withDestinationPath: real + "/tracker.sqlite")
        let store = try TrackerStore.open(at: elsewhere + "/tracker.sqlite")
        let indexer = StoreIndexer(store: store, indexPath: directory.file("index"))
        var options = IndexWatcher.Options()
        // Without the store's file events it would notice nothing for five minutes.
        options.idleInterval = 300
        let watcher = try IndexWatcher(
            indexer: indexer, options: options, logger: Logger(label: "test"), lockTimeout: 5)
        let thread = Thread { try? watcher.watch() }
        thread.start()
        defer { watcher.stop() }
        let project = try TrackerStore.open(at: real + "/tracker.sqlite").addProject(title: "Linked")
        let last = try store.read { try $0.lastChangeSequence() }
        let deadline = Date().addingTimeInterval(30)
        var cursor: Int64 = -1
        while Date() < deadline {
            cursor =
                (try? SearchReader(path: indexer.location.root).fetchLastClientState()).flatMap { $0 }.flatMap {
                    Int64($0)
                } ?? -1
            if cursor >= last { break }
            usleep(20_000)
        }
        #expect(cursor >= last, "the watcher did not see \(project.title) within 30 s")
    }
}
