import Foundation
import TrackerStore

/// A reproducible mix of store writes, as a day of tracker use makes them: half edits, a fifth completions,
/// the rest new and deleted items.
public enum MixedChanges {
    /// Makes `count` changes through the store's API (one transaction each, as the CLI does).
    public static func apply(_ count: Int, to store: TrackerStore, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var items: [String] = []
        var projects: [String] = []
        try store.read { reader in
            try reader.forEachItem { items.append($0.id) }
            projects = try reader.allProjects().map(\.id)
        }
        func word() -> String { SyntheticCorpus.vocabulary[Int(random.next() % 2_000)] }
        for _ in 0..<count {
            let index = Int(random.next() % UInt64(items.count))
            switch random.next() % 20 {
            case 0..<10:
                try store.updateItem(
                    id: items[index], ItemChanges(title: (0..<6).map { _ in word() }.joined(separator: " ")))
            case 10..<14:
                try store.updateItem(id: items[index], ItemChanges(isCompleted: random.next() % 2 == 0))
            case 14..<17:
                let project = projects[Int(random.next() % UInt64(projects.count))]
                let item = try store.addItem(
                    projectID: project, title: (0..<6).map { _ in word() }.joined(separator: " "),
                    detail: (0..<60).map { _ in word() }.joined(separator: " "))
                items.append(item.id)
            default:
                try store.deleteItem(id: items[index])
                items.swapAt(index, items.count - 1)
                items.removeLast()
            }
        }
    }
}
