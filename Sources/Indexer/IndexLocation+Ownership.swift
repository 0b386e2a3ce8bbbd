import Foundation
import SearchIndex

/// The file that marks a directory as a Spotlite index, names the store it belongs to, and gives the index an
/// identity of its own (`id`, a UUID made when the directory is claimed) that every generation Spotlite makes
/// carries (``GenerationMarker``): the proof that lets Spotlite delete an old generation.
///
/// ```
/// # A Spotlite search index: derived from the store, safe to delete, rebuilt by `spotlite index`.
/// format 1
/// store 2ca4d0c0-81f4-4216-823a-104a32f4c87e
/// layout 4
/// id 7f1c0e52-9d4b-4f0e-b1a6-3c2d8e9f0a11
/// ```
struct IndexMarker: Equatable {
    static let fileName = "spotlite-index"
    static let comment =
        "# A Spotlite search index: derived from the store, safe to delete, rebuilt by `spotlite index`."

    var storeID: String
    var layout: String
    /// The index's own identity; nil in a marker written before generations carried it.
    var id: String?

    var text: String {
        "\(Self.comment)\nformat 1\nstore \(storeID)\nlayout \(layout)\n" + (id.map { "id \($0)\n" } ?? "")
    }

    /// Parses a marker; nil if the text is not one.
    init?(text: String) {
        var fields: [Substring: Substring] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let words = line.split(separator: " ", maxSplits: 1)
            if words.count == 2 { fields[words[0]] = words[1] }
        }
        guard fields["format"] == "1", let store = fields["store"], !store.isEmpty else { return nil }
        storeID = String(store)
        layout = String(fields["layout"] ?? "")
        id = fields["id"].flatMap { UUID(uuidString: String($0)) != nil ? String($0) : nil }
    }

    init(storeID: String, layout: String, id: String? = UUID().uuidString.lowercased()) {
        self.storeID = storeID
        self.layout = layout
        self.id = id
    }
}

/// The file in each generation directory Spotlite makes (`db-N/spotlite-generation`), naming the index it was
/// made for (``IndexMarker/id``). A directory named like a generation without it, or naming another index, is
/// not Spotlite's to delete: someone put it there, or copied it from elsewhere.
enum GenerationMarker {
    static let fileName = "spotlite-generation"

    static func text(indexID: String) -> String {
        "# Made by Spotlite for the index \(indexID); removed with it when a newer generation replaces it.\n"
            + "index \(indexID)\n"
    }

    /// The index a marker's text names, or nil.
    static func indexID(in text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix("index ") {
            return String(line.dropFirst("index ".count))
        }
        return nil
    }
}

/// What the directory at an index path holds.
enum IndexDirectoryState: Equatable {
    /// Nothing is there yet.
    case missing
    /// An empty directory.
    case empty
    /// A Spotlite index, marked.
    case marked(IndexMarker)
    /// An index made by a Spotlite from before markers: only a stub, generations and the lock, nothing else.
    case unmarkedIndex
    /// A file, not a directory.
    case notADirectory
    /// A directory with other things in it: the first few, and how many in all.
    case occupied([String], count: Int)
}

extension IndexLocation {
    /// What is at ``root`` now.
    func state() -> IndexDirectoryState {
        var status = stat()
        guard stat(root, &status) == 0 else { return .missing }
        guard status.st_mode & S_IFMT == S_IFDIR else { return .notADirectory }
        if let text = try? String(contentsOfFile: markerPath, encoding: .utf8), let marker = IndexMarker(text: text) {
            return .marked(marker)
        }
        let entries = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted()
        if entries.isEmpty { return .empty }
        let indexFiles: Set<String> = ["XAPIANDB", "XAPIANDB.tmp", "write.lock"]
        if entries.contains("XAPIANDB"), currentGeneration() != nil,
            entries.allSatisfy({ indexFiles.contains($0) || Self.isGenerationName($0) })
        {
            return .unmarkedIndex
        }
        return .occupied(Array(entries.prefix(3)), count: entries.count)
    }

    /// Makes sure ``root`` is this store's index directory, creating and marking it if it is missing or empty.
    /// Call before writing anything there.
    ///
    /// Throws ``IndexerError/Code-swift.struct/badIndexPath`` when the path is a file, holds the store, is a
    /// directory with other things in it, or is the index of another store: nothing there is touched.
    func claim(for storeID: String, storePath: String) throws(IndexerError) {
        try checkApart(from: storePath)
        switch state() {
        case .missing:
            do {
                try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            } catch {
                throw IndexerError(
                    .index,
                    "cannot create the index directory \(root): \(Self.reason(error)); give --index a writable place")
            }
            try mark(IndexMarker(storeID: storeID, layout: SearchIndexLayout.version))
        case .empty:
            try mark(IndexMarker(storeID: storeID, layout: SearchIndexLayout.version))
        case .marked(let marker):
            try checkOwner(marker.storeID, storeID)
            if marker.id == nil { try adopt(IndexMarker(storeID: storeID, layout: marker.layout)) }
        case .unmarkedIndex:
            // An older Spotlite's index: adopted if its metadata names this store (or none), refused if another.
            let owner = (try? SearchReader(path: root).metadata(StoreIndexer.storeKey)).flatMap {
                $0.isEmpty ? nil : $0
            }
            try checkOwner(owner ?? storeID, storeID)
            try adopt(IndexMarker(storeID: storeID, layout: SearchIndexLayout.version))
        case .notADirectory:
            throw Self.notADirectory(root)
        case .occupied(let entries, let count):
            throw Self.occupied(root, entries, count)
        }
    }

