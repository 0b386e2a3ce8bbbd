import ArgumentParser
import TrackerStore

struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Change an item's or a project's fields."
    )

    @OptionGroup var options: StoreOptions

    @Argument(help: "The item or project URI.")
    var uri: String

    @Option(help: "A new title.")
    var title: String?

    @Option(help: "A new detail text.")
    var detail: String?

    @Option(help: "A new priority: 1 or low, 2 or medium, 3 or high (items only).")
    var priority: PriorityArgument?

    @Option(help: ArgumentHelp("Move the item to this project (title or URI).", valueName: "title-or-uri"))
    var project: String?

    @OptionGroup(title: "Tracker fields (items only)") var tracking: TrackingOptions

    @Option(help: ArgumentHelp("Unassign this person (repeat for more).", valueName: "name"))
    var unassign: [String] = []

    @Option(help: ArgumentHelp("Remove this tag (repeat for more).", valueName: "tag"))
    var untag: [String] = []

    @Option(help: ArgumentHelp("Remove this link (repeat for more).", valueName: "kind=uri"))
    var unlink: [LinkArgument] = []

    private var editsTracking: Bool { !tracking.isEmpty || !unassign.isEmpty || !untag.isEmpty || !unlink.isEmpty }

    func validate() throws {
        if title == nil && detail == nil && priority == nil && project == nil && !editsTracking {
            throw ValidationError(
                "nothing to change: give --title, --detail, --priority, --project or a tracker field such as --tag")
        }
    }

    func run() throws {
        try running {
            let store = try options.openStoreForWriting()
            let target = try parseURI(uri, in: store)
            switch target.kind {
            case .item:
                try editItem(target.entityID, in: store)
            case .project:
                if priority != nil || project != nil || editsTracking {
                    throw CLIError(
                        "--priority, --project and the tracker fields apply to items, not projects", status: .usage)
                }
                try store.updateProject(id: target.entityID, ProjectChanges(title: title, detail: detail))
            case .message:
                throw CLIError("a message is not edited; delete it and comment again", status: .usage)
            }
            Output.line(target.description)
        }
    }
}

extension EditCommand {
    private func editItem(_ id: String, in store: TrackerStore) throws {
        let projectID = try project.map { try store.findProject($0).id }
        var change = tracking.edit
        change.unassign = Set(unassign)
        change.untag = Set(untag)
        change.unlink = Set(unlink.map { argument in store.local(argument.link) })
        let edit: (@Sendable (inout ItemTracking) -> Void)?
        if editsTracking {
            edit = { [change] fields in change.apply(to: &fields) }
        } else {
            edit = nil
        }
        let changes = ItemChanges(
            title: title, detail: detail, priority: priority?.value, projectID: projectID, tracking: edit)
        try store.updateItem(id: id, changes)
    }
}

/// Marks items completed (or projects closed).
struct CompleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "complete",
        abstract: "Mark items completed (a project URI closes the project)."
    )

    @OptionGroup var options: StoreOptions

    @Argument(help: "Item or project URIs.")
    var uris: [String]

    func run() throws {
        try setCompleted(true, uris: uris, options: options)
    }
}

/// Marks items open again (or projects reopened).
struct ReopenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reopen",
        abstract: "Mark items open again (a project URI reopens the project)."
    )

    @OptionGroup var options: StoreOptions

    @Argument(help: "Item or project URIs.")
    var uris: [String]

    func run() throws {
        try setCompleted(false, uris: uris, options: options)
    }
}

private func setCompleted(_ completed: Bool, uris: [String], options: StoreOptions) throws {
    try running {
        let store = try options.openStoreForWriting()
        let targets = try uris.map { try parseURI($0, in: store) }
        for target in targets {
            switch target.kind {
            case .item: try store.updateItem(id: target.entityID, ItemChanges(isCompleted: completed))
            case .project: try store.updateProject(id: target.entityID, ProjectChanges(isClosed: completed))
            case .message:
                throw CLIError("\(target) is a message: only items and projects are completed", status: .usage)
            }
            Output.line(target.description)
        }
    }
}

struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete items, messages, or projects with all their items and messages."
    )

    @OptionGroup var options: StoreOptions

    @Argument(help: "Item, message or project URIs.")
    var uris: [String]

    func run() throws {
        try running {
            let store = try options.openStoreForWriting()
            let targets = try uris.map { try parseURI($0, in: store) }
            for target in targets {
                switch target.kind {
                case .item:
                    try store.deleteItem(id: target.entityID)
                    Output.line("deleted \(target)")
                case .project:
                    let items = try store.deleteProject(id: target.entityID)
                    Output.line("deleted \(target) and its \(count(items, "item"))")
                case .message:
                    try store.deleteMessage(id: target.entityID)
                    Output.line("deleted \(target)")
                }
            }
        }
    }
}
