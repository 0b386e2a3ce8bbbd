import ArgumentParser
import Foundation
import Indexer
import SpotliteServer
import TrackerStore

struct OpenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract:
            "Open a tracker:// link: show its item, project or message, or its page in a running `spotlite serve`.",
        discussion: """
            What `xdg-open tracker://…` runs once `make install` has registered Spotlite for tracker:// links. \
            Without --browser it prints the row as `resolve` does. With --browser it opens the row's page of the \
            `spotlite serve` running for the store (with $BROWSER, else xdg-open), and prints the row when no \
            serve runs. Exit status as `resolve`'s.
            """
    )

    @OptionGroup var options: StoreOptions

    @Argument(help: "tracker://<store-uuid>/item/<uuid> (or /project/<uuid>, /message/<uuid>).")
    var uri: String

    @Flag(help: "Open the page of the running `spotlite serve` in a browser.")
    var browser = false

    @Flag(
        help: ArgumentHelp(
            "When the row is shown here (no `spotlite serve` runs), wait for Enter if standard input is a terminal: "
                + "the terminal the desktop opened for the link stays until it is read."))
    var hold = false

    func run() throws {
        let indexer = try running { try options.openIndexer(forReading: true) }
        let store = indexer.store
        let parsed = try running { try parseURI(uri, in: store) }
        let entity = try running { try store.entity(for: parsed) }
        if browser, let server = ServeAddress.running(for: indexer, indexPath: indexer.location.root) {
            let page = server + rowPagePath(parsed.kind, parsed.entityID)
            try running { try Self.openInBrowser(page) }
            Output.line(page)
            return
        }
        if browser { Output.note("spotlite: no `spotlite serve` runs for this store; showing the row here") }
        Output.line(ResolveCommand.text(entity, uri: parsed))
        if hold, isatty(STDIN_FILENO) == 1 {
            Output.note("(press Enter to close)")
            _ = readLine()
        }
    }

    /// Opens `url` with $BROWSER (its first word the program), else xdg-open; waits for it to hand over.
    static func openInBrowser(_ url: String) throws {
        let environment = ProcessInfo.processInfo.environment
        var command = ["xdg-open"]
        if let browser = environment["BROWSER"]?.split(separator: ":").first.map(String.init), !browser.isEmpty {
            command = browser.split(separator: " ").map(String.init)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command + [url]
        do {
            try process.run()
        } catch {
            throw CLIError("cannot start \(command[0]) to open \(url): \(error.localizedDescription)", status: .usage)
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CLIError("\(command[0]) could not open \(url) (status \(process.terminationStatus))", status: .usage)
        }
    }
}
