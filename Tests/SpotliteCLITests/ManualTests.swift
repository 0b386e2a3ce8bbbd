import Foundation
import TestSupport
import Testing

/// `make install` puts a manual page generated from the command tree where `man` finds it.
@Suite struct ManualTests {
    static let page = Repository.root + "/.build/plugins/GenerateManual/outputs/spotlite/spotlite.1"

    @Test func theManualPageCoversEveryCommandAndInstallsWhereManFindsIt() throws {
        guard FileManager.default.fileExists(atPath: Self.page) else {
            Issue.record("no manual page at \(Self.page); `make test` (or `make man`) generates it")
            return
        }
        let cli = CLI()
        let prefix = cli.directory.file("prefix")
        let install = TestSupport.run(["make", "-C", Repository.root, "install-man", "PREFIX=\(prefix)"])
        #expect(install.status == 0, "\(install.stderr)")
        let installed = prefix + "/share/man/man1/spotlite.1"
        #expect(FileManager.default.fileExists(atPath: installed))
        let rendered = TestSupport.run(
            ["man", "spotlite"], environment: ["MANPATH": prefix + "/share/man", "MANPAGER": "cat", "MANWIDTH": "100"])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        for command in [
            "init", "import", "export", "add", "edit", "complete", "reopen", "delete", "index", "search",
            "resolve", "status", "verify", "watch",
        ] {
            #expect(rendered.stdout.contains("\n     \(command)"), "\(command)")
        }
        #expect(rendered.stdout.contains("--null"))
        #expect(rendered.stdout.contains("Exit codes: 0 success"))
    }
}
