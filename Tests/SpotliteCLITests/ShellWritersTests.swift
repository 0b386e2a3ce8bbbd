import Foundation
import TestSupport
import Testing

/// Changes made by a plain `sqlite3` shell reach the index after `spotlite index`.
@Suite struct ShellWritersTests {
    @Test func insertsUpdatesBatchDeletesAndProjectDeletesFromSqlite3ReachTheIndex() throws {
        let cli = CLI.withSamples()
        let shell = cli.sqlite(
            """
            PRAGMA foreign_keys;
            INSERT INTO items (project_id, title, detail, priority)
                SELECT id, 'Water the orchids', 'twice a week, rain water', 2 FROM projects WHERE title = 'Garden';
            UPDATE items SET title = 'Mow the big lawn', completed = 1 WHERE title = 'Mow the lawn';
            DELETE FROM items WHERE priority = 1 AND project_id = (SELECT id FROM projects WHERE title = 'Personal admin');
            DELETE FROM projects WHERE title = 'Team offsite';
            UPDATE projects SET title = 'Launch' WHERE title = 'Q3 product launch';
            """)
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(shell.stdout == "0\n")  // the shell really ran with foreign keys off

        let index = cli("index")
        #expect(index.status == 0)
        #expect(cli("search", "orchids", "--format", "ids").stdoutLines.count == 1)
        #expect(cli("search", "mow big is:completed", "--format", "ids").stdoutLines.count == 1)
        #expect(cli("search", "\"mow the lawn\"").status == 1)
        #expect(cli("search", "project:\"personal admin\" priority:1").status == 1)
        #expect(cli("search", "lisbon").status == 1)
        #expect(cli("search", "project:\"Team offsite\"").status == 1)
        #expect(cli("search", "project:launch kind:item", "--format", "ids", "--limit", "100").stdoutLines.count == 9)
        #expect(cli("search", "project:\"q3 product launch\"").status == 1)
        let verify = cli("verify")
        #expect(verify.status == 0, "\(verify.stdout)")
        #expect(verify.stdout.hasSuffix("clean\n"))
    }

    @Test func verifyIsCleanAfterAMixOfCLIAndShellWritesAndNotBefore() {
        let cli = CLI.withSamples()
        #expect(cli("add", "item", "--project", "Garden", "Plant bulbs").status == 0)
        cli.sqlite("UPDATE items SET detail = detail || ' (checked)' WHERE priority = 2;")
        #expect(cli("verify").status == 1)  // the index has not applied them yet
        #expect(cli("index").status == 0)
        #expect(cli("verify").status == 0)
    }
}
