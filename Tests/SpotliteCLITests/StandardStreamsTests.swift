import Foundation
import TestSupport
import Testing

/// Closed, full or odd standard streams give one line and a documented status, never a crash or a silent
/// success; a reader that leaves early (`| head`) is not an error.
@Suite struct StandardStreamsTests {
    static let cli = CLI.withSamples()

    func expectOneLine(_ result: ProcessResult, status: Int32, containing text: String) {
        #expect(result.status == status, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix("spotlite: ") && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)"
        )
        #expect(result.stderr.contains(text), "\(result.stderr)")
    }

    @Test func aClosedOrDirectoryStdinIsAnErrorForImport() {
        let cli = Self.cli
        let before = cli("export").stdout
        expectOneLine(
            cli.shell("$spotlite import - <&-"), status: 2, containing: "cannot read standard input: it is closed")
        expectOneLine(
            cli.shell("$spotlite import - < \(cli.directory.path)"), status: 2, containing: "it is a directory")
        expectOneLine(cli("import", cli.directory.path), status: 2, containing: "it is a directory")
        #expect(cli("export").stdout == before)
    }

    @Test func writeErrorsAreOneLineAndStatusTwo() {
        let cli = Self.cli
        for command in ["export", "search leaking tap", "search tap --format json", "resolve --help", "status"] {
            expectOneLine(
                cli.shell("$spotlite \(command) > /dev/full"), status: 2, containing: "No space left on device")
            expectOneLine(cli.shell("$spotlite \(command) >&-"), status: 2, containing: "cannot write the output")
        }
        // Nothing written into a file the command opened after finding stdout closed (the store is intact).
        #expect(cli("verify").status == 0)
        #expect(cli.sqlite("PRAGMA integrity_check;").stdout == "ok\n")
    }

    @Test func aReaderThatLeavesEarlyEndsTheCommandQuietly() {
        let cli = Self.cli
        let export = cli.shell("$spotlite export | head -c 10 >/dev/null; echo ${PIPESTATUS[0]}")
        #expect(export.stdout == "0\n")
        #expect(export.stderr.isEmpty, "\(export.stderr)")
        let search = cli.shell("$spotlite search tap --format ids | head -0; echo ${PIPESTATUS[0]}")
        #expect(search.stdout == "0\n")
    }

    @Test func aStorePathThatIsADirectoryIsNamedNotOpened() {
        let cli = Self.cli
        for command in [["status"], ["search", "tap"], ["export"], ["index"], ["add", "project", "x"], ["init"]] {
            let result = cli.run(arguments: command + ["--store", cli.directory.path])
            expectOneLine(result, status: 5, containing: "is a directory, not a store")
        }
    }

    @Test func resolveReadsURIsFromStdinOneALineOrNULSeparated() {
        let cli = Self.cli
        let ids = cli("search", "leaking", "tap", "--format", "ids").stdoutLines
        #expect(ids.count == 2)
        let piped = cli.shell("$spotlite search leaking tap --format ids | $spotlite resolve - --format ids")
        #expect(piped.status == 0)
        #expect(piped.stdoutLines == ids)
        // No hits: no URIs, and that is success.
        let none = cli.shell(
            "$spotlite search zzzyqx --format ids 2>/dev/null | $spotlite resolve -; echo ${PIPESTATUS[1]}")
        #expect(none.stdout == "0\n", "\(none.stderr)")
        // NUL-separated, both ways.
        let nul = cli.shell("$spotlite search leaking tap --format ids -0 | $spotlite resolve -0 - --format ids -0")
        #expect(nul.stdout == ids.joined(separator: "\u{0}") + "\u{0}")
        let xargs = cli.shell(
            "$spotlite search leaking tap --format ids --null | xargs -0 $spotlite resolve --format ids")
        #expect(xargs.stdoutLines == ids)
        // JSON from stdin is always the API's list of results.
        let json = cli.shell("$spotlite search leaking tap --format ids -n 1 | $spotlite resolve - --format json")
        #expect(json.stdout.hasPrefix(#"{"results":[{"#))
        expectOneLine(cli.shell("$spotlite resolve - <&-"), status: 2, containing: "standard input: it is closed")
        #expect(cli("resolve").status == 2)
    }
}
