import ArgumentParser
import Foundation
import TrackerStore

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import projects and items from a JSON Lines file ('-' for stdin); all or nothing.",
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
            // Messages are named only when the file has some: most files are projects and items.
            let messages =
                summary.messagesAdded + summary.messagesUpdated > 0
                ? ", \(count(summary.messagesAdded, "message"))" : ""
            let added =
                messages.isEmpty
                ? "\(count(summary.projectsAdded, "project")) and \(count(summary.itemsAdded, "item"))"
                : "\(count(summary.projectsAdded, "project")), \(count(summary.itemsAdded, "item"))\(messages.replacingOccurrences(of: ", ", with: " and "))"
            Output.line(
                "imported: \(added) added, "
                    + "\(summary.projectsUpdated + summary.itemsUpdated + summary.messagesUpdated) updated, \(summary.unchanged) unchanged"
            )
        }
    }
}

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every project and item as JSON Lines to stdout (the import format)."
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
