import Foundation
import TestSupport
import Testing

/// Several named stores searched as one (`spotlite stores`, `search --stores`): real stores, real indexes, the
/// real binary.
@Suite struct ManyStoresTests {
    /// Three stores (private, shared, public) of the Debian corpus split by package, and one store of the whole.
    struct ThreeStores {
        let cli = CLI()
        let names = ["private", "shared", "public"]
        var paths: [String] { names.map { cli.directory.file("\($0).sqlite") } }
        var unionPath: String { cli.directory.file("union.sqlite") }
        /// How many rows the private store holds that the shared one holds too.
        var overlap = 0

        /// `copies`: one shared project in ten is also copied into the private store.
        init(lines: Int = 3_000, copies: Bool = false) {
            let corpus = String(decoding: Repository.debianCorpusData, as: UTF8.self)
                .split(separator: "\n").prefix(lines)
            var parts: [[Substring]] = [[], [], []]
            var storeOfProject: [String: Int] = [:]
            for line in corpus {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let kind = object["kind"] as? String
                else { continue }
                let project = (kind == "project" ? object["id"] : object["project"]) as? String ?? ""
                let store = storeOfProject[project] ?? storeOfProject.count % 3
                storeOfProject[project] = store
                parts[store].append(line)
            }
            // Overlap, as a sync engine makes it: one shared project in ten is also copied into the private store
            // (same rows, same UUIDs). The union store holds each row once.
            let shared =
                copies
                ? Set(
                    storeOfProject.filter { $0.value == 1 }.keys.sorted().enumerated().filter { $0.offset % 10 == 0 }
                        .map(\.element))
                : []
            for line in parts[1] {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                    continue
                }
                let project =
                    (object["kind"] as? String == "project" ? object["id"] : object["project"]) as? String ?? ""
                if shared.contains(project) { parts[0].append(line) }
            }
            overlap =
                parts[0].count
                - corpus.filter { line in
                    guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                        return false
                    }
                    let project =
                        (object["kind"] as? String == "project" ? object["id"] : object["project"]) as? String ?? ""
                    return storeOfProject[project] == 0
                }.count
            for (path, part) in zip(paths, parts) {
                expectFixture(cli("init", "--store", path).status == 0)
                let result = cli.run(
                    arguments: ["import", "-", "--store", path], input: Data(part.joined(separator: "\n").utf8))
                expectFixture(result.status == 0, "\(result.stderr)")
            }
            expectFixture(cli("init", "--store", unionPath).status == 0)
            expectFixture(
                cli.run(
                    arguments: ["import", "-", "--store", unionPath], input: Data(corpus.joined(separator: "\n").utf8)
                ).status == 0)
            for (name, path) in zip(names, paths) {
                let role = name == "private" ? "private" : name
                let added = cli("stores", "add", name, path, "--role", role)
                expectFixture(added.status == 0, "\(added.stderr)")
            }
        }

        func search(_ arguments: String...) -> ProcessResult { cli.run(arguments: ["search"] + arguments) }
    }

    /// (entity id, score) of each hit of a JSON search.
    static func hits(_ result: ProcessResult) -> [(id: String, score: Double)] {
        guard let object = try? JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any],
            let hits = object["hits"] as? [[String: Any]]
        else { return [] }
        return hits.map { hit in
            (String((hit["uri"] as? String ?? "").split(separator: "/").last ?? ""), hit["score"] as? Double ?? -1)
        }
    }

    static func object(_ result: ProcessResult) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any]) ?? [:]
    }

    @Test func aSearchAcrossStoresRanksAsOneIndexOfTheirUnion() throws {
        let stores = ThreeStores()
        #expect(stores.overlap == 0)
        for query in [
            "memory leak", "segfault", "upload", "security fix", "build failure OR crash", "\"new upstream\"",
        ] {
            let across = stores.search(query, "--stores", "all", "--format", "json", "-n", "30")
            let union = stores.search(query, "--store", stores.unionPath, "--format", "json", "-n", "30")
            #expect(across.status == 0 && union.status == 0, "\(query): \(across.stderr) \(union.stderr)")
            let a = Self.hits(across)
            let u = Self.hits(union)
            #expect(a.count == u.count && !a.isEmpty, "\(query)")
            // Exact totals agree (beyond 1,000 matches both are estimates, and estimates differ).
            if Self.object(union)["total_is_exact"] as? Bool == true {
                #expect(Self.object(across)["total"] as? Int == Self.object(union)["total"] as? Int, "\(query)")
                #expect(Self.object(across)["total_is_exact"] as? Bool == true, "\(query)")
            }
            // The same scores in the same order; hits of equal score may come in another order (their tie-break is
            // the index order, which differs between one index and three).
            for (x, y) in zip(a, u) { #expect(abs(x.score - y.score) < 1e-9, "\(query): \(a) vs \(u)") }
            let byScore = { (hits: [(id: String, score: Double)]) in
                Dictionary(grouping: hits, by: { ($0.score * 1e6).rounded() }).mapValues { Set($0.map(\.id)) }
            }
            // The last score's group may be cut differently at the page's end.
            let lastScore = (a.last.map { ($0.score * 1e6).rounded() }) ?? 0
            #expect(byScore(a).filter { $0.key != lastScore } == byScore(u).filter { $0.key != lastScore }, "\(query)")
        }
        // Every hit names its store; the store facet counts them.
        let json = Self.object(stores.search("upload", "--stores", "all", "--format", "json", "--facets", "store"))
        let hits = json["hits"] as? [[String: Any]] ?? []
        #expect(!hits.isEmpty && hits.allSatisfy { stores.names.contains($0["store"] as? String ?? "") })
        #expect((json["failures"] as? [Any])?.isEmpty == true)
        let facet = (json["facets"] as? [String: Any])?["store"] as? [[String: Any]] ?? []
        #expect(Set(facet.compactMap { $0["label"] as? String }) == Set(stores.names))
        // --format ids still prints URIs, and resolve routes each to its store.
        let ids = stores.search("upload", "--stores", "all", "--format", "ids", "-n", "10")
        #expect(
            ids.status == 0 && ids.stdoutLines.count == 10 && ids.stdoutLines.allSatisfy { $0.hasPrefix("tracker://") })
        let resolved = stores.cli.run(arguments: ["resolve", "--format", "ids"] + ids.stdoutLines)
        #expect(resolved.status == 0 && resolved.stdoutLines == ids.stdoutLines, "\(resolved.stderr)")
        // A URI of no known store is still "another store".
        let foreign = stores.cli(
            "resolve", "tracker://00000000-0000-4000-8000-000000000000/item/00000000-0000-4000-8000-000000000001")
        #expect(
            foreign.status == 4 && foreign.stderr.contains("neither the default store nor a named one"),
            "\(foreign.stderr)")
    }

    /// With rows copied into two stores, each is one hit, and the order is the deduplicated union's but for what
    /// the copies change in the term statistics (they count twice there, as Xapian sums its databases').
    @Test func copiesInTwoStoresAreOneHitRankedAsTheUnionWouldBeNearly() throws {
        let stores = ThreeStores(copies: true)
        #expect(stores.overlap > 20, "\(stores.overlap) rows in two stores")
        var agreement: [String] = []
        for query in [
            "memory leak", "segfault", "upload", "security fix", "build failure OR crash", "\"new upstream\"",
        ] {
            let across = stores.search(query, "--stores", "all", "--format", "json", "-n", "10")
            let union = stores.search(query, "--store", stores.unionPath, "--format", "json", "-n", "10")
            let a = Self.hits(across).map(\.id)
            let u = Self.hits(union).map(\.id)
            #expect(Set(a).count == a.count && a.count == u.count, "\(query): a copy shown twice, or hits lost")
            let exact = Self.object(union)["total_is_exact"] as? Bool == true
            if exact {
                #expect(Self.object(across)["total"] as? Int == Self.object(union)["total"] as? Int, "\(query)")
            }
            let shared = Set(a).intersection(u).count
            agreement.append(
                "\(query): \(shared)/\(u.count) of the top 10 shared, first hit \(a.first == u.first ? "same" : "differs")"
            )
            #expect(shared >= u.count - 2, "\(query): \(a) vs \(u)")
        }
        print("copies vs deduplicated union: " + agreement.joined(separator: "; "))
    }

    @Test func eachFailingStoreIsNamedWhileTheOthersAnswer() throws {
        let stores = ThreeStores(lines: 1_200)
        #expect(stores.search("upload", "--stores", "all", "--format", "ids").status == 0)
        let shared = stores.paths[1]
        let sharedIndex = try #require(Self.indexPath(stores, shared))
        func expectFailure(_ code: String, _ note: String, strictStatus: Int32) {
            let result = stores.search("upload", "--stores", "all", "--format", "json")
            #expect(result.status == 0, "\(code): \(result.stderr)")
            let json = Self.object(result)
            let failures = json["failures"] as? [[String: Any]] ?? []
            #expect(
                failures.count == 1 && failures.first?["store"] as? String == "shared"
                    && failures.first?["code"] as? String == code, "\(code): \(failures)")
            let hitStores = Set((json["hits"] as? [[String: Any]] ?? []).compactMap { $0["store"] as? String })
            #expect(hitStores == ["private", "public"], "\(code): \(hitStores)")
            #expect(
                result.stderr.contains("store 'shared' failed (\(code))") && result.stderr.contains(note),
                "\(result.stderr)")
            // Nothing found among those that answered, while one failed: exit 7, not "no hits".
            let nothing = stores.search("zzqqxxnotaword", "--stores", "all")
            #expect(nothing.status == 7, "\(code): \(nothing.status) \(nothing.stderr)")
            let strict = stores.search("upload", "--stores", "all", "--strict", "--format", "ids")
            #expect(strict.status == strictStatus && strict.stdout.isEmpty, "\(code): \(strict.stderr)")
            #expect(strict.stderr.contains("store 'shared' failed (\(code))"), "\(strict.stderr)")
        }
        let saved = try Data(contentsOf: URL(fileURLWithPath: shared))

        // Missing.
        try FileManager.default.moveItem(atPath: shared, toPath: shared + ".away")
        expectFailure("missing-store", "no store at", strictStatus: 5)
        try FileManager.default.moveItem(atPath: shared + ".away", toPath: shared)

        // Not a Spotlite store.
        let other = stores.cli.directory.file("other.sqlite")
        #expect(run(["sqlite3", other], input: Data("CREATE TABLE t(x); INSERT INTO t VALUES (1);".utf8)).status == 0)
        #expect(stores.cli("stores", "add", "shared", other).status == 5)  // refused when added…
        try FileManager.default.removeItem(atPath: shared)
        try FileManager.default.copyItem(atPath: other, toPath: shared)  // …and reported when it becomes one
        expectFailure("not-a-store", "not a Spotlite store", strictStatus: 5)
        try FileManager.default.removeItem(atPath: shared)
        try saved.write(to: URL(fileURLWithPath: shared))

        // Written by a newer Spotlite.
        let newer = run(["sqlite3", shared], input: Data("INSERT INTO grdb_migrations VALUES ('v99');".utf8))
        #expect(newer.status == 0, "\(newer.stderr)")
        expectFailure("unsupported-version", "newer Spotlite", strictStatus: 5)
        #expect(
            run(["sqlite3", shared], input: Data("DELETE FROM grdb_migrations WHERE identifier = 'v99';".utf8)).status
                == 0)

        // A damaged index that cannot be rebuilt now (another writer holds its lock).
        #expect(stores.search("upload", "--stores", "shared", "--format", "ids").status == 0)
        let glass = try #require(
            FileManager.default.enumerator(atPath: sharedIndex)?.compactMap { $0 as? String }
                .first { $0.hasSuffix("iamglass") })
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: sharedIndex + "/" + glass))
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = [sharedIndex + "/write.lock", "sleep", "60"]
        try holder.run()
        defer { holder.terminate() }
        Thread.sleep(forTimeInterval: 0.3)
        expectFailure("index", "damaged", strictStatus: 6)
        holder.terminate()
        holder.waitUntilExit()
        // Once the lock is free, the next search rebuilds it and all three answer.
        let healed = Self.object(stores.search("upload", "--stores", "all", "--format", "json"))
        #expect((healed["failures"] as? [Any])?.isEmpty == true, "\(healed["failures"] ?? "")")
    }

    /// A store locked past the wait (10 s, once for the whole search, however many reads opening and catching up
    /// take: it was two waits, 20 s) fails on its own; the others answer.
    @Test func aStoreLockedPastTheWaitFailsAloneWithinOneWait() throws {
        let stores = ThreeStores(lines: 600)
        #expect(stores.search("upload", "--stores", "all", "--format", "ids").status == 0)
        #expect(stores.cli("add", "project", "Later", "--store", stores.paths[1]).status == 0)  // a change to apply
        let locker = Process()
        locker.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        locker.arguments = [stores.paths[1]]
        let input = Pipe()
        locker.standardInput = input
        locker.standardOutput = FileHandle.nullDevice
        try locker.run()
        input.fileHandleForWriting.write(
            Data("PRAGMA locking_mode=EXCLUSIVE;\nBEGIN EXCLUSIVE;\nDELETE FROM projects WHERE title = 'Later';\n".utf8)
        )
        defer {
            try? input.fileHandleForWriting.close()
            locker.waitUntilExit()
        }
        Thread.sleep(forTimeInterval: 0.5)
        let started = Date()
        let result = stores.search("upload", "--stores", "all", "--format", "json")
        let waited = Date().timeIntervalSince(started)
        let failures = Self.object(result)["failures"] as? [[String: Any]] ?? []
        #expect(
            result.status == 0 && failures.count == 1 && failures.first?["code"] as? String == "busy",
            "\(result.stderr)")
        #expect(waited > 9 && waited < 14, "the search took \(waited) s")
    }

    /// Where a search across stores keeps a store's index: the cache directory, by store UUID.
    static func indexPath(_ stores: ThreeStores, _ store: String) -> String? {
        let id = storeID(stores.cli, store)
        return id.isEmpty ? nil : stores.cli.directory.file("cache") + "/spotlite/" + id
    }

    @Test func theSameItemInTwoStoresIsOneHitTheNewestCopyWinning() throws {
        let cli = CLI()
        let shared = cli.directory.file("shared.sqlite")
        let mine = cli.directory.file("mine.sqlite")
        for path in [shared, mine] { #expect(cli("init", "--store", path).status == 0) }
        #expect(cli("add", "project", "Boat", "--store", shared).status == 0)
        let uri = cli("add", "item", "Caulk the hull seams", "--project", "Boat", "--store", shared).stdout
            .trimmingCharacters(in: .newlines)
        #expect(cli("add", "item", "Varnish the hull", "--project", "Boat", "--store", shared).status == 0)
        // A sync engine copies the shared project into the private store: same UUIDs, another store.
        #expect(cli.shell("$spotlite export --store '\(shared)' | $spotlite import - --store '\(mine)'").status == 0)
        #expect(cli("stores", "add", "mine", mine).status == 0)
        #expect(cli("stores", "add", "shared", shared, "--role", "shared").status == 0)
        let id = String(uri.split(separator: "/").last ?? "")
        let mineURI = "tracker://" + Self.storeID(cli, mine) + "/item/" + id

        // Equal copies: the first store in `stores list` wins, and the hit names the other.
        var json = Self.object(cli("search", "hull", "--stores", "all", "--format", "json"))
        var hits = json["hits"] as? [[String: Any]] ?? []
        #expect(hits.count == 2 && json["total"] as? Int == 2, "\(hits)")
        var caulk = hits.first { ($0["uri"] as? String)?.hasSuffix(id) == true } ?? [:]
        #expect(caulk["store"] as? String == "mine" && caulk["also_in"] as? [String] == ["shared"])

        // The shared copy edited later: it wins, and says the private store holds it too.
        Thread.sleep(forTimeInterval: 1.1)
        #expect(cli("edit", uri, "--title", "Caulk the hull seams twice", "--store", shared).status == 0)
        json = Self.object(cli("search", "hull", "--stores", "all", "--format", "json"))
        hits = json["hits"] as? [[String: Any]] ?? []
        caulk = hits.first { ($0["uri"] as? String)?.hasSuffix(id) == true } ?? [:]
        #expect(hits.count == 2 && caulk["store"] as? String == "shared" && caulk["uri"] as? String == uri)
        #expect(caulk["title"] as? String == "Caulk the hull seams twice" && caulk["also_in"] as? [String] == ["mine"])
        let text = cli("search", "caulk", "--stores", "all").stdout
        #expect(text.contains("[shared, mine]"), "\(text)")

        // resolve: the URI's own store; with --stores, the newest copy.
        let own = Self.object(cli("resolve", mineURI, "--format", "json"))
        #expect(own["title"] as? String == "Caulk the hull seams" && own["store"] as? String == "mine")
        let newest = Self.object(cli("resolve", mineURI, "--stores", "all", "--format", "json"))
        #expect(newest["title"] as? String == "Caulk the hull seams twice" && newest["uri"] as? String == uri)
        #expect(newest["also_in"] as? [String] == ["mine"])
    }

    static func storeID(_ cli: CLI, _ path: String) -> String {
        let status = cli("status", "--store", path, "--format", "json")
        return
            ((try? JSONSerialization.jsonObject(with: status.stdoutData) as? [String: Any])?["store_uuid"] as? String)
            ?? ""
    }

    @Test func aPublicStoreRefusesWritesAndTheCatalogIsChecked() throws {
        let cli = CLI()
        let open = cli.directory.file("open.sqlite")
        #expect(cli("init", "--store", open).status == 0)
        #expect(cli("add", "project", "Commons", "--store", open).status == 0)
        let item = cli("add", "item", "Mow the green", "--project", "Commons", "--store", open).stdout
            .trimmingCharacters(in: .newlines)
        let added = cli("stores", "add", "commons", open, "--role", "public")
        #expect(added.status == 0 && added.stdout.contains("commons\tpublic"), "\(added.stderr)")
        let before = try Data(contentsOf: URL(fileURLWithPath: open))
        for arguments in [
            ["add", "project", "Mine", "--store", open], ["add", "item", "x", "--project", "Commons", "--store", open],
            ["edit", item, "--title", "y", "--store", open], ["complete", item, "--store", open],
            ["delete", item, "--store", open], ["import", Repository.portfolio, "--store", open],
            ["comment", item, "mown", "--store", open],
        ] {
            let result = cli.run(arguments: arguments)
            #expect(result.status == 5, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.contains("store 'commons'") && result.stderr.contains("is public"), "\(result.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: open)) == before)
        // Searching it writes nothing to it either (its index is in the cache directory).
        #expect(cli("search", "mow", "--stores", "commons", "--format", "ids").stdout.contains(item))
        #expect(try Data(contentsOf: URL(fileURLWithPath: open)) == before)

        // The catalog: listed in order, names checked, removed.
        let list = cli("stores", "list", "--format", "json")
        let rows = (Self.object(list)["stores"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(rows == ["default", "commons"], "\(list.stdout)")
        #expect(cli("stores", "add", "all", open).status == 2)
        #expect(cli("stores", "add", "bad name", open).status == 2)
        #expect(cli("stores", "add", "gone", cli.directory.file("nothing.sqlite")).status == 5)
        #expect(cli("search", "x", "--stores", "nosuch").stderr.contains("no store named 'nosuch'"))
        #expect(cli("stores", "remove", "commons").status == 0)
        #expect(cli("add", "project", "Mine", "--store", open).status == 0)  // no longer public
        #expect(cli("stores", "remove", "commons").status == 3)
        // A broken catalog is one clear line, not a crash.
        try Data("[[stores]\nname = 1".utf8).write(
            to: URL(fileURLWithPath: cli.directory.file("config") + "/spotlite/stores.toml"))
        let broken = cli("stores", "list")
        #expect(
            broken.status == 2 && broken.stderr.contains("stores.toml") && broken.stderr.contains("fix or remove it"),
            "\(broken.stderr)")
        let catalog = cli.directory.file("config") + "/spotlite/stores.toml"
        try FileManager.default.removeItem(atPath: catalog)
        try FileManager.default.createDirectory(atPath: catalog, withIntermediateDirectories: true)
        let directory = cli("search", "x", "--stores", "all")
        #expect(directory.status == 2 && directory.stderr.contains("fix or remove it"), "\(directory.stderr)")
        // A write to any store must know whether it is public: a catalog it cannot read stops it, saying why.
        #expect(cli("add", "project", "Mine", "--store", open).status == 2)
    }

    /// A relative path in `stores.toml` is relative to the file, wherever a command runs; a store that cannot be
    /// opened is listed with the reason (a loop of symbolic links is not "missing").
    @Test func theCatalogsPathsAreRelativeToItAndUnreadableStoresSayWhy() throws {
        let cli = CLI()
        let config = cli.directory.file("config") + "/spotlite"
        try FileManager.default.createDirectory(atPath: config + "/stores", withIntermediateDirectories: true)
        #expect(cli("init", "--store", config + "/stores/near.sqlite").status == 0)
        #expect(cli("add", "project", "Nearby allotment", "--store", config + "/stores/near.sqlite").status == 0)
        for (link, target) in [("loop-a", "loop-b"), ("loop-b", "loop-a")] {
            try FileManager.default.createSymbolicLink(
                atPath: config + "/\(link).sqlite", withDestinationPath: "\(target).sqlite")
        }
        let toml = """
            [[stores]]
            name = "near"
            path = "stores/near.sqlite"
            role = "private"

            [[stores]]
            name = "loop"
            path = "loop-a.sqlite"
            role = "private"

            [[stores]]
            name = "gone"
            path = "nothing.sqlite"
            role = "private"
            """
        try Data(toml.utf8).write(to: URL(fileURLWithPath: config + "/stores.toml"))
        let elsewhere = cli.directory.file("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        var environment = cli.environment
        environment["PWD"] = elsewhere
        let search = TestSupport.run(
            [CLI.binary, "search", "allotment", "--stores", "near", "--format", "ids"], environment: environment,
            directory: elsewhere)
        #expect(search.status == 0 && search.stdoutLines.count == 1, "\(search.stderr)")
        let list = TestSupport.run([CLI.binary, "stores", "list"], environment: environment, directory: elsewhere)
        let lines = list.stdout.split(separator: "\n").map(String.init)
        let loop = lines.first { $0.hasPrefix("loop ") } ?? ""
        #expect(loop.contains("symbolic links") && !loop.contains("(missing)"), "\(list.stdout)")
        #expect(lines.first { $0.hasPrefix("gone ") }?.contains("(missing)") == true, "\(list.stdout)")
        let near = lines.first { $0.hasPrefix("near ") }
        #expect(near?.contains(config + "/stores/near.sqlite") == true, "\(list.stdout)")
    }
}

extension ManyStoresTests {
    /// `watch --stores all`: one process keeps each store's index live; a missing store is retried until it exists,
    /// the others unaffected; SIGTERM stops them all with exit 0.
    @Test func oneWatcherFollowsSeveralStoresAndRetriesAFailingOne() throws {
        let cli = CLI()
        let a = cli.directory.file("a.sqlite")
        let b = cli.directory.file("b.sqlite")
        let later = cli.directory.file("later.sqlite")
        for path in [a, b, later] { #expect(cli("init", "--store", path).status == 0) }
        for (name, path) in [("a", a), ("b", b), ("later", later)] {
            #expect(cli("stores", "add", name, path).status == 0)
        }
        try FileManager.default.removeItem(atPath: later)
        let logPath = cli.directory.file("watch.log")
        FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        let watcher = try cli.start(["watch", "--stores", "all"], stderr: log)
        defer { if watcher.isRunning { watcher.terminate() } }
        func logText() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
        func waitFor(_ what: String, timeout: TimeInterval = 30) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if logText().components(separatedBy: what).count - 1 >= 1 { return true }
                usleep(50_000)
            }
            return false
        }
        #expect(
            waitFor("store_name=a [Indexer] watching the store")
                && waitFor("store_name=b [Indexer] watching the store"), "\(logText())")
        #expect(waitFor("store 'later' cannot be watched (attempt 1): no store at"), "\(logText())")

        // Writes to either store reach its index through the one watcher.
        #expect(cli("add", "project", "Zoo", "--store", a).status == 0)
        #expect(cli("add", "item", "Count the quokkas", "--project", "Zoo", "--store", a).status == 0)
        #expect(cli("add", "project", "Farm", "--store", b).status == 0)
        #expect(cli("add", "item", "Shear the alpacas", "--project", "Farm", "--store", b).status == 0)
        #expect(cli("search", "quokkas", "--stores", "a", "--format", "ids").stdoutLines.count == 1)
        #expect(cli("search", "alpacas", "--stores", "all", "--format", "ids").stdoutLines.count == 1)
        let status = cli(
            "status", "--store", a, "--index", cli.directory.file("cache") + "/spotlite/" + Self.storeID(cli, a))
        #expect(status.stdout.contains("process \(watcher.processIdentifier) keeps the index live"), "\(status.stdout)")

        // The missing store appears: it is watched at the next attempt.
        #expect(cli("init", "--store", later).status == 0)
        #expect(waitFor("store 'later' is watched again"), "\(logText())")
        #expect(cli("add", "project", "Moon", "--store", later).status == 0)
        #expect(cli("search", "moon", "--stores", "later", "--format", "ids").stdoutLines.count == 1)

        watcher.terminate()
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0, "\(logText())")
    }
}

