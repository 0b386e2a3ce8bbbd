import Xapian

/// Parses Spotlite query strings into Xapian queries.
///
/// Syntax (see README "Query syntax"): words (all must match, stemmed), `"phrases"`, `AND`/`OR`/`NOT` and
/// parentheses, `+word`/`-word`, `title:`, `detail:`, `project:<title or URI>`, `is:open|completed|closed`,
/// `kind:item|project`, `priority:1|2|3`.
public final class SearchQueryParser {
    private let parser: QueryParser

    /// The fields a query can name, for messages and docs.
    public static let fields = ["title", "detail", "project", "is", "kind", "priority"]

    static let flags: QueryParser.Flags = [.boolean, .phrase, .loveHate, .pureNot]

    public init() throws(SearchIndexError) {
        parser = QueryParser()
        try xapian { () throws(XapianError) in
            try parser.setStemmer(language: "english")
            parser.setStemmingStrategy(.some)
            parser.setDefaultAnd(true)
            // The default field searches title and detail; the title is indexed once, under its prefix.
            try parser.addPrefix(field: "", prefix: TermPrefix.detail)
            try parser.addPrefix(field: "", prefix: TermPrefix.title)
            try parser.addPrefix(field: "title", prefix: TermPrefix.title)
            try parser.addPrefix(field: "detail", prefix: TermPrefix.detail)
            try parser.addBooleanField("project", map: Self.projectTerm)
            try parser.addBooleanField("is", map: Self.statusTerm)
            try parser.addBooleanField("kind", map: Self.kindTerm)
            try parser.addBooleanField("priority", map: Self.priorityTerm)
        }
    }

    /// Parses `text`; throws ``SearchIndexError/Code-swift.struct/querySyntax`` with a sentence saying what is wrong.
    public func parse(_ text: String) throws(SearchIndexError) -> SearchQuery {
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw SearchIndexError(.querySyntax, "the query is empty; type some words, or a filter such as kind:item")
        }
        do {
            let query = try parser.parse(text, flags: Self.flags)
            if query.isEmpty {
                throw SearchIndexError(.querySyntax, "the query '\(text)' has no words to search for")
            }
            return SearchQuery(text: text, query: query)
        } catch let error as XapianError {
            throw SearchIndexError(
                .querySyntax, "cannot parse the query '\(text)': \(error.message)", cause: error)
        } catch let error as SearchIndexError {
            throw error
        } catch {
            throw SearchIndexError(.other, "\(error)")
        }
    }

    static func projectTerm(_ value: String) -> QueryParser.FieldMapping {
        let value = value.trimmingCharacters(in: .whitespaces)
        if value.isEmpty { return .invalid("project: needs a project title or URI") }
        if value.hasPrefix("tracker://") {
            let parts = value.dropFirst("tracker://".count).split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[1] == "project" else {
                return .invalid("project:\(value) is not a project URI (tracker://<store>/project/<uuid>)")
            }
            return .term(TermPrefix.domain + value)
        }
        return .term(TermPrefix.containerTitleTerm(value))
    }

    static func statusTerm(_ value: String) -> QueryParser.FieldMapping {
        switch value.lowercased() {
        case "open": return .term(TermPrefix.status + "open")
        case "completed", "done": return .term(TermPrefix.status + "completed")
        case "closed": return .term(TermPrefix.status + "closed")
        default: return .invalid("is:\(value) is not a status; use is:open, is:completed or is:closed")
        }
    }

    static func kindTerm(_ value: String) -> QueryParser.FieldMapping {
        guard let kind = SearchableItemAttributeSet.Kind(rawValue: value.lowercased()) else {
            return .invalid("kind:\(value) is not a kind; use kind:item or kind:project")
        }
        return .term(TermPrefix.kind + kind.rawValue)
    }

    static func priorityTerm(_ value: String) -> QueryParser.FieldMapping {
        guard let priority = Int(value), (1...3).contains(priority) else {
            return .invalid("priority:\(value) is not a priority; use priority:1, priority:2 or priority:3")
        }
        return .term(TermPrefix.priority + String(priority))
    }
}

/// A parsed query, ready to run.
public struct SearchQuery: CustomStringConvertible {
    /// What the user typed.
    public let text: String
    let query: Query

    /// Xapian's description of the parsed query (for `--explain` and debugging).
    public var description: String { query.description }
}

#if canImport(Foundation)
import Foundation
#endif
