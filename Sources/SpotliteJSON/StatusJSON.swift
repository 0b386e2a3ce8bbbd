import Indexer

/// The JSON of `status --format json` and of the server's `/v1/status`.
public enum StatusJSON {
    public static func status(_ status: IndexStatus) -> JSON {
        .object([
            ("store", .string(status.storePath)),
            ("store_uuid", .string(status.storeID)),
            ("index", .string(status.indexPath)),
            ("projects", .int(status.projects)),
            ("items", .int(status.items)),
            ("messages", .int(status.messages)),
            ("last_change", .int(Int(status.lastChange))),
            ("index_exists", .bool(status.indexExists)),
            ("indexed_documents", status.indexedDocuments.map { .int($0) } ?? .null),
            ("cursor", status.cursor.map { .int(Int($0)) } ?? .null),
            ("changes_behind", status.changesBehind.map { .int($0) } ?? .null),
            ("needs_rebuild", status.needsRebuild.map { .string($0) } ?? .null),
            ("oldest_pending_seconds", status.oldestPendingAge.map { .int(Int($0)) } ?? .null),
            ("writer_pid", status.writer.map { .int(Int($0.pid)) } ?? .null),
            ("watcher_pid", status.watcher.map { .int(Int($0)) } ?? .null),
            ("writer_state", status.writerState.map { .string($0) } ?? .null),
            ("index_problem", status.indexProblem.map { .string($0) } ?? .null),
        ])
    }
}
