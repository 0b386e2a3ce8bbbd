import Foundation
import TestSupport
import Testing

/// Hand-judged queries on the Debian changelog corpus: for each, the entry a person typing it is looking for
/// (named by package and the start of its title) must be among the top 5. Guards the ranking: stemming,
/// title weight, the phrase bonus, filters and tokenisation of versions, paths and identifiers.
@Suite struct RelevanceTests {
    static let judged: [(query: String, package: String, titlePrefix: String)] = [
        ("mktemp /bin", "coreutils", "move mktemp to /bin"),
        ("ctrl-alt-backspace", "xkeyboard-config", "Add a note about re-enabling ctrl-alt-backspace"),
        ("yoga cloud archive", "software-properties", "cloudarchive: Enable support for the Yoga"),
        ("CVE-2022-22844", "tiff", "Backport security fix for CVE-2022-22844"),
        ("libbpf iproute2-next", "iproute2", "Backport patches from iproute2-next"),
        ("ensurepip pkg_resources", "python3.10", "ensurepip: Install pkg_resources"),
        ("savelog quiet", "debianutils", "savelog: add -q"),
        ("ar scripts filename", "binutils", "Allow ar scripts to contain"),
        ("apparmor man_filter cat pages", "man-db", "AppArmor: Allow man_filter"),
        ("AT_SPI_BUS property", "at-spi2-core", "patches/at_spi_bus: Fix setting the AT_SPI_BUS"),
        ("avr target", "binutils", "Added the avr target"),
        ("install clang python3", "llvm-toolchain-9", "Install clang in Python3 directory"),
        ("dbus-broker linux-only", "at-spi2-core", "control: Make dbus-broker"),
        ("seg faults alpha", "gzip", "apply patch from Anthony Towns that fixes seg faults"),
        ("ubuntu advantage services", "software-properties", "Show all Ubuntu Advantage services"),
        ("timedated dbus-monitor", "systemd", "d/t/timedated: Ignore return code"),
        ("TZ date regression", "coreutils", "Fix regression in which specifying a TZ"),
        ("revert llvm 12 project:mesa", "mesa", "Revert back to llvm 12"),
        ("arch-only FTBFS test suite", "libthai", "Fix arch-only FTBFS"),
        ("armel neon", "libdeflate", "debian/patches/armel_no_neon"),
        ("fat libraries", "gmp", "Enable fat libraries"),
        ("solo6x10 clamp", "linux", "media: solo6x10: replace max"),
        ("double free accerciser", "at-spi2-core", "patches/double-free: Fix double free"),
        ("leaking memory", "libtirpc", "04-fix-memory-leak.diff"),
        ("memory leak project:curl", "curl", "d/p/0001-http_chunks-reset"),
        ("\"use /run instead of\"", "pcsc-lite", "d/rules: use /run instead of"),
    ]

    @Test func everyJudgedEntryIsInTheTopFive() throws {
        let cli = DebianCorpusTests.shared
        #expect(Self.judged.count >= 20)
        for (query, package, prefix) in Self.judged {
            let wanted = cli.sqlite(
                """
                SELECT i.id FROM items i JOIN projects p ON p.id = i.project_id
                WHERE p.title = '\(package)' AND substr(i.title, 1, \(prefix.count)) = '\(prefix.replacingOccurrences(of: "'", with: "''"))';
                """
            ).stdoutLines
            #expect(wanted.count == 1, "\(query): the judged entry must exist once")
            let top = cli("search", query, "--format", "ids", "--limit", "5").stdoutLines
            let rank = top.firstIndex { uri in wanted.contains { uri.hasSuffix("/item/" + $0) } }
            #expect(rank != nil, "\(query): \(package) '\(prefix)…' is not in the top 5")
        }
    }

    @Test func titleMatchesRankAboveDetailOnlyMatchesOnTheCorpus() throws {
        let cli = DebianCorpusTests.shared
        for query in ["memory leak", "lintian", "ftbfs"] {
            let hits = try JSONNode.parse(cli("search", query, "--format", "json", "--limit", "3").stdoutData)
            guard case .array(let list)? = hits["hits"], case .string(let title)? = list.first?["title"] else {
                Issue.record("\(query): no hits")
                continue
            }
            let words = query.lowercased().split(separator: " ")
            #expect(words.allSatisfy { title.lowercased().contains($0) }, "\(query): top hit '\(title)'")
        }
    }
}
