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
            do {
                store = try TrackerStore.open(at: path)
                Output.note("spotlite: a store already exists at \(path); keeping it")
            } catch let error as StoreError where error.code == .missingStore {
                // No file, or an empty one (`touch`): nothing there to lose.
                store = try TrackerStore.create(at: path)
            }
            Output.line("store: \(store.path)")
            Output.line("uri:   \(TrackerURI.scheme)://\(store.uuid)")
        }
    }
}
