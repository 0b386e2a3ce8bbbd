import Foundation
import SearchIndex
import TestSupport
import Testing
import TrackerStore

@testable import Indexer

@Suite struct StoreIndexerTests {
    let directory = TemporaryDirectory("indexer")
    let store: TrackerStore
    let indexer: StoreIndexer

    init() throws {
        store = try TrackerStore.create(at: directory.file("tracker.sqlite"))
        indexer = StoreIndexer(store: store, indexPath: directory.file("index"))
    }

    func titles(_ query: String) throws -> [String] {
        try indexer.search(query, limit: 100).hits.map(\.entity.title)
    }

    @Test func theFirstCatchUpBuildsAndLaterOnesApplyTheLog() throws {
        let home = try store.addProject(title: "Home renovation")
        let tap = try store.addItem(projectID: home.id, title: "Fix the leaking tap", priority: 3)
        let first = try indexer.catchUp()
        #expect(first.rebuildReason == "there is no index yet")
        #expect(first.cursor == 2)

        try store.updateItem(id: tap.id, ItemChanges(title: "Fix the dripping tap"))
        try store.addItem(projectID: home.id, title: "Paint the ceiling")
        let second = try indexer.catchUp(batchSize: 1)
        #expect(second.rebuildReason == nil)
        #expect(second.changesApplied == 2)
        #expect(second.batches == 2)
        #expect(second.cursor == 4)
        #expect(try titles("dripping") == ["Fix the dripping tap"])
        #expect(try titles("leaking").isEmpty)
        #expect(try indexer.verify().isClean)
    }

    @Test func aRenamedProjectChangesWhatItsItemsShowAndWhatProjectFinds() throws {
        let home = try store.addProject(title: "Home renovation")
        try store.addItem(projectID: home.id, title: "Fix the tap")
        try indexer.catchUp()
        #expect(try titles("project:\"home renovation\" kind:item") == ["Fix the tap"])
        try store.updateProject(id: home.id, ProjectChanges(title: "House"))
        try indexer.catchUp()
        #expect(try titles("project:\"home renovation\"").isEmpty)
        #expect(try titles("project:house kind:item") == ["Fix the tap"])
        let hit = try #require(try indexer.search("tap").hits.first)
        guard case .item(_, let project) = hit.entity else {
            Issue.record("not an item")
            return
        }
        #expect(project.title == "House")
        #expect(try indexer.verify().isClean)
    }

    @Test func aProjectFilterInsideOrAndNotFindsTheProjectsItems() throws {
        let home = try store.addProject(title: "Home")
        let garden = try store.addProject(title: "Garden")
        let shed = try store.addProject(title: "Shed")
        try store.addItem(projectID: home.id, title: "Fix the tap")
        try store.addItem(projectID: garden.id, title: "Fix the fence")
        try store.addItem(projectID: shed.id, title: "Fix the roof")
        try indexer.catchUp()
        // Each project filter becomes its projects' domain terms wherever it stands in the query.
        #expect(try titles("(project:home OR project:garden) kind:item").sorted() == ["Fix the fence", "Fix the tap"])
        #expect(try titles("fix NOT project:garden").sorted() == ["Fix the roof", "Fix the tap"])
    }

    @Test func aProjectTitleIsComparedAsTheFilterComparesIt() throws {
        try store.addProject(title: "Home  Rénovation")
        // The filter matches this title (case, accents and spaces aside), so it is not "near" itself.
        #expect(try indexer.projectSuggestions(for: ["home renovation"]).isEmpty)
        #expect(try indexer.projectSuggestions(for: ["home renovatio"]).map(\.titles) == [["Home  Rénovation"]])
    }

