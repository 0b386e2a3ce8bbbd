import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Indexer
import NIOCore
import SpotliteJSON
import SpotliteRemote
import Testing
import TestSupport
import TrackerStore

@testable import SpotliteServer

#if canImport(Glibc)
    import Glibc
#endif

/// Remote stores: their rows read from a real `serve` (the in-process server, listening on a loopback port) with
/// `POST /v1/resolve`, the failures of a host that is down, silent or answers too much, and what a server of remote
/// stores says of them.
@Suite struct RemoteStoreTests {
    let routes = ServerRouteTests()

    /// Runs `body` on a thread of its own, as the server and the CLI run the remote client: it blocks while it waits,
    /// which the concurrency pool's few threads (that the in-process server needs) must not.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    @Test func remoteRowsAreTheRowsItsServeResolves() async throws {
        try await routes.withServer(testing: .live) { client, server in
            let port = try #require(client.port)
            let store = try TrackerStore.open(at: routes.directory.file("tracker.sqlite"), readOnly: true)
            let all = try store.read { reader in
                var items: [String] = []
                try reader.forEachItem { items.append($0.id) }
                var messages: [String] = []
                try reader.forEachMessage { messages += $0.map(\.id) }
                return (items: items, projects: try reader.allProjects().map(\.id), messages: messages)
            }
            #expect(!all.items.isEmpty && !all.projects.isEmpty && !all.messages.isEmpty)
            let gone = UUID().uuidString.lowercased()
            let rows = RemoteRows(
                storeID: store.uuid, serve: ServeURL(host: "127.0.0.1", port: port), token: nil, timeout: 30)
            let remote = try await Self.blocking {
                try rows.entities(items: all.items + [gone], projects: all.projects, messages: all.messages)
            }
            let local = try store.entities(items: all.items, projects: all.projects, messages: all.messages)
            // A row that is gone is left out, as a local store leaves it out.
            #expect(remote[.item]?[gone] == nil)
            #expect(remote[.item]?.count == all.items.count)
            for (id, entity) in local[.item] ?? [:] {
                guard case .item(let item, let project)? = remote[.item]?[id],
                    case .item(let expected, let expectedProject) = entity
                else {
                    Issue.record("item \(id) did not come back as an item")
                    continue
                }
                // An item's project comes as a reference: its id and title.
                #expect(item == expected)
                #expect(project.id == expectedProject.id && project.title == expectedProject.title)
            }
            #expect(remote[.project] == local[.project])
            for (id, entity) in local[.message] ?? [:] {
                guard case .message(let message, let project, let item)? = remote[.message]?[id],
                    case .message(let expected, let expectedProject, let expectedItem) = entity
                else {
                    Issue.record("message \(id) did not come back as a message")
                    continue
                }
                #expect(message == expected)
                #expect(project.id == expectedProject.id)
                #expect(item?.id == expectedItem?.id && item?.title == expectedItem?.title)
            }
            #expect(try await Self.blocking { try rows.projectTitles(ids: all.projects) }.count == all.projects.count)
            _ = server
        }
    }

    @Test func aServeWithATokenRefusesRowsAskedWithoutIt() async throws {
        let token = String(repeating: "k", count: 24)
        try await routes.withServer(testing: .live, { $0.token = token }) { client, _ in
            let port = try #require(client.port)
            let store = try TrackerStore.open(at: routes.directory.file("tracker.sqlite"), readOnly: true)
            let project = try #require(try store.read { try $0.allProjects() }.first)
            let address = ServeURL(host: "127.0.0.1", port: port)
            let without = RemoteRows(storeID: store.uuid, serve: address, token: nil, timeout: 30)
            let refused = try await Self.blocking {
                Result { try without.entities(items: [], projects: [project.id], messages: []) }
            }
            let error = try #require(refused.failure as? IndexerError)
            #expect(error.code == .remote)
            #expect(error.message.contains("status 401"), "\(error.message)")
            #expect(error.message.contains("token_file"))
            let with = RemoteRows(storeID: store.uuid, serve: address, token: token, timeout: 30)
            let rows = try await Self.blocking { try with.entities(items: [], projects: [project.id], messages: []) }
            #expect(rows[.project]?.count == 1)
            let status = try await Self.blocking { try RemoteStatus.fetch(address, token: token, timeout: 30) }
            #expect(status.storeID == store.uuid)
        }
    }

    /// A host that accepts the connection and never answers: the request fails at its timeout, naming the host.
    @Test func aSilentHostIsAFailureAtTheTimeout() throws {
        let (socket, port) = LoopbackPort.socket(listening: true)
        defer { close(socket) }
        let rows = RemoteRows(
            storeID: UUID().uuidString.lowercased(), serve: ServeURL(host: "127.0.0.1", port: port), token: nil,
            timeout: 0.3)
        let error = #expect(throws: IndexerError.self) {
            _ = try rows.entities(items: [UUID().uuidString.lowercased()], projects: [], messages: [])
        }
        #expect(error?.code == .remote)
        #expect(error?.message == "http://127.0.0.1:\(port) did not answer within 0.3 s")
    }

    @Test func aHostNobodyListensOnIsAFailure() throws {
        let port = LoopbackPort.free()
        let rows = RemoteRows(
            storeID: UUID().uuidString.lowercased(), serve: ServeURL(host: "127.0.0.1", port: port), token: nil,
            timeout: 5)
        let error = #expect(throws: IndexerError.self) {
            _ = try rows.entities(items: [UUID().uuidString.lowercased()], projects: [], messages: [])
        }
        #expect(error?.message == "cannot reach http://127.0.0.1:\(port): Connection refused")
    }

    /// A host that announces more than the cap, or answers what is not HTTP: refused, not read on.
    @Test func anAnswerTooLargeOrNotHTTPIsRefused() throws {
        for (answer, expected) in [
            ("HTTP/1.1 200 OK\r\nContent-Length: 999999999\r\n\r\n{", "answered more than 64 MiB; refused"),
            ("SSH-2.0-OpenSSH_9.2\r\n\r\n", "answered what is not HTTP"),
        ] {
            let (socket, port) = LoopbackPort.socket(listening: true)
            defer { close(socket) }
            let answering = Thread {
                let connection = accept(socket, nil, nil)
                guard connection >= 0 else { return }
                var request = [UInt8](repeating: 0, count: 4096)
                _ = read(connection, &request, request.count)
                _ = Array(answer.utf8).withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                usleep(500_000)
                close(connection)
            }
            answering.start()
            let rows = RemoteRows(
                storeID: UUID().uuidString.lowercased(), serve: ServeURL(host: "127.0.0.1", port: port), token: nil,
                timeout: 10)
            let error = #expect(throws: IndexerError.self) {
                _ = try rows.entities(items: [UUID().uuidString.lowercased()], projects: [], messages: [])
            }
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
        }
    }

    /// A server of a remote store (`serve --stores`) says how current its replica is in `/v1/status` and `/metrics`,
    /// sends the browser to the remote host for its rows' pages, and searches on with it as a failure while it has
    /// no copy.
    @Test func aServerOfARemoteStoreReportsItsReplicaAndSendsItsPagesHome() async throws {
        let remoteID = UUID().uuidString.lowercased()
        let replicaDirectory = routes.directory.file("replica")
        let member = StoreSet.Member(name: "team") {
            .remote(
                RemoteStore(
                    replica: IndexReplica(
                        directory: replicaDirectory, host: "127.0.0.1", port: 7701, storeID: remoteID),
                    rows: RemoteRows(
                        storeID: remoteID, serve: ServeURL(host: "127.0.0.1", port: LoopbackPort.free()), token: nil,
                        timeout: 1),
                    pages: "http://10.1.2.3:8080"))
        }
        let directory = routes.directory
        try await routes.withServer({ options in
            options.stores = [
                member,
                StoreSet.Member(name: "mine") {
                    let store = try TrackerStore.open(at: directory.file("tracker.sqlite"))
                    return StoreIndexer(store: store, indexPath: directory.file("index"))
                },
            ]
        }) { client, _ in
            try await client.execute(uri: "/v1/status", method: .get) { response in
                let json = try ServerRouteTests.json(response.body)
                let replicas = try #require(json["replicas"] as? [[String: Any]])
                #expect(replicas.count == 1)
                #expect(replicas.first?["store"] as? String == "team")
                #expect(replicas.first?["store_uuid"] as? String == remoteID)
                #expect(replicas.first?["from"] as? String == "127.0.0.1:7701")
                // No copy yet: nothing said of one.
                #expect(replicas.first?["copied_at"] == nil)
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                #expect(text.contains("spotlite_replica_seconds_since_copy{store=\"team\"} -1"), "\(text)")
            }
            let item = UUID().uuidString.lowercased()
            try await client.execute(uri: "/items/\(item)?store=\(remoteID)", method: .get) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "http://10.1.2.3:8080/items/\(item)")
            }
            try await client.execute(uri: "/v1/search?q=tap&stores=all", method: .get) { response in
                #expect(response.status == .ok)
                let json = try ServerRouteTests.json(response.body)
                let failures = try #require(json["failures"] as? [[String: Any]])
                #expect(failures.first?["store"] as? String == "team")
                #expect((failures.first?["message"] as? String)?.contains("spotlite replica") == true)
                #expect(((json["hits"] as? [Any])?.count ?? 0) > 0)
            }
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
