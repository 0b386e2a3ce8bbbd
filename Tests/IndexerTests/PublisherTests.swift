import Foundation
import Logging
import SearchIndex
import TestSupport
import Testing
import TrackerStore

@testable import Indexer

/// The publisher and a replica in-process, on a loopback port: Xapian's own replication server and client, run and
/// supervised by Spotlite. (Changesets need `XAPIAN_MAX_CHANGESETS` set process-wide, which tests running beside
/// each other must not do: the binary's tests and `make test-cluster` cover them.)
@Suite struct PublisherTests {
    let directory = TemporaryDirectory("publish")

    @Test func aReplicaCopiesThePublishedIndexAndTheServerComesBackWhenItDies() throws {
        let store = try TrackerStore.create(at: directory.file("tracker.sqlite"))
        _ = try store.importJSONLines(try Data(contentsOf: URL(fileURLWithPath: Repository.portfolio)))
        let indexer = StoreIndexer(store: store, indexPath: directory.file("index"))
        try indexer.catchUp()

        let port = LoopbackPort.free()
        let publisher = IndexPublisher(
            host: "127.0.0.1", port: port, indexes: [store.uuid: indexer.location], logger: Logger(label: "test"))
        try publisher.start()
        defer { publisher.stop() }
        let served = try #require(publisher.servedDirectory)
        #expect(try FileManager.default.contentsOfDirectory(atPath: served) == [store.uuid])

        let replica = IndexReplica(
            directory: directory.file("replica"), host: "127.0.0.1", port: port, storeID: store.uuid)
        try replica.claim()
        let lock = try replica.lock()
        defer { withExtendedLifetime(lock) {} }
        let copy = try replica.copy(timeout: 5)
        #expect(copy == IndexReplica.Copy(fullCopies: 1, changesets: 0, changed: true))
        let primary = try SearchReader(path: indexer.location.root)
        let copied = try SearchReader(path: replica.copyPath)
        #expect(try copied.fingerprints() == primary.fingerprints())
        #expect(try copied.fetchLastClientState() == primary.fetchLastClientState())
        #expect(replica.status().cursor.map(String.init) == (try primary.fetchLastClientState()))
        #expect(replica.status().fullCopies == 1)

        // A rebuild on the primary is a new database: it arrives whole, swapped in for the old copy, and a reader
        // kept open on the replica moves to it on its next reopen.
        try indexer.rebuild()
        #expect(try replica.copy(timeout: 5).fullCopies == 1)
        try copied.reopen()
        #expect(try copied.fingerprints() == SearchReader(path: indexer.location.root).fingerprints())

        // One copier at a time.
        #expect(throws: IndexerError.self) { try replica.lock() }
        // Another store's replica is refused in that directory.
        let other = IndexReplica(
            directory: replica.directory, host: "127.0.0.1", port: port, storeID: UUID().uuidString.lowercased())
        #expect(throws: IndexerError.self) { try other.claim() }

        // The server dies: the publisher starts it again (after a 1 s pause), and copies work again.
        let first = try #require(publisher.serverProcessID)
        kill(first, SIGKILL)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let next = publisher.serverProcessID, next != first,
                IndexPublisher.accepts(host: "127.0.0.1", port: port)
            {
                break
            }
            usleep(50_000)
        }
        #expect(publisher.serverProcessID != first)
        let again = try replica.copy(timeout: 5)
        #expect(again.fullCopies == 0 && !again.changed)
        #expect(replica.status().error == nil)

        // Stopped: nothing listens, and the served directory is gone.
        publisher.stop()
        #expect(!IndexPublisher.accepts(host: "127.0.0.1", port: port))
        #expect(!FileManager.default.fileExists(atPath: served))
        #expect(throws: IndexerError.self) { try replica.copy(timeout: 2) }
        #expect(replica.status().error?.contains("cannot copy the index") == true)
        #expect(replica.status().copiedAt != nil)
    }

    @Test func publishAddressesAreHostAndAFixedPort() {
        #expect(IndexPublisher.parseAddress("127.0.0.1:7701")! == ("127.0.0.1", 7701))
        #expect(IndexPublisher.parseAddress("[::1]:7701")! == ("::1", 7701))
        #expect(IndexPublisher.parseAddress("replica.lan:80")! == ("replica.lan", 80))
        for bad in ["127.0.0.1", "127.0.0.1:0", "127.0.0.1:65536", ":7701", "[::1]7701", "a b:1", "h:+1", "h:٣"] {
            #expect(IndexPublisher.parseAddress(bad) == nil, "\(bad)")
        }
        #expect(IndexPublisher.isLoopback(host: "127.0.0.1"))
        #expect(IndexPublisher.isLoopback(host: "::1"))
        #expect(!IndexPublisher.isLoopback(host: "192.0.2.7"))
    }

    @Test func theClientsReportIsReadAndATruncatedOneIsNot() {
        #expect(
            IndexReplica.parseReport("Connecting to h:1\nUpdate complete: 0 copies, 3 changesets, new live database\n")
                == IndexReplica.Copy(fullCopies: 0, changesets: 3, changed: true))
        #expect(
            IndexReplica.parseReport("Update complete: 1 copies, 0 changesets, no changes to live database")
                == IndexReplica.Copy(fullCopies: 1, changesets: 0, changed: false))
        #expect(IndexReplica.parseReport("Update complete: 1 copies") == nil)
        #expect(IndexReplica.parseReport("") == nil)
        #expect(IndexReplica.adding(Int.max - 1, 5) == Int.max)
    }
}