    @Test func aDeletedProjectsDomainDisappears() throws {
        let home = try store.addProject(title: "Home")
        let garden = try store.addProject(title: "Garden")
        for title in ["Tap", "Tiles", "Boiler"] { try store.addItem(projectID: home.id, title: title) }
        try store.addItem(projectID: garden.id, title: "Mow")
        try indexer.catchUp()
        try store.deleteProject(id: home.id)
        try indexer.catchUp()
        let reader = try SearchReader(path: indexer.location.root)
        #expect(try reader.documentCount() == 2)
        #expect(
            Set(try reader.fingerprints().keys) == [
                store.uri(.project, garden.id).description,
                store.uri(.item, try store.read { try $0.items(inProjects: [garden.id]) }[0].id).description,
            ])
    }

    @Test func anIndexOfAnotherStoreIsRefusedNotMixedNorOverwritten() throws {
        let other = try TrackerStore.create(at: directory.file("other.sqlite"))
        let otherProject = try other.addProject(title: "Foreign")
        try other.addItem(projectID: otherProject.id, title: "Foreign item")
        let otherIndexer = StoreIndexer(store: other, indexPath: indexer.location.root)
        try otherIndexer.catchUp()

        let home = try store.addProject(title: "Home")
        try store.addItem(projectID: home.id, title: "Own item")
        // Writing, reading and verifying all refuse, naming both stores.
        for attempt in [
            { _ = try indexer.catchUp() }, { _ = try indexer.search("item") }, { _ = try indexer.verify() },
        ] {
            #expect {
                try attempt()
            } throws: { error in
                guard let error = error as? IndexerError else { return false }
                return error.code == .badIndexPath && error.message.contains(other.uuid)
                    && error.message.contains(store.uuid)
            }
        }
        #expect(try indexer.status().indexProblem?.contains("the index of another store") == true)
        // The other store's index is as it was.
        #expect(try otherIndexer.search("item").hits.count == 1)
        #expect(try otherIndexer.verify().isClean)
    }

    @Test func anOlderLayoutIsRebuilt() throws {
        try store.addProject(title: "Home")
        try indexer.catchUp()
        let generation = try #require(indexer.location.currentGeneration())
        do {
            let index = try SearchableIndex(path: indexer.location.path(of: generation))
            try index.setMetadata(SearchIndexLayout.versionKey, "0")
            try index.commit(clientState: try index.fetchLastClientState()!)
        }
        #expect(try indexer.status().needsRebuild == "the index has an older layout")
        let report = try indexer.catchUp()
        #expect(report.rebuildReason == "the index layout is 0, this spotlite writes \(SearchIndexLayout.version)")
        #expect(try indexer.status().changesBehind == 0)
    }

    @Test func aPrunedLogPastTheCursorMakesARebuild() throws {
        let home = try store.addProject(title: "Home")
        try indexer.catchUp()
        try store.addItem(projectID: home.id, title: "Added after")
        try store.pruneChangeLog(through: 2)
        let report = try indexer.catchUp()
        #expect(report.rebuildReason == "the change log was pruned through 2, past the index's cursor 1")
        #expect(try titles("added") == ["Added after"])
    }

    /// A store put back from an older copy (a restore) has a log that ends before the index's cursor: the index is
    /// rebuilt from it, not taken as current, and keeps nothing the copy does not have.
    @Test func aStoreRestoredFromAnOlderCopyMakesARebuild() throws {
        let home = try store.addProject(title: "Home")
        try store.addItem(projectID: home.id, title: "Kept in the copy")
        try indexer.catchUp()
        let copy = directory.file("copy.sqlite")
        #expect(TestSupport.run(["sqlite3", store.path], input: Data("VACUUM INTO '\(copy)';".utf8)).status == 0)
        try store.addItem(projectID: home.id, title: "Added after the copy")
        try indexer.catchUp()
        #expect(try titles("added") == ["Added after the copy"])

        let restored = StoreIndexer(store: try TrackerStore.open(at: copy), indexPath: indexer.location.root)
        let report = try restored.catchUp()
        #expect(report.rebuildReason == "the index's cursor 3 is ahead of the store's last change 2")
        #expect(try restored.search("added", limit: 10).hits.isEmpty)
        #expect(try restored.search("kept", limit: 10).hits.count == 1)
    }

    @Test func searchesDuringRebuildsSeeTheOldOrTheNewIndexNeverAnEmptyOne() throws {
        let home = try store.addProject(title: "Home")
        for number in 0..<300 {
            try store.addItem(projectID: home.id, title: "task number \(number)", detail: "common words")
        }
        try indexer.catchUp()
        let root = indexer.location.root
        let indexer = self.indexer
        let rebuilding = DispatchGroup()
        nonisolated(unsafe) var failure: (any Error)?
        DispatchQueue.global().async(group: rebuilding) {
            do {
                for _ in 0..<5 { try indexer.rebuild() }
            } catch {
                failure = error
            }
        }
        var searches = 0
        while rebuilding.wait(timeout: .now()) == .timedOut || searches < 20 {
            let reader = try SearchReader(path: root)
            let results = try reader.search(try SearchQueryParser().parse("common"), SearchRequest(limit: 1))
            #expect(results.total == 300)  // every item: never an empty or half-built index
            searches += 1
        }
        #expect(failure == nil)
        let generations = try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.hasPrefix("db-") }
        #expect(generations.count == 1)
    }

    @Test func verifyFindsMissingStaleAndExtraDocumentsAndRepairFixesThem() throws {
        let home = try store.addProject(title: "Home")
        let a = try store.addItem(projectID: home.id, title: "Alpha")
        let b = try store.addItem(projectID: home.id, title: "Beta")
        try indexer.catchUp()
        let generation = try #require(indexer.location.currentGeneration())
        do {
            let index = try SearchableIndex(path: indexer.location.path(of: generation))
            try index.deleteSearchableItems(withIdentifiers: [store.uri(.item, a.id).description])
            let mapping = ItemMapping(storeID: store.uuid)
            var stale = mapping.searchableItem(for: b, in: home)
            stale.attributeSet.title = "Old beta"
            try index.indexSearchableItems([stale])
            var extra = stale
            extra.uniqueIdentifier = store.uri(.item, "00000000-0000-4000-8000-000000000000").description
            try index.indexSearchableItems([extra])
        }
        let report = try indexer.verify()
        #expect(report.missing == [store.uri(.item, a.id).description])
        #expect(report.stale == [store.uri(.item, b.id).description])
        #expect(report.extra == [store.uri(.item, "00000000-0000-4000-8000-000000000000").description])
        #expect(!report.isClean)
        let repaired = try indexer.verify(repair: true)
        #expect(repaired.isClean)
        #expect(repaired.repaired == 3)
        #expect(try titles("beta") == ["Beta"])
    }

    @Test func aSearchWhileAnotherWriterHoldsTheLockSaysHowFarBehindItIsAndDropsGoneRows() throws {
        let home = try store.addProject(title: "Home")
        let tap = try store.addItem(projectID: home.id, title: "Fix the tap")
        try store.addItem(projectID: home.id, title: "Tap dance lessons")
        try indexer.catchUp()
        let lock = try #require(try WriterLock.acquire(at: indexer.location.lockPath, timeout: 0, purpose: "test"))
        try store.deleteItem(id: tap.id)
        let outcome = try indexer.search("tap")
        #expect(outcome.changesBehind == 1)
        #expect(outcome.dropped == 1)
        #expect(outcome.hits.count == 1)
        #expect { try indexer.catchUp(lockTimeout: 0.1) } throws: {
            guard let error = $0 as? IndexerError else { return false }
            return error.code == .locked && error.message.contains("process \(getpid()) (test)")
        }
        withExtendedLifetime(lock) {}
    }

    @Test func aSearchReadsItsOwnWrites() throws {
        let home = try store.addProject(title: "Home")
        try indexer.catchUp()
        try store.addItem(projectID: home.id, title: "Brand new thing")
        let outcome = try indexer.search("brand")
        #expect(outcome.catchUp?.changesApplied == 1)
        #expect(outcome.changesBehind == nil)
        #expect(outcome.hits.count == 1)
    }

    @Test func aSearchSessionKeepsItsReaderAndFollowsChangesAndRebuilds() throws {
        let home = try store.addProject(title: "Home")
        try store.addItem(projectID: home.id, title: "Fix the tap")
        let session = SearchSession(indexer)
        #expect(throws: IndexerError.self) { try session.search("tap AND (") }
        #expect(!indexer.location.exists, "a bad query is refused before the index is built")
        let first = try session.search("tap")
        #expect(first.catchUp?.rebuildReason == "there is no index yet")
        #expect(first.hits.count == 1)
        let again = try session.search("tap")
        #expect(again.catchUp == nil && again.changesBehind == nil && again.hits.count == 1)

        try store.addItem(projectID: home.id, title: "Another tap")
        let second = try session.search("tap")
        #expect(second.catchUp?.changesApplied == 1)
        #expect(second.hits.count == 2)

        // A rebuild swaps in a new generation and removes the one the session was reading.
        try indexer.rebuild()
        try store.addItem(projectID: home.id, title: "Third tap")
        #expect(try session.search("tap").hits.count == 3)
        #expect(try session.search("tap").hits.map(\.uri) == (try indexer.search("tap").hits.map(\.uri)))

        // A rebuild with no store change after it: the session lets go of the generation the rebuild removed.
        try indexer.rebuild()
        #expect(try session.search("tap").hits.count == 3)
        #expect(try Self.openDeletedFiles(under: indexer.location.root).isEmpty)
    }

    /// Files under `directory` that this process holds open although they were deleted (Linux /proc).
    static func openDeletedFiles(under directory: String) throws -> [String] {
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        return descriptors.compactMap { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name),
                target.hasPrefix(directory + "/"), target.hasSuffix(" (deleted)")
            else { return nil }
            return target
        }
    }

    @Test func aDamagedIndexIsRebuiltFromTheStore() throws {
        let home = try store.addProject(title: "Home")
        try store.addItem(projectID: home.id, title: "Survivor")
        try indexer.catchUp()
        let generation = indexer.location.path(of: try #require(indexer.location.currentGeneration()))
        for name in try FileManager.default.contentsOfDirectory(atPath: generation) where name.hasPrefix("iamglass") {
            try Data("garbage".utf8).write(to: URL(fileURLWithPath: generation + "/" + name))
        }
        let report = try indexer.catchUp()
        #expect(report.rebuildReason?.hasPrefix("the index is damaged") == true)
        #expect(try titles("survivor") == ["Survivor"])
    }
}
