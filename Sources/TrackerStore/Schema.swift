import GRDB

/// The store's schema, as GRDB migrations. Never edit a shipped migration: add a new one.
///
/// Everything that keeps the change log honest lives in SQL triggers, so that a change is captured
/// whoever makes it — this package, another program, a sync engine or a plain `sqlite3` shell with foreign
/// keys off.
enum Schema {
    /// The schema version this build writes; a store with a newer one is refused.
    static let version = 6

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: v1)
        }
        migrator.registerMigration("v2") { db in
            try db.execute(sql: v2)
        }
        migrator.registerMigration("v3") { db in
            try db.execute(sql: v3)
        }
        migrator.registerMigration("v4") { db in
            try migrateToV4(db)
        }
        migrator.registerMigration("v5") { db in
            try db.execute(sql: v5)
        }
        migrator.registerMigration("v6") { db in
            try db.execute(sql: v6)
        }
        return migrator
    }

    /// Migrations that only guard writes (triggers) or add what only `serve` and `subscribe` write (v3's
    /// subscriptions): a store without them reads the same, so a read-only store that lacks them can still be
    /// searched.
    /// v4 (messages) too: readers of a store without the table see no messages (``TrackerStore/hasMessages``).
    /// v6 only logs.
    static let readCompatibleMigrations: Set<String> = ["v2", "v3", "v4", "v6"]

    /// v4: chat messages on projects and items, logged and deleted with their parent like items. The change log
    /// and the subscriptions' members take a third entity, `message`: SQLite cannot change a CHECK, so those two
    /// tables are made anew and their rows copied (the log's sequence kept, so no index cursor is ever reused).
    /// v5: what trackers hold besides: an item's author, assignees (one name a line), resolution, closing time and
    /// source (URL and key), its tags (a row each, so that a sync engine shares them as records) and its links to
    /// other items. A tag or link written by anyone logs an update of its item; they go with their item; a link
    /// whose target is deleted stays, dangling, for `verify` to report.
    static var v5: String {
        func bounded(_ column: String, _ bytes: Int) -> String {
            "typeof(\(column)) = 'text' AND length(CAST(\(column) AS BLOB)) <= \(bytes)"
        }
        let oneLine = { (column: String) in "instr(\(column), char(10)) = 0 AND instr(\(column), char(13)) = 0" }
        // Every connection parses the whole schema when it opens, and a search opens several: what v5 adds is kept
        // short (a closing time checked by a CHECK, not two triggers; UUIDs by their shape; a trigger per event).
        let uuidShape = { (column: String) in
            "length(\(column)) = 36 AND \(column) NOT GLOB '*[^0-9a-f-]*' AND length(replace(\(column), '-', '')) = 32 "
                + "AND substr(\(column), 9, 1) || substr(\(column), 14, 1) || substr(\(column), 19, 1) "
                + "|| substr(\(column), 24, 1) = '----'"
        }
        return """
            ALTER TABLE items ADD COLUMN author TEXT NOT NULL DEFAULT ''
                CHECK (\(bounded("author", Message.maximumAuthorBytes)) AND \(oneLine("author")));
            ALTER TABLE items ADD COLUMN assignees TEXT NOT NULL DEFAULT ''
                CHECK (\(bounded("assignees", ItemTracking.maximumAssignees * (Message.maximumAuthorBytes + 1))));
            ALTER TABLE items ADD COLUMN resolution TEXT NOT NULL DEFAULT ''
                CHECK (\(bounded("resolution", ItemTracking.maximumTagBytes)) AND \(oneLine("resolution")));
            ALTER TABLE items ADD COLUMN closed_at TEXT CHECK (closed_at IS NULL OR \(validTimestamp("closed_at")));
            ALTER TABLE items ADD COLUMN source_url TEXT NOT NULL DEFAULT ''
                CHECK (\(bounded("source_url", ItemTracking.maximumURLBytes)) AND (source_url = ''
                    OR source_url GLOB 'https://?*' OR source_url GLOB 'http://?*'));
            ALTER TABLE items ADD COLUMN source_key TEXT NOT NULL DEFAULT ''
                CHECK (\(bounded("source_key", ItemTracking.maximumTagBytes)) AND \(oneLine("source_key")));

            CREATE TABLE tags (
                id TEXT PRIMARY KEY NOT NULL DEFAULT \(uuidDefault) CHECK (\(uuidShape("id"))),
                item_id TEXT NOT NULL,
                title TEXT NOT NULL CHECK (\(bounded("title", ItemTracking.maximumTagBytes))
                    AND length(trim(title)) > 0 AND \(oneLine("title")))
            );
            CREATE INDEX tags_by_item ON tags(item_id);

            CREATE TABLE links (
                id TEXT PRIMARY KEY NOT NULL DEFAULT \(uuidDefault) CHECK (\(uuidShape("id"))),
                item_id TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN (\(ItemLink.Kind.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")))),
                -- the target item, in this store when target_store is '', else in the store of that UUID
                target_item TEXT NOT NULL CHECK (\(uuidShape("target_item"))),
                target_store TEXT NOT NULL DEFAULT '' CHECK (target_store = '' OR \(uuidShape("target_store")))
            );
            CREATE INDEX links_by_item ON links(item_id);
            CREATE INDEX links_by_target ON links(target_item);

            \(["tags", "links"].map { table in
                """
                CREATE TRIGGER \(table)_need_item_on_insert BEFORE INSERT ON \(table)
                WHEN NOT EXISTS (SELECT 1 FROM items WHERE id = NEW.item_id)
                BEGIN SELECT RAISE(ABORT, '\(table).item_id: no such item'); END;
                CREATE TRIGGER \(table)_keep_id_and_item BEFORE UPDATE OF id, item_id ON \(table)
                WHEN NEW.id IS NOT OLD.id OR NOT EXISTS (SELECT 1 FROM items WHERE id = NEW.item_id)
                BEGIN SELECT RAISE(ABORT, '\(table): the id cannot change, and item_id must name an item'); END;
                -- A tag or link changes its item: the index follows. (Deleted with the item, it logs nothing more.)
                CREATE TRIGGER \(table)_log_insert AFTER INSERT ON \(table) BEGIN \(logItemUpdate("NEW")); END;
                CREATE TRIGGER \(table)_log_update AFTER UPDATE ON \(table)
                BEGIN \(logItemUpdate("NEW")); \(logItemUpdate("OLD")) AND OLD.item_id IS NOT NEW.item_id; END;
                CREATE TRIGGER \(table)_log_delete AFTER DELETE ON \(table) BEGIN \(logItemUpdate("OLD")); END;
                """
            }.joined(separator: "\n"))

            -- Tags and links go with their item, whoever deletes it; links to it stay (dangling, `verify` says).
            CREATE TRIGGER items_delete_tags_and_links AFTER DELETE ON items
            BEGIN DELETE FROM tags WHERE item_id = OLD.id; DELETE FROM links WHERE item_id = OLD.id; END;
            """
    }

    /// An item change logged for the item `row.item_id` names (none when it names no item), as tags and links log it.
    static func logItemUpdate(_ row: String) -> String {
        """
        INSERT INTO change_log (entity, entity_id, op, project_id)
            SELECT 'item', id, 'update', project_id FROM items WHERE id = \(row).item_id
        """
    }

    /// v6: an item's commenters (``Item/commenters``) are indexed with it, so a message that adds a name to them or
    /// takes the last of one away logs an update of its item, whoever writes it. (Deleted with its item, it logs an
    /// update the item's deletion then overtakes.) A message's text alone changes only the message.
    static let v6 = """
        CREATE TRIGGER messages_log_item_insert AFTER INSERT ON messages
        WHEN NEW.item_id IS NOT NULL AND NEW.author <> '' AND NOT EXISTS
            (SELECT 1 FROM messages WHERE item_id = NEW.item_id AND author = NEW.author AND id <> NEW.id)
        BEGIN \(logItemUpdate("NEW")); END;
        CREATE TRIGGER messages_log_item_update AFTER UPDATE OF author, item_id ON messages
        WHEN OLD.author IS NOT NEW.author OR OLD.item_id IS NOT NEW.item_id
        BEGIN \(logItemUpdate("NEW")); \(logItemUpdate("OLD")) AND OLD.item_id IS NOT NEW.item_id; END;
        CREATE TRIGGER messages_log_item_delete AFTER DELETE ON messages
        WHEN OLD.item_id IS NOT NULL AND OLD.author <> '' AND NOT EXISTS
            (SELECT 1 FROM messages WHERE item_id = OLD.item_id AND author = OLD.author)
        BEGIN \(logItemUpdate("OLD")); END;
        """

    static func migrateToV4(_ db: GRDB.Database) throws {
        let lastSequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'change_log'") ?? 0
        // With legacy renaming, renaming the new table does not check the triggers that write to the old one by
        // name; they write to the new one.
        try db.execute(sql: "PRAGMA legacy_alter_table = ON")
        defer { try? db.execute(sql: "PRAGMA legacy_alter_table = OFF") }
        try db.execute(
            sql: """
                CREATE TABLE change_log_v4 (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    entity TEXT NOT NULL CHECK (entity IN ('project', 'item', 'message')),
                    entity_id TEXT NOT NULL,
                    op TEXT NOT NULL CHECK (op IN ('insert', 'update', 'delete')),
                    project_id TEXT NOT NULL DEFAULT '',
                    changed_at TEXT NOT NULL DEFAULT (\(now))
                );
                INSERT INTO change_log_v4 (seq, entity, entity_id, op, project_id, changed_at)
                    SELECT seq, entity, entity_id, op, project_id, changed_at FROM change_log ORDER BY seq;
                DROP TABLE change_log;
                ALTER TABLE change_log_v4 RENAME TO change_log;
                CREATE TABLE subscription_members_v4 (
                    subscription_id TEXT NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
                    entity TEXT NOT NULL CHECK (entity IN ('project', 'item', 'message')),
                    entity_id TEXT NOT NULL,
                    PRIMARY KEY (subscription_id, entity, entity_id)
                ) WITHOUT ROWID;
                INSERT INTO subscription_members_v4 SELECT subscription_id, entity, entity_id FROM subscription_members;
                DROP TABLE subscription_members;
                ALTER TABLE subscription_members_v4 RENAME TO subscription_members;
                """)
        try db.execute(sql: "DELETE FROM sqlite_sequence WHERE name = 'change_log'")
        if lastSequence > 0 {
            try db.execute(
                sql: "INSERT INTO sqlite_sequence (name, seq) VALUES ('change_log', ?)", arguments: [lastSequence])
        }
        try db.execute(sql: v4Messages)
    }

    static var v4Messages: String {
        """
        CREATE TABLE messages (
            id TEXT PRIMARY KEY NOT NULL DEFAULT \(uuidDefault) \(uuidCheck("id")),
            -- exactly one of the two: the project or the item the message is on
            project_id TEXT,
            item_id TEXT,
            author TEXT NOT NULL DEFAULT '' CHECK (typeof(author) = 'text' AND length(CAST(author AS BLOB)) <= \(Message.maximumAuthorBytes)),
            text TEXT NOT NULL CHECK (typeof(text) = 'text' AND length(trim(text)) > 0
                AND length(CAST(text AS BLOB)) <= \(Message.maximumTextBytes)),
            created_at TEXT NOT NULL DEFAULT (\(now)),
            modified_at TEXT NOT NULL DEFAULT (\(now)),
            CHECK ((project_id IS NULL) <> (item_id IS NULL))
        );
        CREATE INDEX messages_by_project ON messages(project_id);
        CREATE INDEX messages_by_item ON messages(item_id);

        CREATE TRIGGER messages_keep_id BEFORE UPDATE OF id ON messages WHEN NEW.id IS NOT OLD.id
        BEGIN SELECT RAISE(ABORT, 'messages.id cannot change: delete and insert instead'); END;
        CREATE TRIGGER messages_need_parent_on_insert BEFORE INSERT ON messages
        WHEN (NEW.project_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM projects WHERE id = NEW.project_id))
            OR (NEW.item_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM items WHERE id = NEW.item_id))
        BEGIN SELECT RAISE(ABORT, 'messages: no such project or item'); END;
        CREATE TRIGGER messages_need_parent_on_update BEFORE UPDATE OF project_id, item_id ON messages
        WHEN (NEW.project_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM projects WHERE id = NEW.project_id))
            OR (NEW.item_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM items WHERE id = NEW.item_id))
        BEGIN SELECT RAISE(ABORT, 'messages: no such project or item'); END;
        \(timestampGuards("messages"))

        -- A message goes with what it is on, whoever deletes that (foreign keys on or off).
        CREATE TRIGGER items_delete_messages BEFORE DELETE ON items
        BEGIN DELETE FROM messages WHERE item_id = OLD.id; END;
        CREATE TRIGGER projects_delete_messages BEFORE DELETE ON projects
        BEGIN DELETE FROM messages WHERE project_id = OLD.id; END;

        CREATE TRIGGER messages_log_insert AFTER INSERT ON messages
        BEGIN INSERT INTO change_log (entity, entity_id, op, project_id) VALUES ('message', NEW.id, 'insert',
            coalesce(NEW.project_id, (SELECT project_id FROM items WHERE id = NEW.item_id), '')); END;
        CREATE TRIGGER messages_log_update AFTER UPDATE ON messages
        BEGIN
            UPDATE messages SET modified_at = \(now) WHERE id = NEW.id AND modified_at IS NOT \(now);
            INSERT INTO change_log (entity, entity_id, op, project_id) VALUES ('message', NEW.id, 'update',
                coalesce(NEW.project_id, (SELECT project_id FROM items WHERE id = NEW.item_id), ''));
        END;
        CREATE TRIGGER messages_log_delete AFTER DELETE ON messages
        BEGIN INSERT INTO change_log (entity, entity_id, op, project_id) VALUES ('message', OLD.id, 'delete',
            coalesce(OLD.project_id, (SELECT project_id FROM items WHERE id = OLD.item_id), '')); END;
        """
    }

    /// Saved-query subscriptions (`serve`, `subscribe`): each query once (by its normalised text), the results it
    /// had at its cursor, and the events that moved them. Not tracker data: no change log, no export.
    static let v3 = """
        CREATE TABLE subscriptions (
            id TEXT PRIMARY KEY NOT NULL,
            query TEXT NOT NULL,
            syntax TEXT NOT NULL DEFAULT 'spotlite' CHECK (syntax IN ('spotlite', 'spotlight')),
            normalized TEXT NOT NULL,
            -- the change-log position its members and events are at
            cursor INTEGER NOT NULL DEFAULT 0,
            -- events with seq <= this were pruned with the change log: a client that resumes before it is reset
            events_pruned_through INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL DEFAULT (\(now)),
            UNIQUE (syntax, normalized)
        );
        CREATE TABLE subscription_members (
            subscription_id TEXT NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
            entity TEXT NOT NULL CHECK (entity IN ('project', 'item')),
            entity_id TEXT NOT NULL,
            PRIMARY KEY (subscription_id, entity, entity_id)
        ) WITHOUT ROWID;
        CREATE TABLE subscription_events (
            subscription_id TEXT NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            n INTEGER NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('added', 'changed', 'removed', 'reset')),
            entity TEXT NOT NULL,
            entity_id TEXT NOT NULL,
            PRIMARY KEY (subscription_id, seq, n)
        ) WITHOUT ROWID;
        """

    /// A timestamp in the store's form, `YYYY-MM-DDTHH:MM:SSZ` (UTC, years 0001–9999), that names a real
    /// instant: a round trip through `julianday` gives it back unchanged (it would turn 2024-02-31 into 2024-03-02
    /// and 23:59:60 into the next minute). Works in every SQLite since 3.0, so old `sqlite3` shells can still write.
    private static func validTimestamp(_ column: String) -> String {
        let digit = "[0-9]"
        let pattern =
            "\(digit)\(digit)\(digit)\(digit)-\(digit)\(digit)-\(digit)\(digit)T\(digit)\(digit):"
            + "\(digit)\(digit):\(digit)\(digit)Z"
        return "(typeof(\(column)) = 'text' AND \(column) GLOB '\(pattern)' AND \(column) >= '0001' "
            + "AND strftime('%Y-%m-%dT%H:%M:%SZ', julianday(\(column))) IS \(column))"
    }

    private static func timestampGuards(_ table: String) -> String {
        let valid = "\(validTimestamp("NEW.created_at")) AND \(validTimestamp("NEW.modified_at"))"
        let message = "\(table).created_at and modified_at must be real UTC times like 2024-05-01T09:30:00Z"
        return """
            CREATE TRIGGER \(table)_valid_times_on_insert BEFORE INSERT ON \(table) WHEN NOT (\(valid))
            BEGIN SELECT RAISE(ABORT, '\(message)'); END;
            CREATE TRIGGER \(table)_valid_times_on_update BEFORE UPDATE OF created_at, modified_at ON \(table)
            WHEN NOT (\(valid))
            BEGIN SELECT RAISE(ABORT, '\(message)'); END;
            """
    }

    /// v2: every writer — an import, a `sqlite3` shell, a sync engine — stores only real timestamps, so that what
    /// `export` writes `import` takes back, and what is indexed is what was meant. Rows stored before are left as
    /// they are (the store never alters data on its own).
    static var v2: String { timestampGuards("projects") + "\n" + timestampGuards("items") }

    /// A GLOB pattern for a canonical lowercase UUID.
    private static let uuidPattern = [8, 4, 4, 4, 12].map { String(repeating: "[0-9a-f]", count: $0) }
        .joined(separator: "-")

    /// A CHECK that a column holds a canonical lowercase UUID.
    private static func uuidCheck(_ column: String) -> String { "CHECK (\(column) GLOB '\(uuidPattern)')" }

    /// A random UUID (version 4) in SQL, so that rows inserted by any client get a valid id.
    private static let uuidDefault = """
        (lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || \
        substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || \
        substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6))))
        """

    private static let now = Timestamp.nowSQL

    static let v1 = """
        CREATE TABLE store_info (
            singleton INTEGER PRIMARY KEY NOT NULL DEFAULT 1 CHECK (singleton = 1),
            uuid TEXT NOT NULL \(uuidCheck("uuid")),
            created_at TEXT NOT NULL DEFAULT (\(now)),
            -- change_log rows with seq <= this were pruned; an index whose cursor is older must be rebuilt.
            log_pruned_through INTEGER NOT NULL DEFAULT 0
        );

        CREATE TABLE projects (
            id TEXT PRIMARY KEY NOT NULL DEFAULT \(uuidDefault) \(uuidCheck("id")),
            title TEXT NOT NULL CHECK (typeof(title) = 'text' AND length(trim(title)) > 0),
            detail TEXT NOT NULL DEFAULT '' CHECK (typeof(detail) = 'text'),
            color TEXT NOT NULL DEFAULT '',
            closed INTEGER NOT NULL DEFAULT 0 CHECK (closed IN (0, 1)),
            created_at TEXT NOT NULL DEFAULT (\(now)),
            modified_at TEXT NOT NULL DEFAULT (\(now))
        );

        CREATE TABLE items (
            id TEXT PRIMARY KEY NOT NULL DEFAULT \(uuidDefault) \(uuidCheck("id")),
            project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
            title TEXT NOT NULL CHECK (typeof(title) = 'text' AND length(trim(title)) > 0),
            detail TEXT NOT NULL DEFAULT '' CHECK (typeof(detail) = 'text'),
            priority INTEGER NOT NULL DEFAULT 2 CHECK (priority IN (1, 2, 3)),
            completed INTEGER NOT NULL DEFAULT 0 CHECK (completed IN (0, 1)),
            created_at TEXT NOT NULL DEFAULT (\(now)),
            modified_at TEXT NOT NULL DEFAULT (\(now))
        );
        CREATE INDEX items_by_project ON items(project_id);

        CREATE TABLE change_log (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            entity TEXT NOT NULL CHECK (entity IN ('project', 'item')),
            entity_id TEXT NOT NULL,
            op TEXT NOT NULL CHECK (op IN ('insert', 'update', 'delete')),
            project_id TEXT NOT NULL DEFAULT '',
            changed_at TEXT NOT NULL DEFAULT (\(now))
        );

        -- Identity is forever: a row's id never changes (its URI is its search identity).
        CREATE TRIGGER projects_keep_id BEFORE UPDATE OF id ON projects WHEN NEW.id IS NOT OLD.id
        BEGIN SELECT RAISE(ABORT, 'projects.id cannot change: delete and insert instead'); END;
        CREATE TRIGGER items_keep_id BEFORE UPDATE OF id ON items WHEN NEW.id IS NOT OLD.id
        BEGIN SELECT RAISE(ABORT, 'items.id cannot change: delete and insert instead'); END;

        -- An item needs its project even when a client runs with foreign keys off.
        CREATE TRIGGER items_need_project_on_insert BEFORE INSERT ON items
        WHEN NOT EXISTS (SELECT 1 FROM projects WHERE id = NEW.project_id)
        BEGIN SELECT RAISE(ABORT, 'items.project_id: no such project'); END;
        CREATE TRIGGER items_need_project_on_update BEFORE UPDATE OF project_id ON items
        WHEN NOT EXISTS (SELECT 1 FROM projects WHERE id = NEW.project_id)
        BEGIN SELECT RAISE(ABORT, 'items.project_id: no such project'); END;

        -- Deleting a project deletes its items here, not only through ON DELETE CASCADE, because a plain
        -- sqlite3 session has foreign keys off. Each item delete is logged by items_log_delete.
        CREATE TRIGGER projects_delete_items BEFORE DELETE ON projects
        BEGIN DELETE FROM items WHERE project_id = OLD.id; END;

        CREATE TRIGGER projects_log_insert AFTER INSERT ON projects
        BEGIN INSERT INTO change_log (entity, entity_id, op, project_id) VALUES ('project', NEW.id, 'insert', NEW.id); END;
        -- modified_at is kept by the store: whatever an UPDATE says, it becomes now. The guard on the
        -- inner UPDATE stops a loop where recursive triggers are on.
        CREATE TRIGGER projects_log_update AFTER UPDATE ON projects
        BEGIN
            UPDATE projects SET modified_at = \(now) WHERE id = NEW.id AND modified_at IS NOT \(now);
            INSERT INTO change_log (entity, entity_id, op, project_id) VALUES ('project', NEW.id, 'update', NEW.id);
        END;
        CREATE TRIGGER projects_log_delete AFTER DELETE ON projects
        BEGIN INSERT INTO change_log (entity, entity_id, op, project_id) VALUES ('project', OLD.id, 'delete', OLD.id); END;

        CREATE TRIGGER items_log_insert AFTER INSERT ON items
        BEGIN INSERT INTO change_log (entity, entity_id, op, project_id) VALUES ('item', NEW.id, 'insert', NEW.project_id); END;
        CREATE TRIGGER items_log_update AFTER UPDATE ON items
        BEGIN
            UPDATE items SET modified_at = \(now) WHERE id = NEW.id AND modified_at IS NOT \(now);
            INSERT INTO change_log (entity, entity_id, op, project_id) VALUES ('item', NEW.id, 'update', NEW.project_id);
        END;
        CREATE TRIGGER items_log_delete AFTER DELETE ON items
        BEGIN INSERT INTO change_log (entity, entity_id, op, project_id) VALUES ('item', OLD.id, 'delete', OLD.project_id); END;
        """
}
