import SearchIndex
import TrackerStore

/// Maps store rows to searchable items: the one place that decides what of a row is indexed.
struct ItemMapping {
    let storeID: String

    func uri(_ kind: TrackerURI.Kind, _ id: String) -> String {
        TrackerURI(storeID: storeID, kind: kind, entityID: id).description
    }

    /// What every URI of the store starts with (`tracker://<store-uuid>/`): the index keeps the rest, short.
    var identifierBase: String { "\(TrackerURI.scheme)://\(storeID)/" }

    func searchableItem(for item: Item, in project: Project) -> SearchableItem {
        var attributes = SearchableItemAttributeSet(
            title: item.title,
            contentDescription: item.detail,
            kind: .item,
            containerTitle: project.title,
            priority: item.priority,
            isCompleted: item.isCompleted,
            createdAt: Timestamp.seconds(item.createdAt) ?? 0,
            modifiedAt: Timestamp.seconds(item.modifiedAt) ?? 0)
        let tracking = item.tracking
        attributes.authorNames = tracking.author.isEmpty ? [] : [tracking.author]
        attributes.assigneeNames = tracking.assignees
        attributes.commenterNames = item.commenters
        attributes.tags = tracking.tags
        attributes.resolution = tracking.resolution
        attributes.closedAt = tracking.closedAt.flatMap(Timestamp.seconds)
        attributes.links = tracking.links.map { .init(kind: $0.kind.rawValue, targetItemID: $0.itemID) }
        attributes.sourceKey = tracking.sourceKey
        return SearchableItem(
            uniqueIdentifier: uri(.item, item.id), domainIdentifier: uri(.project, item.projectID),
            attributeSet: attributes)
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

    /// A message is indexed in its project's domain (deleting the project removes it), its text as the content; it
    /// has no title, so that words in titles still rank first.
    func searchableItem(for message: Message, in project: Project) -> SearchableItem {
        var attributes = SearchableItemAttributeSet(
            title: "",
            contentDescription: message.text,
            kind: .message,
            containerTitle: project.title,
            priority: nil,
            isCompleted: false,
            createdAt: Timestamp.seconds(message.createdAt) ?? 0,
            modifiedAt: Timestamp.seconds(message.modifiedAt) ?? 0)
        attributes.authorNames = message.author.isEmpty ? [] : [message.author]
        return SearchableItem(
            uniqueIdentifier: uri(.message, message.id), domainIdentifier: uri(.project, project.id),
            attributeSet: attributes)
    }

    /// The documents of about `count` items spread over the store (``StoreReader/sampleItems(count:runs:)``).
    func sampleDocuments(in reader: StoreReader, count: Int) throws -> [SearchableItem] {
        let items = try reader.sampleItems(count: count)
        let projects = try reader.projects(ids: items.map(\.projectID))
        return items.compactMap { item in projects[item.projectID].map { searchableItem(for: item, in: $0) } }
    }

    /// Calls `body` with the document of every project, then every item, of one store snapshot, streaming
    /// the items (the whole store is never in memory at once).
    func forEachDocument(in reader: StoreReader, _ body: (SearchableItem) throws -> Void) throws {
        try forEachDocument(in: reader, runs: 1, batch: StoreReader.streamBatch) { _, documents in
            for document in documents { try body(document) }
        }
    }

    /// The same documents in the same order, cut into `runs` consecutive runs read side by side (see
    /// ``StoreReader/forEachItem(inRuns:batch:_:)``): the projects and the first items are run 0. Joined in
    /// run order, the runs give one order that depends only on the store, however many there are.
    func forEachDocument(
        in reader: StoreReader, runs: Int, batch: Int,
        _ body: (_ run: Int, _ documents: [SearchableItem]) throws -> Void
    ) throws {
        var projects: [String: Project] = [:]
        var documents: [SearchableItem] = []
        for project in try reader.allProjects() {
            projects[project.id] = project
            documents.append(searchableItem(for: project))
            if documents.count == batch {
                try body(0, documents)
                documents.removeAll(keepingCapacity: true)
            }
        }
        if !documents.isEmpty { try body(0, documents) }
        // An item's project, for the messages on items (ids only: a few bytes per item).
        var itemProjects: [String: String] = [:]
        let hasMessages = try reader.hasMessages()
        try reader.forEachItem(inRuns: runs, batch: batch) { run, items in
            let documents = items.compactMap { item in
                projects[item.projectID].map { searchableItem(for: item, in: $0) }
            }
            if hasMessages { for item in items { itemProjects[item.id] = item.projectID } }
            if !documents.isEmpty { try body(run, documents) }
        }
        // Messages come last, in the last run.
        try reader.forEachMessage(batch: batch) { messages in
            let documents = messages.compactMap { message in
                (message.projectID ?? message.itemID.flatMap { itemProjects[$0] }).flatMap { projects[$0] }
                    .map { searchableItem(for: message, in: $0) }
            }
            if !documents.isEmpty { try body(runs - 1, documents) }
        }
    }
}