    /// Marks an index an older Spotlite made (no marker, or one without an id) with `marker`, and its current
    /// generation (the one its stub names, in a directory already this store's) as made for it. Other generations
    /// there carry no proof and are left alone.
    private func adopt(_ marker: IndexMarker) throws(IndexerError) {
        try mark(marker)
        if let id = marker.id, let generation = currentGeneration() {
            var status = stat()
            if lstat(path(of: generation), &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
                try writeGenerationMarker(generation, indexID: id)
            }
        }
    }

    /// The index's own id (``IndexMarker/id``), or nil when the directory is not marked with one.
    var indexID: String? {
        guard case .marked(let marker) = state() else { return nil }
        return marker.id
    }

    /// Makes the directory of a new generation, marked as this index's: throws if it exists (someone else's), or
    /// if the index has no id (it is not claimed).
    func createGeneration(_ name: String) throws(IndexerError) {
        guard let id = indexID else {
            throw IndexerError(.index, "\(root) is not marked as a Spotlite index; nothing is built there")
        }
        guard mkdir(path(of: name), 0o755) == 0 else {
            throw IndexerError(
                .index, "cannot make the new generation \(path(of: name)): \(String(cString: strerror(errno)))")
        }
        do {
            try writeGenerationMarker(name, indexID: id)
        } catch {
            // Made by this call a moment ago, and empty but for the marker that could not be written: ours to undo.
            unlink(path(of: name) + "/" + GenerationMarker.fileName)
            rmdir(path(of: name))
            throw error
        }
    }

    private func writeGenerationMarker(_ name: String, indexID: String) throws(IndexerError) {
        let file = path(of: name) + "/" + GenerationMarker.fileName
        do {
            try Self.write(Data(GenerationMarker.text(indexID: indexID).utf8), to: file)
        } catch {
            throw IndexerError(.index, "cannot mark \(path(of: name)) as this index's: \(Self.reason(error))")
        }
    }

    /// Whether the generation directory `name` carries the marker of this index (`indexID`).
    func isOwnGeneration(_ name: String, indexID: String) -> Bool {
        let file = path(of: name) + "/" + GenerationMarker.fileName
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return false }
        return GenerationMarker.indexID(in: text) == indexID
    }

    /// For readers: throws if ``root`` is something other than this store's index (or nothing yet).
    func checkReadable(for storeID: String, storePath: String) throws(IndexerError) {
        try checkApart(from: storePath)
        switch state() {
        case .marked(let marker): try checkOwner(marker.storeID, storeID)
        case .notADirectory: throw Self.notADirectory(root)
        case .occupied(let entries, let count): throw Self.occupied(root, entries, count)
        case .missing, .empty, .unmarkedIndex: break
        }
    }

    /// Records the layout a rebuild wrote in the marker (for people reading it; the index's metadata decides).
    func updateMarker(layout: String, storeID: String) throws(IndexerError) {
        guard case .marked(let marker) = state(), marker.layout != layout else { return }
        try mark(IndexMarker(storeID: storeID, layout: layout))
    }

    private func mark(_ marker: IndexMarker) throws(IndexerError) {
        let temporary = markerPath + ".tmp"
        do {
            try Self.write(Data(marker.text.utf8), to: temporary)
        } catch {
            unlink(temporary)
            throw IndexerError(.index, "cannot mark \(root) as a Spotlite index: \(Self.reason(error))")
        }
        guard rename(temporary, markerPath) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw IndexerError(.index, "cannot mark \(root) as a Spotlite index: \(reason)")
        }
    }

    private func checkOwner(_ owner: String, _ storeID: String) throws(IndexerError) {
        guard owner != storeID else { return }
        throw IndexerError(
            .badIndexPath,
            "\(root) is the index of another store (tracker://\(owner)), not of this one (tracker://\(storeID)); "
                + "give this store its own --index, or delete that directory (an index is derived data) to reuse it")
    }

    /// The index never goes where the store lives: its directory may be cleaned of old generations.
    private func checkApart(from storePath: String) throws(IndexerError) {
        let store = URL(fileURLWithPath: storePath).standardizedFileURL.resolvingSymlinksInPath().path
        let index = URL(fileURLWithPath: root).standardizedFileURL.resolvingSymlinksInPath().path
        if store == index {
            throw Self.notADirectory(root)
        }
        if store.hasPrefix(index + "/") || index == "/" {
            throw IndexerError(
                .badIndexPath,
                "the index directory \(root) would hold the store \(storePath); give the index a directory of its own")
        }
    }

    private static func occupied(_ root: String, _ entries: [String], _ count: Int) -> IndexerError {
        let more = count > entries.count ? " and \(count - entries.count) more" : ""
        return IndexerError(
            .badIndexPath,
            "\(root) is not empty and not a Spotlite index (it holds \(entries.joined(separator: ", "))\(more)); "
                + "give --index a new or empty directory: Spotlite writes only where it can tell it is its own")
    }

    private static func notADirectory(_ root: String) -> IndexerError {
        IndexerError(
            .badIndexPath,
            "the index path \(root) is a file, not a directory; give --index a directory (Spotlite creates it)")
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? IndexerError { return error.message }
        if let error = error as? CocoaError, let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain
        {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return error.localizedDescription
    }
}
