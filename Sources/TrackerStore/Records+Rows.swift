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
    static let columns = "id, project_id, title, detail, priority, completed, created_at, modified_at"

    public init(row: Row) {
        self.init(
            id: row[0], projectID: row[1], title: row[2], detail: row[3], priority: row[4], isCompleted: row[5],
            createdAt: row[6], modifiedAt: row[7])
    }
}

/// An item and its project, from one row of a join: the item's columns, then the project's.
struct ItemInProject: FetchableRecord {
    static let columns = qualified(Item.columns, "items") + ", " + qualified(Project.columns, "projects")

    var item: Item
    var project: Project

    init(row: Row) {
        item = Item(row: row)
        project = Project(row: row, at: row.count - Project.columnCount)
    }

    private static func qualified(_ columns: String, _ table: String) -> String {
        columns.split(separator: ", ").map { "\(table).\($0)" }.joined(separator: ", ")
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
