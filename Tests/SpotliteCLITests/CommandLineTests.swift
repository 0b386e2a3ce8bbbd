import Foundation
import TestSupport
import Testing

/// What a newcomer types first works, or says plainly what to type instead.
@Suite struct CommandLineTests {
    @Test func sharedOptionsMayComeBeforeTheCommand() {
        let cli = CLI()
        let store = cli.directory.file("elsewhere.sqlite")
        let result = cli("--store", store, "init")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("store: \(store)"))
        #expect(cli("--store=\(store)", "--index", cli.directory.file("i2"), "add", "project", "Boat").status == 0)
        #expect(cli("--store", store, "search", "boat", "--format", "ids").stdoutLines.count == 1)
        let missing = cli("--store", store)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("give a command after --store"))
    }

    @Test func helpForACommandThatDoesNotExistIsAnError() {
        let cli = CLI()
        let result = cli("help", "foo")
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "spotlite: there is no command 'foo'; the commands are add, comment, complete, delete, edit, export, "
                + "import, index, init, messages, open, reopen, replica, resolve, search, serve, similar, status, stores, "
                + "subscribe, "
                + "subscriptions, verify, watch\n"
        )
        #expect(cli("help", "add", "item").status == 0)
    }

    /// The help says what the commands take since messages came: every kind of row, and the short options that work.
    @Test func helpNamesMessagesAndTheShortOptions() {
        let cli = CLI()
        for (command, words) in [
            ("export", "every project, item and message"), ("import", "projects, items and messages"),
            ("resolve", "/message/<uuid>"), ("open", "/message/<uuid>"), ("similar", "item, project or message URI"),
            ("search", "-n, -l, --limit"),
        ] {
            let help = cli("help", command).stdout.replacingOccurrences(of: "\n ", with: " ")
                .split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(help.contains(words), "help \(command): \(help)")
        }
    }

    @Test func reportsOfferOnlyTheFormatsTheyPrint() {
        let cli = CLI.withSamples()
        for command in ["status", "verify"] {
            let help = cli(command, "--help").stdout
            #expect(help.contains("values: text, json;"), "\(help)")
            let refused = cli(command, "--format", "jsonl")
            #expect(refused.status == 2)
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        }
    }

    @Test func shortAndUnknownOptionsOfSearch() {
        let cli = CLI.withSamples()
        #expect(cli("search", "tap", "-n", "1", "--format", "ids").stdoutLines.count == 1)
        #expect(cli("search", "-n1", "tap", "--format", "ids").stdoutLines.count == 1)
        let unknown = cli("search", "tap", "-x")
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("unknown option '-x'"))
        #expect(cli("search", "tap", "--nope").status == 2)
        // A negated word still needs no quoting.
        #expect(cli("search", "fix", "-tap", "--format", "ids").status == 0)
    }

    @Test func countsReadAsEnglish() {
        let cli = CLI.withSamples()
        #expect(cli("add", "item", "--project", "Garden", "One more").status == 0)
        #expect(cli("index").stdout.hasPrefix("applied 1 change (1 document, 1 commit) in "))
        let uri = cli("add", "project", "Lonely").stdout.trimmingCharacters(in: .newlines)
        #expect(cli("add", "item", "--project", uri, "Alone").status == 0)
        #expect(cli("delete", uri).stdout == "deleted \(uri) and its 1 item\n")
    }

    @Test func editNeedsSomethingToChangeAndPrioritiesHaveNames() {
        let cli = CLI.withSamples()
        let uri = cli("search", "leaking", "tap", "--format", "ids", "-n", "1").stdout.trimmingCharacters(in: .newlines)
        let nothing = cli("edit", uri)
        #expect(nothing.status == 2)
        #expect(nothing.stderr.contains("nothing to change"))
        #expect(cli("edit", uri, "--priority", "low").status == 0)
        #expect(cli("resolve", uri).stdout.contains("priority:  1 (low)"))
        #expect(cli("add", "item", "--project", "Garden", "Urgent thing", "--priority", "HIGH").status == 0)
        #expect(cli("search", "urgent", "priority:3", "--format", "ids").stdoutLines.count == 1)
        let bad = cli("add", "item", "--project", "Garden", "x", "--priority", "urgent")
        #expect(bad.status == 2)
        #expect(bad.stderr.split(separator: "\n").count == 1)
    }

    @Test func anEmptyFileIsSafeToMakeAStoreIn() throws {
        let cli = CLI()
        FileManager.default.createFile(atPath: cli.storePath, contents: Data())
        let search = cli("search", "tap")
        #expect(search.status == 5)
        #expect(search.stderr.contains("is empty; make it a store with `spotlite init`"))
        let initialized = cli("init")
        #expect(initialized.status == 0, "\(initialized.stderr)")
        #expect(cli("import", Repository.portfolio).status == 0)
        // A file with content is never taken over.
        try Data("notes".utf8).write(to: URL(fileURLWithPath: cli.directory.file("notes.txt")))
        let refused = cli("init", "--store", cli.directory.file("notes.txt"))
        #expect(refused.status == 5)
        #expect(try String(contentsOfFile: cli.directory.file("notes.txt"), encoding: .utf8) == "notes")
    }

    @Test func aHangUpStopsTheWatcherCleanly() throws {
        let cli = CLI.withSamples()
        let watch = try RunningWatch(cli)
        #expect(watch.waitUntilWatching())
        let stopped = watch.stop(SIGHUP)
        #expect(stopped.exited && stopped.status == 0)
        #expect(watch.log.contains("stopped"))
    }
}
