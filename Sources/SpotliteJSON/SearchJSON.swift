import Indexer
import TrackerStore

/// The JSON of `search --format json|jsonl` and of the server's `/v1/search`, described by
/// `Sources/SpotliteCLI/Schemas/search-v1.schema.json`. Fields are only ever added; a breaking change gets a new
/// ``schema`` name.
public enum SearchJSON {
    /// Names the schema of the document; tools check it before reading.
    public static let schema = "spotlite.search/1"

    public static func outcome(_ outcome: SearchOutcome) -> JSON {
        // A page's hits with their snippets are most of it: about 600 bytes each.
        .writing(capacity: JSONWriter.defaultCapacity + 768 * outcome.hits.count) { write(outcome, to: &$0) }
    }

    static func write(_ outcome: SearchOutcome, to out: inout JSONWriter) {
        out.object { out in
            out.field("schema", schema)
            out.field("query", outcome.query)
            out.field("parsed_query", outcome.parsedQuery)
            out.field("filters", strings: outcome.filters)
            out.field("total", outcome.total)
            out.field("total_is_exact", outcome.isExact)
            out.field("offset", outcome.offset)
            out.field("limit", outcome.limit)
            out.field("dropped", outcome.dropped)
            out.field("changes_behind", outcome.changesBehind)
            out.field("suggestion", outcome.suggestion)
            out.field("searched_suggestion", outcome.searchedSuggestion)
            out.key("project_suggestions")
            out.array { out in
                for suggestion in outcome.projectSuggestions {
                    out.object {
                        $0.field("typed", suggestion.typed)
                        $0.field("titles", strings: suggestion.titles)
                    }
                }
            }
            out.key("facets")
            out.object { out in
                for facet in outcome.facets {
                    out.key(escaping: facet.facet.rawValue)
                    out.array { out in
                        for value in facet.values {
                            out.object {
                                $0.field("value", value.value)
                                $0.field("label", value.label)
                                $0.field("count", value.count)
                            }
                        }
                    }
                }
            }
            out.key("hits")
            out.array { for hit in outcome.hits { write(hit, to: &$0) } }
            // A search across stores says which could not answer (an empty list when all did).
            if outcome.hits.contains(where: { $0.store != nil }) || !outcome.failures.isEmpty
                || outcome.isAcrossStores
            {
                out.key("failures")
                out.array { out in
                    for failure in outcome.failures {
                        out.object {
                            $0.field("store", failure.store)
                            $0.field("code", failure.code)
                            $0.field("message", failure.message)
                        }
                    }
                }
            }
        }
    }

    /// One hit: the row's fields, its score, and the snippet of its detail where the query matched.
    public static func hit(_ hit: ResolvedHit) -> JSON {
        .writing { write(hit, to: &$0) }
    }

    static func write(_ hit: ResolvedHit, to out: inout JSONWriter) {
        let storeID = hit.uri.storeID
        out.object { out in
            out.field("uri", uri: hit.uri)
            switch hit.entity {
            case .item(let item, let project):
                out.field("kind", "item")
                out.field("title", item.title)
                out.key("project")
                EntityJSON.projectReference(project, storeID: storeID, to: &out)
                EntityJSON.state(of: item, to: &out)
                EntityJSON.tracking(of: item, storeID: storeID, whole: false, to: &out)
            case .message(let message, let project, let item):
                out.field("kind", "message")
                out.field("title", hit.entity.title)
                out.key("project")
                EntityJSON.projectReference(project, storeID: storeID, to: &out)
                out.field("priority", nil as Int?)
                out.field("completed", false)
                out.field("created", message.createdAt)
                out.field("modified", message.modifiedAt)
                out.field("author", message.author)
                out.key("item")
                EntityJSON.itemReference(item, storeID: storeID, to: &out)
            case .project(let project):
                out.field("kind", "project")
                out.field("title", project.title)
                out.field("project", nil as String?)
                out.field("priority", nil as Int?)
                out.field("completed", project.isClosed)
                out.field("created", project.createdAt)
                out.field("modified", project.modifiedAt)
            }
            out.field("score", hit.score)
            if let likeness = hit.likeness { out.field("likeness", likeness) }
            if hit.isKnownDuplicate { out.field("known_duplicate", true) }
            if let store = hit.store {
                out.field("store", store)
                out.field("also_in", strings: hit.alsoIn)
            }
            // The snippet's text and its matched words, copied from the marked text as they are escaped.
            out.key("snippet")
            if let snippet = hit.snippet {
                snippet.withMarkedUTF8 { out.string(utf8: $0, dropping: Snippet.markBytes) }
            } else {
                out.null()
            }
            out.key("highlights")
            out.array { list in hit.snippet?.forEachMatch { list.string(utf8: $0) } }
        }
    }
}
