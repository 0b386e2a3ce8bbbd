import GRDB

extension Project: FetchableRecord {
    static let columns = "id, title, detail, color, closed, created_at, modified_at"

    public init(row: Row) {
        self.init(
            id: row["id"], title: row["title"], detail: row["detail"], color: row["color"],
            isClosed: row["closed"], createdAt: row["created_at"], modifiedAt: row["modified_at"])
    }
}

extension Item: FetchableRecord {
    static let columns = "id, project_id, title, detail, priority, completed, created_at, modified_at"

    public init(row: Row) {
        self.init(
            id: row["id"], projectID: row["project_id"], title: row["title"], detail: row["detail"],
            priority: row["priority"], isCompleted: row["completed"], createdAt: row["created_at"],
            modifiedAt: row["modified_at"])
    }
}
