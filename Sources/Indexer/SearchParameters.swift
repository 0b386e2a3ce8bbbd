import Foundation
import SearchIndex

/// A search as a person or a tool asks for it, as text: `spotlite search`'s options and `/v1/search`'s query
/// parameters both decode into it, and ``options(maximumLimit:)`` checks it for both, so that the command and the API
/// accept the same requests and refuse the others in the same words. Each front end names a parameter its own way
/// (``Spelling``): `--limit` on the command line, `limit` in a URL.
public struct SearchParameters: Sendable {
    /// How an error names a parameter.
    public enum Spelling: Sendable {
        /// `--limit` (the command line).
        case option
        /// `limit` (a URL's query parameters).
        case field

        func name(_ parameter: String) -> String { self == .option ? "--" + parameter : parameter }
    }

    public var spelling: Spelling
    public var query: String
    /// Whole numbers, as typed (nil: the default).
    public var limit: String?
    public var offset: String?
    /// A ``SearchSort`` name (nil: relevance).
    public var sort: String?
    public var reverse = false
    /// Facet names separated by commas.
    public var facets: String?
    public var partial = false
    public var correct = false
    /// The query is a Core Spotlight query string.
    public var spotlight = false

    public init(_ spelling: Spelling, query: String) {
        self.spelling = spelling
        self.query = query
    }

    /// What the request asks for, or a ``SearchParameterError`` saying what is wrong with it. `maximumLimit` is the
    /// front end's cap on a page (the server's is smaller).
    public func options(maximumLimit: Int = SearchRequest.maximumLimit) throws(SearchParameterError) -> SearchOptions {
        if query.allSatisfy(\.isWhitespace) {
            throw SearchParameterError(
                spelling == .option
                    ? "give a query, e.g. spotlite search leaking tap" : "give a query: /v1/search?q=leaking+tap")
        }
        if query.utf8.count > SearchQueryParser.maximumQueryBytes {
            throw SearchParameterError(
                "the query is \(query.utf8.count) bytes long; at most \(SearchQueryParser.maximumQueryBytes) are allowed"
            )
        }
        var options = SearchOptions()
        let page = try Self.page(limit: limit, offset: offset, maximumLimit: maximumLimit, spelling: spelling)
        options.request.limit = page.limit
        options.request.offset = page.offset
        if let sort {
            guard let value = SearchSort(rawValue: sort) else {
                let names = SearchSort.allCases.map(\.rawValue).joined(separator: ", ")
                throw SearchParameterError("\(spelling.name("sort")) takes \(names), not '\(sort)'")
            }
            options.request.sort = value
        }
        options.request.reverse = reverse
        if reverse && options.request.sort == .relevance {
            throw SearchParameterError(
                "\(spelling.name("reverse")) needs \(spelling.name("sort")) created, modified, priority or title")
        }
        if let facets, !facets.isEmpty {
            options.request.facets = try facets.split(separator: ",").map { (name) throws(SearchParameterError) in
                let trimmed = name.trimmingSpaces()
                guard let facet = SearchFacet(rawValue: trimmed) else {
                    let names = SearchFacet.allCases.map(\.rawValue)
                    throw SearchParameterError(
                        "\(spelling.name("facets")) takes \(names.dropLast().joined(separator: ", ")) and "
                            + "\(names.last ?? ""), not '\(trimmed)'")
                }
                return facet
            }
        }
        options.partial = partial
        options.correct = correct
        options.syntax = spotlight ? .spotlight : .spotlite
        return options
    }

    /// A page's `limit` and `offset` as typed (nil: 20 and 0), checked: whole numbers, the limit from 1 to
    /// `maximumLimit`, the offset from 0 to ``SearchRequest/maximumOffset``.
    public static func page(limit: String?, offset: String?, maximumLimit: Int, spelling: Spelling)
        throws(SearchParameterError) -> (limit: Int, offset: Int)
    {
        func number(_ text: String?, _ name: String, default value: Int, in range: ClosedRange<Int>)
            throws(SearchParameterError) -> Int
        {
            guard let text else { return value }
            guard let number = Int(text.trimmingSpaces()), range.contains(number) else {
                throw SearchParameterError(
                    "\(spelling.name(name)) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }
        let limit = try number(limit, "limit", default: 20, in: 1...maximumLimit)
        let offset = try number(offset, "offset", default: 0, in: 0...SearchRequest.maximumOffset)
        return (limit, offset)
    }
}

/// What is wrong with a search's parameters (``SearchParameters``), in a sentence that names the parameter: a
/// usage error (exit 2, HTTP 400).
public struct SearchParameterError: Error, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
