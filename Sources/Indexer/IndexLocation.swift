import Foundation

/// The files of one Spotlite index: a directory holding generations of Xapian databases and a
/// `XAPIANDB` stub that names the current one.
///
/// ```
/// <root>/XAPIANDB      "auto db-3"   ← readers (and xapian-delve <root>) open this
/// <root>/db-3/         the current glass database
/// <root>/write.lock    flock held by the one writer, with its pid inside
/// ```
/// A rebuild writes `db-4`, then replaces the stub with one rename: a search sees the old index or the
/// new one, never an empty or half-built one.
public struct IndexLocation: Sendable, Equatable {
    public let root: String

    public init(root: String) {
        self.root = (root as NSString).standardizingPath
    }

    var stubPath: String { root + "/XAPIANDB" }
    var lockPath: String { root + "/write.lock" }

    /// The name of the current generation (e.g. `db-3`), or nil if there is no index.
    func currentGeneration() -> String? {
        guard let text = try? String(contentsOfFile: stubPath, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.count == 2, words[0] == "auto", words[1].hasPrefix("db-") { return String(words[1]) }
        }
        return nil
    }

    /// Which file the stub is now: a rebuild replaces it by a rename, so a different value means another
    /// generation may be current.
    func stubIdentity() -> FileIdentity? { FileIdentity(path: stubPath, includingChangeTime: true) }

    /// Whether an index exists (a stub naming a generation directory that is there).
    public var exists: Bool {
        guard let generation = currentGeneration() else { return false }
        return FileManager.default.fileExists(atPath: path(of: generation))
    }

    func path(of generation: String) -> String { root + "/" + generation }

    /// A name for a new generation, after every one present.
    func nextGeneration() -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        let numbers = names.compactMap { $0.hasPrefix("db-") ? Int($0.dropFirst(3)) : nil }
        return "db-\((numbers.max() ?? 0) + 1)"
    }

    func createRoot() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    /// Makes `generation` current atomically: its files are flushed to disk, then the stub is replaced by a rename.
    func makeCurrent(_ generation: String) throws {
        let directory = path(of: generation)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            try Self.fsync(path: directory + "/" + name)
        }
        try Self.fsync(path: directory)
        let temporary = stubPath + ".tmp"
        try Data("auto \(generation)\n".utf8).write(to: URL(fileURLWithPath: temporary))
        try Self.fsync(path: temporary)
        guard rename(temporary, stubPath) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: stubPath])
        }
        try Self.fsync(path: root)
    }

    /// Removes every generation but the current one (left over by swaps and interrupted rebuilds).
    func removeStaleGenerations() {
        let current = currentGeneration()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        for name in names where name.hasPrefix("db-") && name != current {
            try? FileManager.default.removeItem(atPath: path(of: name))
        }
    }

    static func fsync(path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: path]) }
        defer { close(descriptor) }
        _ = Glibc.fsync(descriptor)
    }
}

/// Which file a path names at the moment (device and inode), so that a file put in its place by a rename
/// differs from the one opened before.
struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64
    /// The last status change, when asked for: a new file may reuse the inode number of one removed meanwhile.
    let changed: [Int]?

    /// Nil if nothing is at `path`.
    init?(path: String, includingChangeTime: Bool = false) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        changed = includingChangeTime ? [status.st_ctim.tv_sec, status.st_ctim.tv_nsec] : nil
    }
}
