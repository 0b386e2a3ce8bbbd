import Foundation
import GRDB

/// What is at a store path before SQLite is let near it.
enum StoreFile {
    enum State {
        case missing
        /// A file of 0 bytes: safe to make a store in.
        case empty
        case directory
        /// A file with content; its first 16 bytes.
        case other(header: Data)
    }

    /// Looks at `path` without following it into SQLite: a directory or an unreadable file is named, not opened.
    static func inspect(_ path: String) throws(StoreError) -> State {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT { return .missing }
            throw StoreError(.database, "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        if status.st_mode & S_IFMT == S_IFDIR { return .directory }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw StoreError(
                .notAStore, "\(path) is not a regular file, so not a Spotlite store; give --store an SQLite file")
        }
        if status.st_size == 0 { return .empty }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StoreError(.database, "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var header = [UInt8](repeating: 0, count: 16)
        let count = read(descriptor, &header, header.count)
        guard count >= 0 else {
            throw StoreError(.database, "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        return .other(header: Data(header[..<count]))
    }

    static func directoryError(_ path: String) -> StoreError {
        StoreError(
            .notAStore,
            "\(path) is a directory, not a store; give --store the SQLite file (e.g. \(path)/tracker.sqlite)")
    }

    /// Whether this user may write the file and make the `-wal`/`-shm` files beside it.
    static func isWritable(_ path: String) -> Bool {
        let directory = (path as NSString).deletingLastPathComponent
        return access(path, W_OK) == 0 && access(directory.isEmpty ? "." : directory, W_OK) == 0
    }

    /// Whether a read-only open failed only because SQLite could not make the WAL index (`-shm`).
    static func needsImmutableOpen(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_CANTOPEN || error.resultCode == .SQLITE_READONLY
    }
}
