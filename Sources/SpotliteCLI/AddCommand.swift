import ArgumentParser
import Indexer
import SearchIndex
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
            let store = try options.openStoreForWriting()
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

    @OptionGroup(title: "Tracker fields") var tracking: TrackingOptions

    @Flag(
        help: ArgumentHelp(
            "After adding, list likely duplicates already stored (spotlite similar, likeness 0.5 or more) on stderr."))
    var checkDuplicates = false

    func run() throws {
        let uri = try running {
            let store = try options.openStoreForWriting()
            let owner = try store.findProject(project)
            var fields = ItemTracking()
            tracking.edit.apply(to: &fields)
            let item = try store.addItem(
                projectID: owner.id, title: title, detail: detail, priority: priority.value, tracking: fields)
            return store.uri(.item, item.id)
        }
        Output.line(uri.description)
        if checkDuplicates { reportDuplicates(of: uri) }
    }

    /// The check follows a successful add, so it never changes the exit status: an index it cannot use is a note.
    func reportDuplicates(of uri: TrackerURI) {
        var search = SearchOptions()
        search.request.limit = Self.duplicatesShown
        search.snippets = false
        let outcome: SearchOutcome
        do {
            outcome = try options.openIndexer().similar(to: uri, options: search)
        } catch {
            Output.note("spotlite: added \(uri), but could not check for duplicates: \(CLIError.from(error).message)")
            return
        }
        SearchCommand.printNotices(outcome)
        for hit in outcome.hits {
            guard let likeness = hit.likeness, likeness >= SearchRanking.duplicateLikeness else { continue }
            let (title, _) = SearchTextPrinter.columns(hit.entity)
            let known = hit.isKnownDuplicate ? ", already linked" : ""
            Output.note(
                "spotlite: likely duplicate (\(SearchTextPrinter.likenessText(likeness))\(known)): \(title) \(hit.uri)")
        }
    }

    static let duplicatesShown = 5
}
