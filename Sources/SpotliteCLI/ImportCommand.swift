import ArgumentParser
import Foundation
import TrackerStore

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import projects, items and messages from a JSON Lines file ('-' for stdin); all or nothing.",
        discussion: """
            Records whose id exists are updated; new ids are added. A file with a bad line is rejected whole \
            ("line N: what is wrong") and the store is left as it was. Lines may be up to 64 MiB long, and one \
            import reads at most 2048 MiB. Example:
              zcat samples/debian-changelogs.jsonl.gz | spotlite import -
            """
    )

    @OptionGroup var options: StoreOptions

    @Argument(help: ArgumentHelp("The JSON Lines file, or - for standard input.", valueName: "file"))
    var file: String

    func run() throws {
        try running {
            if file == "-" && Output.closedAtStart.contains(STDIN_FILENO) {
                throw CLIError("cannot read standard input: it is closed; give a file, or pipe one in", status: .usage)
            }
            let store = try options.openStoreForWriting()
            let meter = ProgressMeter()
            let summary: ImportSummary
            do {
                defer { Output.progress(nil) }
                summary = try store.importJSONLines(from: try ImportSource(path: file), progress: meter.show)
            }
            // One shape whatever the file holds, so a script reads every summary alike.
            let added =
                "\(count(summary.projectsAdded, "project")), \(count(summary.itemsAdded, "item")) and "
                + "\(count(summary.messagesAdded, "message"))"
            let updated = summary.projectsUpdated + summary.itemsUpdated + summary.messagesUpdated
            Output.line("imported: \(added) added, \(updated) updated, \(summary.unchanged) unchanged")
        }
    }
}

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
