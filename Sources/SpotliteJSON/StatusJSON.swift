import Foundation
import Indexer

/// The JSON of `status --format json` and of the server's `/v1/status`.
public enum StatusJSON {
    /// `replicas`: the remote stores' replicas of this host, by store name; listed (`replicas`) when there are any.
    public static func status(
        _ status: IndexStatus, replicas: [(store: String, directory: String, status: IndexReplica.Status)] = [],
        now: Date = Date()
    ) -> JSON {
        let fields = fields(status)
        guard !replicas.isEmpty else { return .object(fields) }
        return .object(
            fields + [
                (
                    "replicas",
                    .array(
                        replicas.map { store, directory, replica in
                            Self.replica(replica, directory: directory, store: store, now: now)
                        })
                )
            ])
    }

    static func fields(_ status: IndexStatus) -> [(String, JSON)] {
        [
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
        ]
    }

    /// A replica's lag (`replica --status --format json`, and each remote store's in `/v1/status`): keys whose value
    /// is not known yet are left out, as before any copy. `seconds_since_copy` bounds how many seconds the copy is
    /// behind its primary: it is at least as current as the primary was at the start of its last copy.
    public static func replica(
        _ status: IndexReplica.Status, directory: String, store: String? = nil, now: Date = Date()
    )
        -> JSON
    {
        let age = status.copiedAt.map { max(0, now.timeIntervalSince($0)) }
        let known: [(String, JSON?)] = [
            ("store", store.map { .string($0) }), ("store_uuid", .string(status.storeID)),
            ("from", .string(status.from)), ("directory", .string(directory)),
            ("copied_at", status.copiedAt.map { .string(timestamp($0)) }),
            ("seconds_since_copy", age.map { .double(($0 * 1000).rounded() / 1000) }),
            ("attempted_at", status.attemptedAt.map { .string(timestamp($0)) }),
            ("last_error", status.error.map { .string($0) }), ("cursor", status.cursor.map { .int(Int($0)) }),
            ("documents", status.documents.map { .int($0) }), ("full_copies", .int(status.fullCopies)),
            ("changesets", .int(status.changesets)), ("primary_change", status.primaryChange.map { .int(Int($0)) }),
            ("changes_behind", status.changesBehind.map { .int(Int($0)) }),
        ]
        return .object(known.compactMap { key, value in value.map { (key, $0) } })
    }

    /// An instant as RFC 3339 with milliseconds, in UTC.
    public static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
