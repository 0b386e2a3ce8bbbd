import GRDB

// Rows are decoded by position, in the order of `columns` (also the tables' own column order, so `SELECT *`
// works too): looking columns up by name was most of the cost of resolving a page of search hits.

extension Project: FetchableRecord {
    static let columns = "id, title, detail, color, closed, created_at, modified_at"
    static let columnCount = 7

    public init(row: Row) { self.init(row: row, at: 0) }

    /// The project in `row`'s columns from `start` on, in the order of `columns`.
    init(row: Row, at start: Int) {
        self.init(
            id: row[start], title: row[start + 1], detail: row[start + 2], color: row[start + 3],
            isClosed: row[start + 4], createdAt: row[start + 5], modifiedAt: row[start + 6])
    }
}

extension Item: FetchableRecord {
    /// The items table's own columns, in its order.
    static let tableColumns =
        "id, project_id, title, detail, priority, completed, created_at, modified_at, author, assignees, resolution, "
        + "closed_at, source_url, source_key"
    /// The table's columns, then the item's tags, links and commenters, each as one text
    /// (``ItemTracking/decode(tags:)``, ``ItemTracking/decode(links:)``, ``ItemTracking/decode(names:)``): one
    /// statement reads an item whole, however many items it reads.
    static let columns = columns(of: "items")
    static let columnCount = 17

    /// ``columns`` for the items table under the name `table` in a statement.
    ///
    /// Each list is read only for an item that has rows in its table (`EXISTS`, a probe of the table's index by
    /// item): most items of most stores have no tags, links or messages, and each list's sort costs a sorter made
    /// and torn down even over no rows (docs/performance.md, "Pages", measures it). NULL either way.
    static func columns(of table: String) -> String {
        func ifAny(_ rows: String, _ list: String) -> String {
            "CASE WHEN EXISTS (SELECT 1 FROM \(rows) WHERE item_id = \(table).id) THEN (\(list)) END"
        }
        return qualified(tableColumns, table) + ", "
            + ifAny(
                "tags",
                "SELECT group_concat(title, char(10)) FROM (SELECT title FROM tags WHERE item_id = \(table).id "
                    + "ORDER BY CAST(title AS BLOB))") + ", "
            + ifAny(
                "links",
                "SELECT group_concat(kind || ' ' || target_store || ' ' || target_item, char(10)) FROM (SELECT kind, "
                    + "target_store, target_item FROM links WHERE item_id = \(table).id "
                    + "ORDER BY kind, target_store, target_item)") + ", "
            + ifAny(
                "messages",
                "SELECT group_concat(author, char(10)) FROM (SELECT DISTINCT author FROM messages "
                    + "WHERE item_id = \(table).id AND author <> '' ORDER BY CAST(author AS BLOB))")
    }

    static func qualified(_ columns: String, _ table: String) -> String {
        columns.split(separator: ", ").map { "\(table).\($0)" }.joined(separator: ", ")
    }

    public init(row: Row) {
        let closedAt: String? = row[11]
        let tags: String? = row[14]
        let links: String? = row[15]
        let commenters: String? = row[16]
        self.init(
            id: row[0], projectID: row[1], title: row[2], detail: row[3], priority: row[4], isCompleted: row[5],
            createdAt: row[6], modifiedAt: row[7],
            tracking: ItemTracking(
                author: row[8], assignees: ItemTracking.decode(names: row[9]), resolution: row[10],
                closedAt: closedAt, tags: ItemTracking.decode(tags: tags ?? ""),
                links: ItemTracking.decode(links: links ?? ""), sourceURL: row[12], sourceKey: row[13]),
            commenters: ItemTracking.decode(names: commenters ?? ""))
    }
}

extension ItemTracking {
    /// Names as the `assignees` column holds them: one a line.
    static func encode(names: [String]) -> String { names.joined(separator: "\n") }

    static func decode(names: String) -> [String] {
        names.isEmpty ? [] : names.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// Tags as ``Item/columns`` reads them: one a line (a tag holds no line break).
    static func decode(tags: String) -> [String] { decode(names: tags) }

    /// Links as ``Item/columns`` reads them: `kind store item` a line, the store empty for this one.
    static func decode(links: String) -> [ItemLink] {
        links.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 3, let kind = ItemLink.Kind(rawValue: String(parts[0])) else { return nil }
            return ItemLink(kind: kind, itemID: String(parts[2]), storeID: parts[1].isEmpty ? nil : String(parts[1]))
        }
    }
}

/// An item and its project, from one row of a join: the item's columns, then the project's.
struct ItemInProject: FetchableRecord {
    static let columns = Item.columns(of: "items") + ", " + Item.qualified(Project.columns, "projects")

    var item: Item
    var project: Project

    init(row: Row) {
        item = Item(row: row)
        project = Project(row: row, at: Item.columnCount)
    }
}

extension Message: FetchableRecord {
    static let columns = "id, project_id, item_id, author, text, created_at, modified_at"

    public init(row: Row) {
        let projectID: String? = row[1]
        let itemID: String? = row[2]
        self.init(
            id: row[0], parent: itemID.map { .item(id: $0) } ?? .project(id: projectID ?? ""), author: row[3],
            text: row[4], createdAt: row[5], modifiedAt: row[6])
    }
}