extension ManyStoresTests {
    /// `serve --stores`: `/v1/search?stores=…` searches the named stores as one, with the CLI's JSON; without it,
    /// or with a store it does not serve, a 400.
    @Test func theServerSearchesTheStoresItWasStartedWith() throws {
        let cli = CLI.withSamples()
        let library = cli.directory.file("library.sqlite")
        #expect(cli("init", "--store", library).status == 0)
        #expect(cli("add", "project", "Town library", "--store", library).status == 0)
        #expect(
            cli("add", "item", "Return the Lisbon guidebook", "--project", "Town library", "--store", library).status
                == 0)
        #expect(cli("stores", "add", "library", library, "--role", "public").status == 0)

        let server = try ServerProcess(cli, arguments: ["--stores", "all"])
        let across = try server.request("GET", "/v1/search?q=lisbon&stores=all&facets=store")
        #expect(across.status == 200, "\(across.text)")
        let json = (try? JSONSerialization.jsonObject(with: Data(across.text.utf8)) as? [String: Any]) ?? [:]
        let stores = ((json["hits"] as? [[String: Any]]) ?? []).compactMap { $0["store"] as? String }
        #expect(Set(stores) == ["default", "library"], "\(across.text)")
        #expect((json["failures"] as? [Any])?.isEmpty == true)
        // The same as the command prints.
        let command = cli("search", "lisbon", "--stores", "all", "--facets", "store", "--format", "json")
        let commandStores = ((cli.json(command) as? [String: Any])?["hits"] as? [[String: Any]] ?? []).compactMap {
            $0["store"] as? String
        }
        #expect(commandStores == stores)
        let one = try server.request("GET", "/v1/search?q=lisbon&stores=library")
        #expect(
            one.status == 200 && one.text.contains("guidebook") && !one.text.contains("Team offsite"), "\(one.text)")
        // /v1/resolve answers a URI of any store it serves from that store.
        let guidebook = try #require(
            ((json["hits"] as? [[String: Any]]) ?? []).first { $0["store"] as? String == "library" }?["uri"] as? String)
        let resolved = try server.json("/v1/resolve", method: "POST", body: ["uris": [guidebook]])
        let first = ((resolved.object as? [String: Any])?["results"] as? [[String: Any]])?.first ?? [:]
        #expect(resolved.status == 200 && first["title"] as? String == "Return the Lisbon guidebook", "\(first)")
        // A store removed while the server runs is reported missing, not read through its old handle.
        try FileManager.default.moveItem(atPath: library, toPath: library + ".away")
        let gone = try server.request("GET", "/v1/search?q=lisbon&stores=all")
        #expect(
            gone.status == 200 && gone.text.contains("missing-store") && !gone.text.contains("guidebook"),
            "\(gone.text)")
        try FileManager.default.moveItem(atPath: library + ".away", toPath: library)
        #expect(try server.request("GET", "/v1/search?q=lisbon&stores=all").text.contains("guidebook"))
        let unknown = try server.request("GET", "/v1/search?q=lisbon&stores=nosuch")
        #expect(unknown.status == 400 && unknown.text.contains("no store named 'nosuch'"), "\(unknown.text)")
        #expect(server.stop() == 0)

        let single = try ServerProcess(cli)
        let refused = try single.request("GET", "/v1/search?q=lisbon&stores=all")
        #expect(refused.status == 400 && refused.text.contains("serve --stores"), "\(refused.text)")
        #expect(single.stop() == 0)
    }
}
