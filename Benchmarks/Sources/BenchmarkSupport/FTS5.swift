import Foundation
import GRDB

/// The SQLite FTS5 baseline, in the same store file: an external-content table over `items` (title and
/// detail, porter stemming over unicode61), queried with `bm25` weighting the title twice as the detail,
/// joined back to `items` for the rows — what a user would otherwise pick.
public final class FTS5 {
    let queue: DatabaseQueue

    public init(storePath: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        queue = try DatabaseQueue(path: storePath, configuration: configuration)
    }

    /// Drops and builds the full-text table from every item; returns the number of rows indexed.
    @discardableResult
    public func rebuild() throws -> Int {
        try queue.write { db in
            try db.execute(sql: "DROP TABLE IF EXISTS bench_fts")
            try db.execute(
                sql: """
                    CREATE VIRTUAL TABLE bench_fts USING fts5(
                        title, detail, content='items', content_rowid='rowid', tokenize='porter unicode61')
                    """)
            try db.execute(sql: "INSERT INTO bench_fts(bench_fts) VALUES ('rebuild')")
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM items") ?? 0
        }
    }

    /// The top `limit` item ids for an FTS5 query, by bm25 (title weighted 2), with `extra` SQL conditions on
    /// `items` and an optional order instead of relevance.
    public func search(_ match: String, extra: String = "", orderBy: String? = nil, limit: Int = 20) throws -> [String]
    {
        try queue.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT items.id FROM bench_fts JOIN items ON items.rowid = bench_fts.rowid
                    WHERE bench_fts MATCH ? \(extra)
                    ORDER BY \(orderBy ?? "bm25(bench_fts, 2.0, 1.0)") LIMIT ?
                    """,
                arguments: [match, limit])
        }
    }

    /// A page as a search page shows it: the top `limit` items' fields with a snippet of each detail (FTS5's
    /// `snippet()`, 24 tokens, the matches marked), for the same query as ``search(_:extra:orderBy:limit:)``.
    public func searchPage(_ match: String, extra: String = "", orderBy: String? = nil, limit: Int = 20) throws
        -> [[String]]
    {
        try queue.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT items.id, items.title, items.priority, items.completed, items.modified_at,
                        snippet(bench_fts, 1, char(2), char(3), '…', 24)
                    FROM bench_fts JOIN items ON items.rowid = bench_fts.rowid
                    WHERE bench_fts MATCH ? \(extra)
                    ORDER BY \(orderBy ?? "bm25(bench_fts, 2.0, 1.0)") LIMIT ?
                    """,
                arguments: [match, limit]
            ).map { row in (0..<6).map { String(describing: row[$0] as DatabaseValue) } }
        }
    }

    /// Makes the table follow `items` on every later write (FTS5's documented triggers for external content).
    public func followWrites() throws {
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TRIGGER IF NOT EXISTS bench_fts_insert AFTER INSERT ON items BEGIN
                        INSERT INTO bench_fts(rowid, title, detail) VALUES (new.rowid, new.title, new.detail);
                    END;
                    CREATE TRIGGER IF NOT EXISTS bench_fts_delete AFTER DELETE ON items BEGIN
                        INSERT INTO bench_fts(bench_fts, rowid, title, detail) VALUES ('delete', old.rowid, old.title, old.detail);
                    END;
                    CREATE TRIGGER IF NOT EXISTS bench_fts_update AFTER UPDATE OF title, detail ON items BEGIN
                        INSERT INTO bench_fts(bench_fts, rowid, title, detail) VALUES ('delete', old.rowid, old.title, old.detail);
                        INSERT INTO bench_fts(rowid, title, detail) VALUES (new.rowid, new.title, new.detail);
                    END;
                    """)
        }
    }

    /// Removes the table and its triggers, leaving the store as Spotlite made it.
    public func drop() throws {
        try queue.write { db in
            for trigger in ["bench_fts_insert", "bench_fts_delete", "bench_fts_update"] {
                try db.execute(sql: "DROP TRIGGER IF EXISTS \(trigger)")
            }
            try db.execute(sql: "DROP TABLE IF EXISTS bench_fts")
        }
    }
}
