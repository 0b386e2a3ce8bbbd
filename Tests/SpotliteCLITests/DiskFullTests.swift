import Foundation
import TestSupport
import Testing

/// A full disk under the index (a real tmpfs, filled): nothing half-built is left to keep it full, the old index
/// keeps answering, `watch` says so in `status`, retries the cheap catch-up instead of rebuilding, and recovers
/// by itself once there is room.
@Suite struct DiskFullTests {
    @Test func aFullDiskLeavesNoPartialGenerationAndTheWatcherRecoversByCatchingUp() throws {
        let cli = CLI()
        #expect(cli("init").status == 0)
        #expect(cli("import", Repository.portfolio).status == 0)
        let disk = cli.directory.file("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: false)
        let corpus = cli.directory.file("debian.jsonl")
        try Repository.debianCorpusData.write(to: URL(fileURLWithPath: corpus))
        let script = """
            set -e
            mount -t tmpfs -o size=64m tmpfs "$DISK"
            export SPOTLITE_INDEX="$DISK/index"
            "$spotlite" index >/dev/null
            # Fill the disk, then ask for more than it has.
            dd if=/dev/zero of="$DISK/filler" bs=64k 2>/dev/null || true
            "$spotlite" import "$CORPUS" >/dev/null
            set +e
            "$spotlite" index --rebuild 2>&1; echo "rebuild status $?"
            echo "entries: $(ls "$SPOTLITE_INDEX" | tr '\\n' ' ')"
            "$spotlite" search leaking tap --format ids 2>"$DISK/../search.err" | wc -l | sed 's/^/old index hits: /'
            cat "$DISK/../search.err"
            "$spotlite" watch --log-level debug 2>"$DISK/../watch.log" &
            watch=$!
            for i in $(seq 1 600); do grep -q "disk is full" "$DISK/../watch.log" && break; sleep 0.05; done
            "$spotlite" status | grep '^trouble:' || echo "no trouble line"
            "$spotlite" status --format json | grep -o '"writer_state":"[^"]*' | head -c 60; echo
            echo "entries while full: $(ls "$SPOTLITE_INDEX" | tr '\\n' ' ')"
            rm "$DISK/filler"
            "$spotlite" index --wait 120; echo "index status $?"
            "$spotlite" search dpkg --format ids 2>/dev/null | wc -l | sed 's/^/new hits: /'
            "$spotlite" status | grep -c '^trouble:' | sed 's/^/trouble lines: /'
            kill -TERM $watch; wait $watch; echo "watch status $?"
            "$spotlite" verify | tail -1
            """
        let result = Namespace.run(script, cli: cli, environment: ["DISK": disk, "CORPUS": corpus])
        let output = result.stdout
        let log = (try? String(contentsOfFile: cli.directory.file("watch.log"), encoding: .utf8)) ?? ""
        #expect(result.status == 0, "\(output)\n\(result.stderr)")
        #expect(output.contains("No space left on device"), "\(output)")
        #expect(output.contains("rebuild status 6"), "\(output)")
        // Only the current generation: the failed build's directories went at once.
        #expect(output.contains("entries: XAPIANDB check-state db-1 spotlite-index write.lock \n"), "\(output)")
        #expect(output.contains("old index hits: 2"), "\(output)")
        #expect(
            output.contains(
                "spotlite: the index could not be brought up to date: the disk is full; searched it as "
                    + "it is, 9895 changes behind the store"), "\(output)")
        #expect(output.contains("trouble:    the disk is full since"), "\(output)")
        #expect(output.contains("\"writer_state\":\"the disk is full"), "\(output)")
        #expect(
            output.contains("entries while full: XAPIANDB check-state db-1 spotlite-index write.lock \n"), "\(output)")
        #expect(output.contains("index is kept live by spotlite watch"), "\(output)")
        #expect(output.contains("index status 0"), "\(output)")
        #expect(!output.contains("new hits: 0"), "\(output)")
        #expect(output.contains("trouble lines: 0"), "\(output)")
        #expect(output.contains("watch status 0"), "\(output)")
        #expect(output.contains(": clean"), "\(output)")
        // It caught up; it never rebuilt.
        #expect(!log.contains("rebuilding the index"), "\(log)")
        #expect(log.contains("applying changes again after"), "\(log)")
    }
}
