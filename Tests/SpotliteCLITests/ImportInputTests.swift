import Foundation
import TestSupport
import Testing

/// An import reads any file-like input within bounds and names what is wrong with a line exactly.
@Suite struct ImportInputTests {
    func expectOneLine(_ result: ProcessResult, status: Int32, containing text: String) {
        #expect(result.status == status, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix("spotlite: ") && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)"
        )
        #expect(result.stderr.contains(text), "\(result.stderr)")
    }

    @Test func anEndlessLineFailsCleanlyAtTheLimitWithNothingImported() {
        let cli = CLI.withSamples()
        let before = cli("export").stdout
        // /dev/zero never ends and has no newline: the import stops at the 64 MiB line limit.
        let result = cli.shell("$spotlite import - < /dev/zero")
        expectOneLine(result, status: 2, containing: "line 1 of standard input is longer than 64 MiB")
        #expect(cli("export").stdout == before)
    }

    @Test func devNullFIFOsAndProcessSubstitutionAreFiles() throws {
        let cli = CLI()
        #expect(cli("init").status == 0)
        let empty = cli("import", "/dev/null")
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(empty.stdout.hasPrefix("imported: 0 projects, 0 items and 0 messages added"))
        let substituted = cli.shell("$spotlite import <(cat \(Repository.portfolio))")
        #expect(substituted.status == 0, "\(substituted.stderr)")
        #expect(substituted.stdout.hasPrefix("imported: 5 projects, 40 items and 4 messages added"))
        let fifo = cli.directory.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let piped = cli.shell("cat \(Repository.portfolio) > \(fifo) & $spotlite import \(fifo); wait")
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout == "imported: 0 projects, 0 items and 0 messages added, 0 updated, 49 unchanged\n")
    }

    @Test(arguments: [
        (#"{"kind":"item","kind":"project","title":"x"}"#, #"line 1: the key "kind" appears twice at byte 16"#),
        (
            #"{"kind":"project","title":"\ud800"}"#,
            #"line 1: \ud800 is a lone UTF-16 surrogate, not a character at byte 28"#
        ),
        (#"{"kind":"project","title":"\udc00x"}"#, #"line 1: \udc00 is a lone UTF-16 surrogate"#),
        (#"{"kind":"project","title":1e400}"#, "line 1: the number 1e400 is out of range at byte 27"),
        (#"{"kind":"project","title":"x","a\u0000b":1}"#, #"line 1: unknown field "a\u0000b" for a project"#),
        (#"{"kind":"project","title":"x","créé\u0007":1}"#, #"unknown field "créé\u0007""#),
        (
            #"{"kind":"project","title":"x","created":"2024-02-31T00:00:00Z"}"#,
            #"field "created" is "2024-02-31T00:00:00Z", not a real time"#
        ),
        (#"{"kind":"project","title":"x","created":"2023-02-29T00:00:00Z"}"#, "not a real time"),
        (#"{"kind":"project","title":"x","created":"2024-06-30T23:59:60Z"}"#, "not a real time"),
        (#"{"kind":"project","title":"x","created":"99999-01-01T00:00:00Z"}"#, "not a real time"),
        (#"{"kind":"project","title":"x","modified":"0000-12-31T00:00:00Z"}"#, "not a real time"),
        (#"{"kind":"project","title":"x","created":"2024-05-01T09:30:00+25:00"}"#, "not a real time"),
        (#"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["#, "nest deeper than 32"),
        ("{\"kind\":\"project\",\"title\":\"a\tb\"}", "raw control character"),
    ])
    func badLinesAreNamedExactly(line: String, message: String) {
        let cli = CLI()
        #expect(cli("init").status == 0)
        expectOneLine(cli("import", "-", input: Data((line + "\n").utf8)), status: 2, containing: message)
        #expect(cli("export").stdout.isEmpty)
    }

    @Test func realTimesInEveryAcceptedFormAreStoredAsUTC() {
        let cli = CLI()
        #expect(cli("init").status == 0)
        let lines = [
            #"{"kind":"project","id":"11111111-1111-4111-8111-111111111111","title":"a","created":"2024-02-29T23:30:00-01:00"}"#,
            #"{"kind":"project","id":"22222222-2222-4222-8222-222222222222","title":"b","created":"0001-01-01T00:00:00.999Z"}"#,
            #"{"kind":"project","id":"33333333-3333-4333-8333-333333333333","title":"c","created":"9999-12-31T23:59:59+00:00"}"#,
        ]
        #expect(cli("import", "-", input: Data(lines.joined(separator: "\n").utf8)).status == 0)
        let exported = cli("export").stdout
        #expect(exported.contains(#""created":"2024-03-01T00:30:00Z""#))
        #expect(exported.contains(#""created":"0001-01-01T00:00:00Z""#))
        #expect(exported.contains(#""created":"9999-12-31T23:59:59Z""#))
        // What export writes, import takes back.
        let again = CLI()
        #expect(again("init").status == 0)
        #expect(again("import", "-", input: Data(exported.utf8)).status == 0)
        #expect(again("export").stdout == exported)
    }

    @Test func aShellCannotStoreATimeExportCouldNotWriteBack() {
        let cli = CLI.withSamples()
        for value in [
            "garbage", "2024-02-31T00:00:00Z", "2024-05-01 09:30:00", "99999-01-01T00:00:00Z", "2024-05-01T24:00:00Z",
        ] {
            let result = cli.sqlite("UPDATE items SET created_at = '\(value)' WHERE title = 'Fix the leaking tap';")
            #expect(result.status != 0, "\(value)")
            #expect(result.stderr.contains("must be real UTC times"), "\(result.stderr)")
        }
        let insert = cli.sqlite("INSERT INTO projects (title, created_at) VALUES ('Odd', '2024-13-01T00:00:00Z');")
        #expect(insert.status != 0)
        #expect(
            cli.sqlite("UPDATE items SET created_at = '2020-02-29T12:00:00Z' WHERE title = 'Fix the leaking tap';")
                .status == 0)
        let exported = cli("export").stdout
        let again = CLI()
        #expect(again("init").status == 0)
        #expect(again("import", "-", input: Data(exported.utf8)).status == 0)
    }
}
