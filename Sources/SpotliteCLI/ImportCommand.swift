import ArgumentParser
import Foundation
import TrackerStore

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract:
            "Import projects, items and messages from JSON Lines or a tracker's export ('-' for stdin); all or nothing.",
        discussion: """
            Records whose id exists are updated; new ids are added. A file with a bad line is rejected whole \
            ("line N: what is wrong") and the store is left as it was. Lines may be up to 64 MiB long, and one \
            import reads at most 2048 MiB. --from reads a tracker's export (GitHub's issues as gh or the REST API \
            give them, Jira's REST search result or CSV export, Bugzilla's REST result or buglist CSV); each issue \
            keeps a stable id, so importing an updated export changes only what changed. Examples:
              zcat samples/debian-changelogs.jsonl.gz | spotlite import -
              spotlite import --from github samples/github-issues.json
            """
    )

    @OptionGroup var options: StoreOptions

    @Argument(help: ArgumentHelp("The file, or - for standard input.", valueName: "file"))
    var file: String

    @Option(
        help: ArgumentHelp(
            "The file's format: spotlite (JSON Lines), github, jira, jira-csv, bugzilla or bugzilla-csv; guessed from "
                + "the input when left out.", valueName: "format"))
    var from: ImportFormat?

    @Flag(help: "With --from github: import pull requests too (they are skipped otherwise).")
    var pullRequests = false

    @Option(
        help: ArgumentHelp(
            "The tracker's address, for exports that give no issue's page: each bug of --from bugzilla or bugzilla-csv "
                + "gets URL/show_bug.cgi?id=ID, each issue of --from jira-csv URL/browse/KEY.", valueName: "url"))
    var trackerURL: String?

    func validate() throws {
        if let trackerURL {
            do {
                _ = try TrackerStore.trackerAddress(trackerURL)
            } catch {
                throw ValidationError("--tracker-url: \(error.message)")
            }
        }
    }

    func run() throws {
        try running {
            if file == "-" && Output.closedAtStart.contains(STDIN_FILENO) {
                throw CLIError("cannot read standard input: it is closed; give a file, or pipe one in", status: .usage)
            }
            let store = try options.openStoreForWriting()
            let meter = ProgressMeter()
            let source = try ImportSource(path: file)
            let format = try from ?? Self.guess(source)
            var summary: ImportSummary
            var notes = ExternalImportNotes()
            do {
                defer { Output.progress(nil) }
                if format == .spotlite {
                    summary = try store.importJSONLines(from: source, progress: meter.show)
                } else {
                    (summary, notes) = try store.importExport(
                        try source.readAll(), format: format, fileName: file, includePullRequests: pullRequests,
                        trackerURL: trackerURL, progress: meter.show)
                }
            }
            // One shape whatever the file holds, so a script reads every summary alike.
            let added =
                "\(count(summary.projectsAdded, "project")), \(count(summary.itemsAdded, "item")) and "
                + "\(count(summary.messagesAdded, "message"))"
            let updated = summary.projectsUpdated + summary.itemsUpdated + summary.messagesUpdated
            Output.line("imported: \(added) added, \(updated) updated, \(summary.unchanged) unchanged")
            if notes.linksLeftOut > 0 {
                Output.note(
                    "spotlite: left out \(count(notes.linksLeftOut, "link")) to issues neither in the file nor in the store"
                )
            }
            if notes.commentsCut > 0 {
                Output.note(
                    "spotlite: cut \(count(notes.commentsCut, "comment")) to \(Message.maximumTextBytes / 1024) KiB, "
                        + "the most a message holds")
            }
            if notes.skipped > 0 {
                Output.note("spotlite: skipped \(count(notes.skipped, "pull request")) (--pull-requests imports them)")
            }
        }
    }

    /// The format the input's first bytes say; an error asking for --from when they say none.
    static func guess(_ source: ImportSource) throws -> ImportFormat {
        let head = try source.head(64 << 10)
        if head.isEmpty { return .spotlite }
        guard let format = ImportFormat.guess(Data(head)) else {
            throw CLIError(
                "cannot tell the format of \(source.name); give --from spotlite, github, jira, jira-csv, bugzilla or "
                    + "bugzilla-csv", status: .usage)
        }
        return format
    }
}

extension ImportFormat: ExpressibleByArgument {}

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every project, item and message as JSON Lines to stdout (the import format)."
    )

    @OptionGroup var options: StoreOptions

    func run() throws {
        try running {
            let store = try options.openStore()
            // Each line is checked: a full disk or a closed stdout stops the export at once, with an error.
            try store.exportJSONLines { line in try Output.streamLine(line) }
            Output.flush()
            try Output.check()
        }
    }
}
