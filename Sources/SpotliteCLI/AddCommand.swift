import ArgumentParser
import TrackerStore

struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a project or an item; prints its URI.",
        subcommands: [AddProject.self, AddItem.self]
    )
}

struct AddProject: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "project", abstract: "Add a project.")

    @OptionGroup var options: StoreOptions

    @Argument(help: "The project's title.")
    var title: String

    @Option(help: "A longer description.")
    var detail: String = ""

    func run() throws {
        try running {
            let store = try options.openStore()
            let project = try store.addProject(title: title, detail: detail)
            Output.line(store.uri(.project, project.id).description)
        }
    }
}

struct AddItem: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "item",
        abstract: "Add an item to a project (named by title or URI)."
    )

    @OptionGroup var options: StoreOptions

    @Option(help: ArgumentHelp("The project: its title (any case) or its URI.", valueName: "title-or-uri"))
    var project: String

    @Argument(help: "The item's title.")
    var title: String

    @Option(help: "The detail text.")
    var detail: String = ""

    @Option(help: "1 or low, 2 or medium, 3 or high.")
    var priority = PriorityArgument(2)

    func run() throws {
        try running {
            let store = try options.openStore()
            let owner = try store.findProject(project)
            let item = try store.addItem(projectID: owner.id, title: title, detail: detail, priority: priority.value)
            Output.line(store.uri(.item, item.id).description)
        }
    }
}
