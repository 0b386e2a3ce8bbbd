import Foundation
import TestSupport
import Testing

/// Messages on projects and items, end to end: written by the CLI and by a sqlite3 shell, searched, resolved to
/// their parent, gone with it, covered by verify.
@Suite struct MessagesTests {
    static func object(_ result: ProcessResult) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any]) ?? [:]
    }

    static let tapItem = "2bfe362f-b0e0-581f-88d9-e093789200ec"
    static let garden = "ca13db5f-3924-5ab1-aaa5-a8860c8a2a6f"

    @Test func messagesAreSearchedFilteredAndResolvedToTheirParent() throws {
        let cli = CLI.withSamples()
        // The samples' four messages are in the store (status counts them) and indexed with the rest.
        #expect(Self.object(cli("status", "--format", "json"))["messages"] as? Int == 4)
        #expect(cli("status").stdout.contains("messages:   4"))
        #expect(cli("search", "kind:message", "--format", "ids").stdoutLines.count == 4)
        #expect(cli("search", "author:sam", "--format", "ids").stdoutLines.count == 2)
        #expect(cli("search", "author:SAM", "kind:message", "compost", "--format", "ids").stdoutLines.count == 1)
        #expect(cli("search", "--spotlight", #"authorNames == "priya""#, "--format", "ids").stdoutLines.count == 1)
        #expect(cli("search", "author:nobody").status == 1)
        // A word only a message says finds the message; its JSON names the author and the item it is on.
        let json = Self.object(cli("search", "plumber", "--format", "json"))
        let hit = (json["hits"] as? [[String: Any]])?.first ?? [:]
        #expect(hit["kind"] as? String == "message" && hit["author"] as? String == "Sam")
        #expect((hit["item"] as? [String: Any])?["title"] as? String == "Fix the leaking tap")
        let uri = try #require(hit["uri"] as? String)
        #expect(uri.contains("/message/"))
        // resolve gives the message and its parent item and project.
        let resolved = Self.object(cli("resolve", uri, "--format", "json"))
        #expect(resolved["kind"] as? String == "message" && (resolved["text"] as? String)?.contains("plumber") == true)
        #expect(
            (resolved["item"] as? [String: Any])?["uri"] as? String
                == uri.replacingOccurrences(
                    of: String(uri.suffix(44)), with: "item/" + Self.tapItem))
        #expect((resolved["project"] as? [String: Any])?["title"] as? String == "Home renovation")
        let text = cli("resolve", uri).stdout
        #expect(text.contains("author:    Sam") && text.contains("item:      Fix the leaking tap"), "\(text)")
        // Titles still rank first: a message (no title) comes after the items whose title says the word.
        let compost = cli("search", "compost", "--format", "json")
        let kinds = ((Self.object(compost)["hits"] as? [[String: Any]]) ?? []).compactMap { $0["kind"] as? String }
        #expect(
            kinds.first == "item" && kinds.last == "message" && kinds.filter { $0 == "message" }.count == 1, "\(kinds)")
        // A message is not an item: complete and edit refuse it with one line.
        #expect(cli("complete", uri).status == 2)
        #expect(cli("edit", uri, "--title", "x").status == 2)
    }

    @Test func messagesFromTheCLIAndFromASQLiteShellComeAndGoWithTheirParent() throws {
        let cli = CLI.withSamples()
        let store = Self.object(cli("status", "--format", "json"))["store_uuid"] as? String ?? ""
        let item = "tracker://\(store)/item/\(Self.tapItem)"
        let project = "tracker://\(store)/project/\(Self.garden)"
        let added = cli("comment", item, "The cartridge arrived from the wholesaler", "--author", "Ada Lovelace")
        #expect(added.status == 0 && added.stdout.hasPrefix("tracker://\(store)/message/"), "\(added.stderr)")
        let viaStdin = cli.run(
            arguments: ["comment", project, "-", "--author", "Bo"],
            input: Data("Rhubarb crowns\nfrom the market\r\n\n".utf8))
        #expect(viaStdin.status == 0, "\(viaStdin.stderr)")
        // Its line breaks are kept but the trailing ones, as `echo … |` or a file's last newline add them.
        let stored = Self.object(cli("resolve", viaStdin.stdout.trimmingCharacters(in: .newlines), "--format", "json"))
        #expect(stored["text"] as? String == "Rhubarb crowns\nfrom the market")
        #expect(
            cli.sqlite(
                "INSERT INTO messages (item_id, author, text) VALUES ('\(Self.tapItem)', 'Cy', 'The wholesaler also sells descaler');"
            ).status == 0)
        #expect(cli("search", "wholesaler", "--format", "ids").stdoutLines.count == 2)
        #expect(cli("search", "rhubarb", "--format", "ids").stdoutLines.count == 1)
        #expect(cli("search", #"author:"ada lovelace""#, "--format", "ids").stdoutLines.count == 1)
        let listed = cli("messages", item, "--format", "json")
        let authors = ((try? JSONSerialization.jsonObject(with: listed.stdoutData)) as? [[String: Any]] ?? [])
            .compactMap { $0["author"] as? String }
        #expect(authors == ["Sam", "Ada Lovelace", "Cy"], "\(listed.stdout)")
        #expect(cli("messages", project, "--format", "ids").stdoutLines.count == 2)
        let verify = cli("verify")
        #expect(verify.status == 0 && verify.stdout.contains("52 store rows"), "\(verify.stdout)")
        // verify sees a message the index lacks (written behind its back), and --repair puts it in.
        #expect(
            cli.sqlite("INSERT INTO messages (project_id, text) VALUES ('\(Self.garden)', 'Slug pellets by the shed');")
                .status == 0)
        let behind = cli("verify", "--format", "json")
        #expect(behind.status == 1 && behind.stdout.contains("/message/"), "\(behind.stdout)")
        #expect(cli("verify", "--repair").status == 0)
        #expect(cli("search", "slug", "--format", "ids").stdoutLines.count == 1)

        // Deleting the item (CLI) takes its three messages out of the store and the index.
        #expect(cli("delete", item).status == 0)
        #expect(cli("search", "wholesaler").status == 1)
        #expect(cli("search", "plumber").status == 1)
        #expect(cli("messages", item).status == 3)
        // Deleting the project from a sqlite3 shell (foreign keys off) takes its messages too.
        #expect(cli.sqlite("DELETE FROM projects WHERE id = '\(Self.garden)';").status == 0)
        #expect(cli("search", "rhubarb").status == 1 && cli("search", "compost").status == 1)
        #expect(cli("search", "kind:message", "--format", "ids").stdoutLines.count == 2)
        #expect(cli("verify").status == 0)
        // A comment on what is not there, or empty, is one line and an exit code.
        #expect(cli("comment", item, "late").status == 3)
        #expect(cli("comment", "tracker://\(store)/project/\(Self.garden)", "late").status == 3)
        let empty = cli("comment", "tracker://\(store)/project/c20adffd-8328-59a2-8907-a82a5fd8180c", "  ")
        #expect(empty.status == 2 && empty.stderr.split(separator: "\n").count == 1, "\(empty.stderr)")
    }

    @Test func exportAndImportCarryMessages() throws {
        let cli = CLI.withSamples()
        let exported = cli("export")
        #expect(exported.stdoutLines.filter { $0.hasPrefix(#"{"kind":"message""#) }.count == 4)
        let other = cli.directory.file("copy.sqlite")
        #expect(cli("init", "--store", other).status == 0)
        let imported = cli.run(arguments: ["import", "-", "--store", other], input: exported.stdoutData)
        #expect(
            imported.stdout == "imported: 5 projects, 40 items and 4 messages added, 0 updated, 0 unchanged\n",
            "\(imported.stdout)")
        #expect(cli("export", "--store", other).stdout == exported.stdout)
    }
}
