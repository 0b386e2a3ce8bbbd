import SearchIndex
import TrackerStore

/// Maps store rows to searchable items: the one place that decides what of a row is indexed.
struct ItemMapping {
    let storeID: String

    func uri(_ kind: TrackerURI.Kind, _ id: String) -> String {
        TrackerURI(storeID: storeID, kind: kind, entityID: id).description
    }

    func searchableItem(for item: Item, in project: Project) -> SearchableItem {
        SearchableItem(
            uniqueIdentifier: uri(.item, item.id),
            domainIdentifier: uri(.project, item.projectID),
            attributeSet: SearchableItemAttributeSet(
                title: item.title,
                contentDescription: item.detail,
                kind: .item,
                containerTitle: project.title,
                priority: item.priority,
                isCompleted: item.isCompleted,
                createdAt: Timestamp.seconds(item.createdAt) ?? 0,
                modifiedAt: Timestamp.seconds(item.modifiedAt) ?? 0))
    }

    /// A project is indexed in its own domain, so deleting the domain removes it with its items.
    func searchableItem(for project: Project) -> SearchableItem {
        let identifier = uri(.project, project.id)
        return SearchableItem(
            uniqueIdentifier: identifier,
            domainIdentifier: identifier,
            attributeSet: SearchableItemAttributeSet(
                title: project.title,
                contentDescription: project.detail,
                kind: .project,
                containerTitle: project.title,
                priority: nil,
                isCompleted: project.isClosed,
                createdAt: Timestamp.seconds(project.createdAt) ?? 0,
                modifiedAt: Timestamp.seconds(project.modifiedAt) ?? 0))
    }

    /// Calls `body` with the document of every project, then every item, of one store snapshot, streaming
    /// the items (the whole store is never in memory at once).
    func forEachDocument(in reader: StoreReader, _ body: (SearchableItem) throws -> Void) throws {
        var projects: [String: Project] = [:]
        for project in try reader.allProjects() {
            projects[project.id] = project
            try body(searchableItem(for: project))
        }
        try reader.forEachItem { item in
            if let project = projects[item.projectID] { try body(searchableItem(for: item, in: project)) }
        }
    }
}
