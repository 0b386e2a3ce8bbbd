import Foundation

/// Where files live by default (docs/exit-codes-and-files.md): the store under the XDG data directory, the derived index
/// under the XDG cache directory, one folder per store UUID.
enum Paths {
    static func environment(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }

    static var home: String { environment("HOME") ?? NSHomeDirectory() }

    /// `$XDG_DATA_HOME/spotlite/tracker.sqlite`, falling back to `~/.local/share/spotlite/tracker.sqlite`.
    static var defaultStore: String {
        let base = environment("XDG_DATA_HOME") ?? home + "/.local/share"
        return base + "/spotlite/tracker.sqlite"
    }

    /// `$XDG_CACHE_HOME/spotlite/<store-uuid>`, falling back to `~/.cache/spotlite/<store-uuid>`.
    static func defaultIndex(storeID: String) -> String {
        let base = environment("XDG_CACHE_HOME") ?? home + "/.cache"
        return base + "/spotlite/" + storeID
    }

    /// `$XDG_CACHE_HOME/spotlite/replicas/<store-uuid>`: where a replica of another host's index is kept.
    static func defaultReplica(storeID: String) -> String {
        let base = environment("XDG_CACHE_HOME") ?? home + "/.cache"
        return base + "/spotlite/replicas/" + storeID.lowercased()
    }
}
