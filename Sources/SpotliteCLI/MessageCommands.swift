import ArgumentParser
import Foundation
import SpotliteJSON
import TrackerStore

/// `spotlite comment URI TEXT`: a chat message on a project or an item.
struct CommentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "comment",
        abstract: "Add a message to a project or an item; prints the message's URI.",
        discussion: "The message is searchable (kind:message, author:NAME) and goes when its project or item does."
    )

    @OptionGroup var options: StoreOptions

    @Argument(help: "The project or item URI.")
    var uri: String

    @Argument(help: "What the message says (- reads it from standard input).")
    var text: String

    @Option(help: "Who writes it. Default: $USER.")
    var author: String?

    func run() throws {
        try running {
            let message = text == "-" ? try Input.text(limit: Message.maximumTextBytes) : text
            let store = try options.openStoreForWriting()
            let target = try parseURI(uri, in: store)
            let parent: Message.Parent
            switch target.kind {
            case .project: parent = .project(id: target.entityID)
            case .item: parent = .item(id: target.entityID)
            case .message:
                throw CLIError("\(target) is a message; comment on its item or project instead", status: .usage)
            }
            let added = try store.addMessage(
                on: parent, author: author ?? Paths.environment("USER") ?? "", text: message)
            Output.line(store.uri(.message, added.id).description)
        }
    }
}

/// `spotlite messages URI`: the messages on a project or an item, oldest first.
struct MessagesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messages",
        abstract: "List the messages on a project (with those on its items: --all) or on an item, oldest first."
    )

    @OptionGroup var options: StoreOptions

    @Argument(help: "The project or item URI.")
    var uri: String

    @Option(help: "text, json, jsonl or ids.")
    var format: OutputFormat = .text

    @Flag(help: "For a project: also the messages on its items.")
    var all = false

    func run() throws {
        let (store, found) = try running { () -> (TrackerStore, [StoreEntity]) in
            let store = try options.openStore()
            let target = try parseURI(uri, in: store)
            // The URI must name something that is there, even if nothing was said on it.
            _ = try store.entity(for: target)
            let messages: [StoreEntity] = try store.read { reader in
                let rows: [Message]
                switch target.kind {
                case .item: rows = try reader.messages(onItems: [target.entityID])
                case .project:
                    rows =
                        all
                        ? try reader.messages(inProjects: [target.entityID]).sorted {
                            ($0.createdAt, $0.id) < ($1.createdAt, $1.id)
                        }
                        : try reader.messages(onProjects: [target.entityID])
                case .message:
                    throw CLIError("\(target) is a message; give its item or project", status: .usage)
                }
                return try rows.compactMap { try reader.entity(of: $0) }
            }
            return (store, messages)
        }
        for (number, entity) in found.enumerated() {
            guard case .message(let message, _, _) = entity else { continue }
            let uri = store.uri(.message, message.id)
            switch format {
            case .ids: Output.line(uri.description)
            case .jsonl: Output.line(EntityJSON.json(entity, uri: uri).text)
            case .json: break
            case .text:
                if number > 0 { Output.line("") }
                let author = message.author.isEmpty ? "(no author)" : VisibleText.escaped(message.author)
                Output.line("\(author) · \(VisibleText.escaped(message.createdAt)) · \(uri)")
                for line in message.text.split(separator: "\n", omittingEmptySubsequences: false) {
                    Output.line("  " + line)
                }
            }
        }
        if format == .json {
            Output.line(
                JSON.array(
                    found.compactMap { entity in
                        guard case .message(let message, _, _) = entity else { return nil }
                        return EntityJSON.json(entity, uri: store.uri(.message, message.id))
                    }
                ).text)
        }
    }
}
