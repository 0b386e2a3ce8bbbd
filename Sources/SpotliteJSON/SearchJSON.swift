import Indexer
import TrackerStore

/// The JSON of `search --format json|jsonl` and of the server's `/v1/search`, described by
/// `Sources/SpotliteCLI/Schemas/search-v1.schema.json`. Fields are only ever added; a breaking change gets a new
/// ``schema`` name.
public enum SearchJSON {
    /// Names the schema of the document; tools check it before reading.
    public static let schema = "spotlite.search/1"

    public static func outcome(_ outcome: SearchOutcome) -> JSON {
        var pairs: [(String, JSON)] = [
            ("schema", .string(schema)),
            ("query", .string(outcome.query)),
            ("parsed_query", .string(outcome.parsedQuery)),
            ("filters", .array(outcome.filters.map { .string($0) })),
            ("total", .int(outcome.total)),
            ("total_is_exact", .bool(outcome.isExact)),
            ("offset", .int(outcome.offset)),
            ("limit", .int(outcome.limit)),
            ("dropped", .int(outcome.dropped)),
            ("changes_behind", outcome.changesBehind.map { .int($0) } ?? .null),
            ("suggestion", outcome.suggestion.map { .string($0) } ?? .null),
            ("searched_suggestion", .bool(outcome.searchedSuggestion)),
            (
                "project_suggestions",
                .array(
                    outcome.projectSuggestions.map {
                        .object([("typed", .string($0.typed)), ("titles", .array($0.titles.map { .string($0) }))])
                    })
            ),
            (
                "facets",
                .object(
                    outcome.facets.map { facet in
                        (
                            facet.facet.rawValue,
                            .array(
                                facet.values.map {
                                    .object([
                                        ("value", .string($0.value)), ("label", .string($0.label)),
                                        ("count", .int($0.count)),
                                    ])
                                })
                        )
                    })
            ),
            ("hits", .array(outcome.hits.map(hit))),
        ]
        // A search across stores says which could not answer (an empty list when all did).
        if outcome.hits.contains(where: { $0.store != nil }) || !outcome.failures.isEmpty || outcome.isAcrossStores {
            pairs.append(("failures", .array(outcome.failures.map(failure))))
        }
        return .object(pairs)
    }

    /// A store that could not answer a search across stores.
    public static func failure(_ failure: StoreFailure) -> JSON {
        .object([
            ("store", .string(failure.store)), ("code", .string(failure.code)), ("message", .string(failure.message)),
        ])
    }

    /// One hit: the row's fields, its score, and the snippet of its detail where the query matched.
    public static func hit(_ hit: ResolvedHit) -> JSON {
        var pairs: [(String, JSON)] = [("uri", .string(hit.uri.description))]
        switch hit.entity {
        case .item(let item, let project):
            pairs +=
                [
                    ("kind", .string("item")),
                    ("title", .string(item.title)),
                    ("project", EntityJSON.projectReference(project, storeID: hit.uri.storeID)),
                ] + EntityJSON.state(of: item) + EntityJSON.tracking(of: item, storeID: hit.uri.storeID, whole: false)
        case .message(let message, let project, let item):
            pairs += [
                ("kind", .string("message")),
                ("title", .string(hit.entity.title)),
                ("project", EntityJSON.projectReference(project, storeID: hit.uri.storeID)),
                ("priority", .null),
                ("completed", .bool(false)),
                ("created", .string(message.createdAt)),
                ("modified", .string(message.modifiedAt)),
                ("author", .string(message.author)),
                ("item", item.map { EntityJSON.itemReference($0, storeID: hit.uri.storeID) } ?? .null),
            ]
        case .project(let project):
            pairs += [
                ("kind", .string("project")),
                ("title", .string(project.title)),
                ("project", .null),
                ("priority", .null),
                ("completed", .bool(project.isClosed)),
                ("created", .string(project.createdAt)),
                ("modified", .string(project.modifiedAt)),
            ]
        }
        pairs.append(("score", .double(hit.score)))
        if let likeness = hit.likeness { pairs.append(("likeness", .double(likeness))) }
        if hit.isKnownDuplicate { pairs.append(("known_duplicate", .bool(true))) }
        if let store = hit.store {
            pairs += [("store", .string(store)), ("also_in", .array(hit.alsoIn.map { .string($0) }))]
        }
        pairs += [
            ("snippet", hit.snippet.map { .string($0.plain) } ?? .null),
            ("highlights", .array((hit.snippet?.matches ?? []).map { .string($0) })),
        ]
        return .object(pairs)
    }
}
