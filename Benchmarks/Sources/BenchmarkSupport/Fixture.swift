import Foundation
import Indexer
import SearchIndex
import TrackerStore

/// A corpus the benchmarks run on.
public enum Corpus: Sendable, CustomStringConvertible {
    /// The Debian changelog corpus of `samples/`.
    case debian
    /// ``SyntheticCorpus`` with this many items (1,000 projects).
    case synthetic(Int)
    /// ``DictionaryCorpus`` with this many items (1,000 projects).
    case dictionary(Int)
    /// The shared size-and-speed corpus, `../shared/corpora/zipf_synthetic.py` beside the repository, with this many
    /// items: Zipf(1) over the dictionary's words with short words ranked first (more words per byte of text).
    case zipf(Int)

    public var description: String {
        switch self {
        case .debian: return "Debian corpus"
        case .synthetic(let items): return "synthetic \(items / 1_000)k"
        case .dictionary(let items): return "dictionary Zipf \(items / 1_000)k"
        case .zipf(let items): return "zipf_synthetic \(items / 1_000)k"
        }
    }

    var fileName: String {
        switch self {
        case .debian: return "debian"
        case .synthetic(let items): return "synthetic-\(items)"
        case .dictionary(let items): return "dictionary-\(items)"
        case .zipf(let items): return "zipf-\(items)"
        }
    }

    /// The corpus in the import format.
    public func jsonLines() throws -> Data {
        switch self {
        case .debian:
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["gzip", "-dc", Fixture.repositoryRoot + "/samples/debian-changelogs.jsonl.gz"]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return data
        case .synthetic(let items):
            return SyntheticCorpus(items: items).jsonLines()
        case .dictionary(let items):
            return try DictionaryCorpus(items: items).jsonLines()
        case .zipf(let items):
            let script = Fixture.repositoryRoot + "/../shared/corpora/zipf_synthetic.py"
            guard FileManager.default.fileExists(atPath: script) else {
                throw CorpusError(message: "\(script) is missing: the shared corpora must sit beside the repository")
            }
            let output = NSTemporaryDirectory() + "zipf-\(items)-\(getpid()).jsonl"
            defer { try? FileManager.default.removeItem(atPath: output) }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", script, String(items), output]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw CorpusError(message: "zipf_synthetic.py exited with \(process.terminationStatus)")
            }
            return try Data(contentsOf: URL(fileURLWithPath: output))
        }
    }
}

/// A corpus that cannot be made.
public struct CorpusError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// A store filled with a corpus and its Spotlite index, built once and kept under the temporary directory
/// (each benchmark runs in a process of its own; rebuilding 100k items for each would dominate the run).
/// ``scratchCopy()`` gives a benchmark that writes its own copy.
public struct Fixture: Sendable {
    public let corpus: Corpus
    public let directory: String
    public var storePath: String { directory + "/tracker.sqlite" }
    public var indexPath: String { directory + "/index" }

    public static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    static var cacheRoot: String {
        let base =
            ProcessInfo.processInfo.environment["SPOTLITE_BENCH_DATA"] ?? NSTemporaryDirectory() + "spotlite-benchmarks"
        return base + "/layout-\(SearchIndexLayout.version)"
    }

    /// The cached fixture, made if missing.
    public static func prepared(_ corpus: Corpus) throws -> Fixture {
        let fixture = Fixture(corpus: corpus, directory: cacheRoot + "/" + corpus.fileName)
        let done = fixture.directory + "/complete"
        if FileManager.default.fileExists(atPath: done) { return fixture }
        try? FileManager.default.removeItem(atPath: fixture.directory)
        try FileManager.default.createDirectory(atPath: fixture.directory, withIntermediateDirectories: true)
        let store = try TrackerStore.create(at: fixture.storePath)
        _ = try store.importJSONLines(try corpus.jsonLines())
        try StoreIndexer(store: store, indexPath: fixture.indexPath).rebuild()
        FileManager.default.createFile(atPath: done, contents: Data())
        return fixture
    }

    public func openStore() throws -> TrackerStore { try TrackerStore.open(at: storePath) }

    /// A copy of the store and index in a fresh directory, for benchmarks that write.
    public func scratchCopy() throws -> Fixture {
        let copy = Fixture(
            corpus: corpus, directory: Self.cacheRoot + "/scratch-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(atPath: copy.directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: storePath, toPath: copy.storePath)
        for suffix in ["-wal"] where FileManager.default.fileExists(atPath: storePath + suffix) {
            try FileManager.default.copyItem(atPath: storePath + suffix, toPath: copy.storePath + suffix)
        }
        try FileManager.default.copyItem(atPath: indexPath, toPath: copy.indexPath)
        return copy
    }

    /// Removes a scratch copy.
    public func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A new empty directory under the fixture's, for a baseline's files.
    public func scratchDirectory(_ name: String) -> String {
        let path = directory + "/" + name + "-\(getpid())"
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// Milliseconds `body` took, on the monotonic clock.
public func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

/// Microseconds `body` took, on the monotonic clock.
public func microseconds(_ body: () throws -> Void) rethrows -> Double {
    try milliseconds(body) * 1_000
}

/// A corpus split by project into `parts` stores, each with its index: the same rows as ``Fixture/prepared(_:)``
/// of the corpus, for searches across stores against one store of them all. Cached like a fixture.
public struct SplitFixture: Sendable {
    public let whole: Fixture
    public let storePaths: [String]
    public var indexPaths: [String] { storePaths.map { $0 + ".index" } }

    public static func prepared(_ corpus: Corpus, parts: Int) throws -> SplitFixture {
        let whole = try Fixture.prepared(corpus)
        let directory = Fixture.cacheRoot + "/" + corpus.fileName + "-split-\(parts)"
        let split = SplitFixture(whole: whole, storePaths: (0..<parts).map { directory + "/part-\($0).sqlite" })
        let done = directory + "/complete"
        if FileManager.default.fileExists(atPath: done) { return split }
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // Every line goes to its project's part: a project and its items stay together.
        var lines: [[Data]] = Array(repeating: [], count: parts)
        var partOfProject: [String: Int] = [:]
        for line in try corpus.jsonLines().split(separator: UInt8(ascii: "\n")) {
            guard let object = try JSONSerialization.jsonObject(with: line) as? [String: Any] else { continue }
            let project = (object["kind"] as? String == "project" ? object["id"] : object["project"]) as? String ?? ""
            let part = partOfProject[project] ?? partOfProject.count % parts
            partOfProject[project] = part
            lines[part].append(Data(line))
        }
        for (path, part) in zip(split.storePaths, lines) {
            let store = try TrackerStore.create(at: path)
            _ = try store.importJSONLines(Data(part.joined(separator: Data("\n".utf8))))
            try StoreIndexer(store: store, indexPath: path + ".index").rebuild()
        }
        FileManager.default.createFile(atPath: done, contents: Data())
        return split
    }
}
