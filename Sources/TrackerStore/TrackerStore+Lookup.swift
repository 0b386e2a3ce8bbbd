/// The part of a detail's UTF-8 bytes a reader of search hits uses (a snippet's window), given the whole detail; a
/// range outside the bytes is clamped to them. A page of hits then decodes a kilobyte of a 100 KB changelog entry.
public typealias DetailPart = (UnsafeBufferPointer<UInt8>) -> Range<Int>

/// What a URI resolves to.
public enum StoreEntity: Sendable, Equatable {
    case item(Item, project: Project)
    case project(Project)
    /// A message, with the project it belongs to and, for a message on an item, that item.
    case message(Message, project: Project, item: Item?)

    /// What people read as its title: an item's or a project's, a message's author and first words.
    public var title: String {
        switch self {
        case .item(let item, _): return item.title
        case .project(let project): return project.title
        case .message(let message, _, _):
            let firstLine = message.text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            let words = firstLine.count > 60 ? String(firstLine.prefix(59)) + "…" : firstLine
            return message.author.isEmpty ? words : "\(message.author): \(words)"
        }
    }

    /// Its text: an item's or a project's detail, a message's text.
    public var detail: String {
        switch self {
        case .item(let item, _): return item.detail
        case .project(let project): return project.detail
        case .message(let message, _, _): return message.text
        }
    }

    /// When the row was last modified: which of two stores' copies is newer.
    public var modifiedAt: String {
        switch self {
        case .item(let item, _): return item.modifiedAt
        case .project(let project): return project.modifiedAt
        case .message(let message, _, _): return message.modifiedAt
        }
    }
}

extension TrackerStore {
    /// The row behind a URI of this store.
    ///
    /// Throws ``StoreError/Code-swift.struct/foreignStore`` for another store's URI and
    /// ``StoreError/Code-swift.struct/notFound`` when the row is gone.
    public func entity(for uri: TrackerURI) throws(StoreError) -> StoreEntity {
        try checkOwnership(uri)
        let found: StoreEntity? = try read { reader in
            switch uri.kind {
            case .item:
                guard let item = try reader.item(id: uri.entityID),
                    let project = try reader.project(id: item.projectID)
                else { return nil }
                return .item(item, project: project)
            case .project:
                return try reader.project(id: uri.entityID).map { .project($0) }
            case .message:
                return try reader.message(id: uri.entityID).flatMap { try reader.entity(of: $0) }
            }
        }
        guard let found else { throw Self.notFound(uri) }
        return found
    }

    /// The error of a URI of this store whose row is not there.
    public static func notFound(_ uri: TrackerURI) -> StoreError {
        StoreError(.notFound, "\(uri) is not in this store (deleted, or never there)")
    }

    /// Finds a project by its URI or by its title (ignoring case).
    ///
    /// Throws ``StoreError/Code-swift.struct/notFound`` naming what exists, or
    /// ``StoreError/Code-swift.struct/ambiguous`` if several projects share the title.
    public func findProject(_ reference: String) throws(StoreError) -> Project {
        if reference.hasPrefix("\(TrackerURI.scheme)://") {
            let uri = try TrackerURI(parsing: reference)
            guard uri.kind == .project else {
                throw StoreError(.invalidInput, "\(reference) is an item URI; a project URI or title is needed here")
            }
            guard case .project(let project) = try entity(for: uri) else { preconditionFailure() }
            return project
        }
        let matches = try read { try $0.projects(titled: reference) }
        switch matches.count {
        case 1:
            return matches[0]
        case 0:
            throw StoreError(
                .notFound, "no project titled '\(reference)'; create it with `spotlite add project \"\(reference)\"`")
        default:
            let uris = matches.map { uri(.project, $0.id).description }.joined(separator: ", ")
            throw StoreError(
                .ambiguous, "\(matches.count) projects are titled '\(reference)'; name one by URI: \(uris)")
        }
    }
}
