import Foundation

/// The files of one Spotlite index: a directory holding generations of Xapian databases and a
/// `XAPIANDB` stub that names the current one.
///
/// ```
/// <root>/spotlite-index  the marker: this directory is a Spotlite index of store <uuid>
/// <root>/XAPIANDB        "auto db-3"   ← readers (and xapian-delve <root>) open this
/// <root>/db-3/           the current glass database
/// <root>/write.lock      flock held by the one writer, with its pid inside
/// <root>/check-state     the table files as last checked or written (see ``IndexHealth``)
/// ```
/// A rebuild writes `db-4`, then replaces the stub with one rename: a search sees the old index or the
/// new one, never an empty or half-built one.
///
/// Spotlite deletes only what it can prove it made: a directory it did not mark is never written to (see
/// ``claim(for:storePath:)``), and a generation goes only if it carries the marker naming this index's own id,
/// written when Spotlite made it (``GenerationMarker``), and it holds nothing but Xapian's files and that marker
/// (``removeGeneration(_:)``): a directory named like a generation that someone else put there stays.
public struct IndexLocation: Sendable, Equatable {
    public let root: String

    public init(root: String) {
        self.root = (root as NSString).standardizingPath
    }

    var stubPath: String { root + "/XAPIANDB" }
    var lockPath: String { root + "/write.lock" }
    var markerPath: String { root + "/" + IndexMarker.fileName }
    var checkStatePath: String { root + "/check-state" }

    /// The name of the current generation (e.g. `db-3`), or nil if there is no index.
    func currentGeneration() -> String? {
        guard let text = try? String(contentsOfFile: stubPath, encoding: .utf8) else { return nil }
        return Self.generation(inStub: text)
    }

    /// The generation a stub's text names (`auto db-3`), if it names one of the form Spotlite gives.
    static func generation(inStub text: String) -> String? {
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.count == 2, words[0] == "auto", isGenerationName(words[1]) { return String(words[1]) }
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

    /// Whether this user may write in the index directory (false on a read-only mount, or another user's index).
    var isWritable: Bool { access(root, W_OK) == 0 }

    /// A name for a new generation, after every one present.
    func nextGeneration() -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        let numbers = names.compactMap(Self.generationNumber)
        let next = (numbers.max() ?? 0).addingReportingOverflow(1)
        return "db-\(next.overflow ? 1 : next.partialValue)"
    }

    /// Makes `generation` current atomically: its files are flushed to disk, then the stub is replaced by a rename.
    func makeCurrent(_ generation: String) throws {
        let directory = path(of: generation)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            try Self.fsync(path: directory + "/" + name)
        }
        try Self.fsync(path: directory)
        let temporary = stubPath + ".tmp"
        try Self.write(Data("auto \(generation)\n".utf8), to: temporary)
        try Self.fsync(path: temporary)
        guard rename(temporary, stubPath) == 0 else {
            throw IndexerError(.index, "cannot replace \(stubPath): \(String(cString: strerror(errno)))")
        }
        try Self.fsync(path: root)
    }

    /// Removes every generation of this index but the current one (left over by swaps and interrupted
    /// rebuilds). Returns the names of the generation-like directories it left: not this index's (no marker, or
    /// another index's), or holding files Xapian does not make.
    @discardableResult
    func removeStaleGenerations() -> [String] {
        let current = currentGeneration()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.filter { Self.isGenerationName($0) && $0 != current && !removeGeneration($0) }
    }

    /// Removes the generation `name` (a generation or a shard of one) if it can prove it is this index's: a name of
    /// the form `db-N` or `db-N.shard-K`, a real directory (not a link), carrying the marker of this index's id
    /// (``GenerationMarker``), holding nothing but Xapian's files and that marker. Anything else is left in place.
    /// Returns whether `name` is gone.
    @discardableResult
    func removeGeneration(_ name: String) -> Bool {
        guard Self.isGenerationName(name) else { return false }
        let directory = path(of: name)
        var status = stat()
        guard lstat(directory, &status) == 0 else { return true }
        guard status.st_mode & S_IFMT == S_IFDIR, let id = indexID, isOwnGeneration(name, indexID: id) else {
            return false
        }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for entry in entries where Self.isXapianFile(entry) { unlink(directory + "/" + entry) }
        // The marker goes last, and only when nothing but it is left: a directory that keeps a file of someone
        // else's keeps its proof of whose it was.
        let left = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        if left == [GenerationMarker.fileName] { unlink(directory + "/" + GenerationMarker.fileName) }
        return rmdir(directory) == 0
    }

    /// `db-N` or `db-N.shard-K`, N and K decimal numbers: the only names Spotlite gives generations.
    static func isGenerationName<S: StringProtocol>(_ name: S) -> Bool {
        generationNumber(String(name)) != nil
    }

    /// N of `db-N` or `db-N.shard-K`.
    static func generationNumber(_ name: String) -> Int? {
        guard name.hasPrefix("db-") else { return nil }
        let parts = name.dropFirst(3).split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let number = parts.first.flatMap({ isDecimal($0) ? Int($0) : nil }) else { return nil }
        if parts.count == 2 {
            guard parts[1].hasPrefix("shard-"), isDecimal(parts[1].dropFirst(6)) else { return nil }
        }
        return number
    }

    private static func isDecimal<S: StringProtocol>(_ text: S) -> Bool {
        !text.isEmpty && text.count <= 9 && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// The files Xapian's glass backend keeps in a database directory: the tables, the version file, its
    /// temporary, the lock, and the changesets a published index's commits write for its replicas (`changes<N>`,
    /// and `changestmp` while one is written).
    static func isXapianFile(_ name: String) -> Bool {
        isTableFile(name) || name == "v.tmp" || name == "flintlock" || isChangeset(name)
    }

    /// The tables and the version file: what a search reads, and what ``IndexHealth`` watches.
    static func isTableFile(_ name: String) -> Bool { name.hasSuffix(".glass") || name == "iamglass" }

    /// A changeset Xapian writes beside the tables while `XAPIAN_MAX_CHANGESETS` is set (``IndexPublisher``).
    static func isChangeset(_ name: String) -> Bool {
        guard name.hasPrefix("changes") else { return false }
        let rest = name.dropFirst(7)
        return rest == "tmp" || isDecimal(rest)
    }

    static func fsync(path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw IndexerError(.index, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        if Glibc.fsync(descriptor) != 0 && errno != EINVAL {
            throw IndexerError(.index, "cannot flush \(path) to disk: \(String(cString: strerror(errno)))")
        }
    }

    /// Writes `data` to a new file at `path` (replacing one there), reporting any short write.
    static func write(_ data: Data, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw IndexerError(.index, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else {
                    throw IndexerError(.index, "cannot write \(path): \(String(cString: strerror(errno)))")
                }
                offset += written
            }
        }
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

    /// The file open as `descriptor`.
    init?(descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        changed = nil
    }
}
