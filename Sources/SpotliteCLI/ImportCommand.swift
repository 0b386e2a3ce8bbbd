import ArgumentParser
import Foundation
import TrackerStore

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import projects and items from a JSON Lines file ('-' for stdin); all or nothing.",
        discussion: """
            Records whose id exists are updated; new ids are added. A file with a bad line is rejected whole \
            ("line N: what is wrong") and the store is left as it was. Example:
              zcat samples/debian-changelogs.jsonl.gz | spotlite import -
            """
    )

    @OptionGroup var options: StoreOptions

    @Argument(help: ArgumentHelp("The JSON Lines file, or - for standard input.", valueName: "file"))
    var file: String

    func run() throws {
        try running {
            let data: Data
            if file == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                guard let contents = FileManager.default.contents(atPath: file) else {
                    throw CLIError("cannot read \(file): no such file, or not readable", status: .usage)
                }
                data = contents
            }
            let store = try options.openStore()
            let summary = try store.importJSONLines(data)
            Output.line(
                "imported: \(summary.projectsAdded) projects and \(summary.itemsAdded) items added, "
                    + "\(summary.projectsUpdated + summary.itemsUpdated) updated, \(summary.unchanged) unchanged")
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
            var buffer = ""
            try store.exportJSONLines { line in
                buffer += line
                buffer += "\n"
                if buffer.utf8.count > 1 << 16 {
                    FileHandle.standardOutput.write(Data(buffer.utf8))
                    buffer = ""
                }
            }
            FileHandle.standardOutput.write(Data(buffer.utf8))
        }
    }
}
