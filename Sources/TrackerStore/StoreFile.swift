import Foundation
import GRDB
import GRDBSQLite

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
        return .other(header: try header(path, size: Int(status.st_size)))
    }

    /// The first 16 bytes of the file at `path` (of `size` bytes), read through SQLite's own file layer. Closing a
    /// descriptor of a file drops every POSIX lock this process holds on it, SQLite's too: another process then
    /// finds itself the store's last user when it closes, checkpoints and deletes the write-ahead log under this
    /// process's open connections, and what they write afterwards goes to the deleted file, lost. SQLite's layer
    /// keeps the descriptor open while its connections here hold locks on the file, and closes it after them.
    private static func header(_ path: String, size: Int) throws(StoreError) -> Data {
        guard access(path, R_OK) == 0 else {
            throw StoreError(.database, "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        var connection: OpaquePointer?
        // Read-only and without a statement: the file is opened and nothing is created beside it.
        let opened = sqlite3_open_v2(path, &connection, SQLITE_OPEN_READONLY, nil)
        defer { sqlite3_close_v2(connection) }
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard opened == SQLITE_OK,
            sqlite3_file_control(connection, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
            let file, let read = file.pointee.pMethods?.pointee.xRead
        else {
            let reason = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            throw StoreError(.database, "cannot read \(path): \(reason)")
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = min(size, bytes.count)
        let status = bytes.withUnsafeMutableBytes { read(file, $0.baseAddress, Int32(count), 0) }
        guard status == SQLITE_OK else {
            throw StoreError(.database, "cannot read \(path): \(String(cString: sqlite3_errstr(status)))")
        }
        return Data(bytes[..<count])
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
