import ArgumentParser
import Foundation
import TrackerStore

struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create the store (or show the existing one): prints its path and store URI."
    )

    @OptionGroup var options: StoreOptions

    func run() throws {
        try running {
            let path = options.storePath
            let store: TrackerStore
            if FileManager.default.fileExists(atPath: path) {
                store = try TrackerStore.open(at: path)
                Output.note("spotlite: a store already exists at \(path); keeping it")
            } else {
                store = try TrackerStore.create(at: path)
            }
            Output.line("store: \(store.path)")
            Output.line("uri:   \(TrackerURI.scheme)://\(store.uuid)")
        }
    }
}
