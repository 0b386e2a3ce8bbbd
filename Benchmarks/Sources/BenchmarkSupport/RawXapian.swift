import CXapian
import Foundation
import TrackerStore

/// The raw-Xapian baseline: a direct loop over the C API that indexes the same rows as Spotlite — title
/// (weighted 2, under the title prefix), detail, a unique id term, the project terms, dates and priority
/// as values, the URI as document data — without anything Spotlite adds (spelling data, fingerprints,
/// status and kind terms, sort keys). What a careful hand-written Xapian indexer would do.
public enum RawXapian {
    /// Builds a fresh database at `path` from every item of the store; returns the number of documents.
    @discardableResult
    public static func build(store: TrackerStore, at path: String) throws -> Int {
        var database: OpaquePointer?
        // What Spotlite's single writer does: no fsync, Xapian's default flush threshold.
        let flags = Int32(CXAPIAN_DB_CREATE_OR_OVERWRITE | CXAPIAN_DB_NO_SYNC)
        try check { cxapian_writable_database_open(path, flags, &database, $0) }
        defer { cxapian_writable_database_free(database) }
        let maker = try DocumentMaker(storeUUID: store.uuid)
        var count = 0
        try store.read { reader in
            let projects = Dictionary(uniqueKeysWithValues: try reader.allProjects().map { ($0.id, $0) })
            try reader.forEachItem { item in
                let document = try maker.document(for: item, in: projects[item.projectID])
                defer { cxapian_document_free(document) }
                // A fresh database: add, as Spotlite's rebuild does, rather than replace by unique term.
                try check { cxapian_writable_database_add_document(database, document, $0) }
                count += 1
            }
        }
        try check { cxapian_writable_database_commit(database, $0) }
        try check { cxapian_writable_database_close(database, $0) }
        return count
    }

    /// Makes the baseline's document for an item.
    final class DocumentMaker {
        let storeUUID: String
        let generator: OpaquePointer?

        init(storeUUID: String) throws {
            self.storeUUID = storeUUID
            generator = cxapian_term_generator_new()
            try check { cxapian_term_generator_set_stemmer(generator, "english", $0) }
        }

        deinit { cxapian_term_generator_free(generator) }

        func uniqueTerm(_ item: Item) -> String { "Q" + uri(item) }

        func uri(_ item: Item) -> String { "tracker://\(storeUUID)/item/\(item.id)" }

        /// A new document (the caller frees it).
        func document(for item: Item, in project: Project?) throws -> OpaquePointer? {
            let uri = uri(item)
            let document = cxapian_document_new()
            do {
                try check { cxapian_document_set_data(document, uri, uri.utf8.count, $0) }
                let unique = uniqueTerm(item)
                try check { cxapian_document_add_boolean_term(document, unique, unique.utf8.count, $0) }
                let domain = "XDOMtracker://\(storeUUID)/project/\(item.projectID)"
                try check { cxapian_document_add_boolean_term(document, domain, domain.utf8.count, $0) }
                try check { cxapian_term_generator_set_document(generator, document, $0) }
                try check {
                    cxapian_term_generator_index_text(generator, item.title, item.title.utf8.count, 2, "S", 1, $0)
                }
                cxapian_term_generator_increase_termpos(generator, 1)
                try check {
                    cxapian_term_generator_index_text(generator, item.detail, item.detail.utf8.count, 1, "", 0, $0)
                }
                if let project {
                    let term = "XPT" + project.title.lowercased()
                    try check { cxapian_document_add_boolean_term(document, term, term.utf8.count, $0) }
                }
                try addValue(document, 0, Double(Timestamp.seconds(item.createdAt) ?? 0))
                try addValue(document, 1, Double(Timestamp.seconds(item.modifiedAt) ?? 0))
                try addValue(document, 2, Double(item.priority))
                return document
            } catch {
                cxapian_document_free(document)
                throw error
            }
        }
    }

    /// An edit made searchable the raw-Xapian way, for the freshness baseline: the document replaced by its
    /// unique term and committed (with fsync, as a live index commits), on a database built by ``build(store:at:)``.
    public final class Writer {
        let database: OpaquePointer?
        let maker: DocumentMaker

        public init(path: String, storeUUID: String) throws {
            var database: OpaquePointer?
            try check { cxapian_writable_database_open(path, Int32(CXAPIAN_DB_OPEN), &database, $0) }
            self.database = database
            maker = try DocumentMaker(storeUUID: storeUUID)
        }

        deinit { cxapian_writable_database_free(database) }

        public func replace(_ item: Item, in project: Project?) throws {
            let document = try maker.document(for: item, in: project)
            defer { cxapian_document_free(document) }
            let unique = maker.uniqueTerm(item)
            try check { cxapian_writable_database_replace_document(database, unique, unique.utf8.count, document, $0) }
            try check { cxapian_writable_database_commit(database, $0) }
        }
    }

    static func addValue(_ document: OpaquePointer?, _ slot: UInt32, _ number: Double) throws {
        var bytes = [CChar](repeating: 0, count: 16)
        let length = cxapian_sortable_serialise(number, &bytes)
        try check { cxapian_document_add_value(document, slot, bytes, length, $0) }
    }

    /// A reader with a query parser, for the search baseline.
    public final class Searcher {
        let database: OpaquePointer?
        let parser: OpaquePointer?

        public init(path: String) throws {
            var database: OpaquePointer?
            try check { cxapian_database_open(path, &database, $0) }
            self.database = database
            parser = cxapian_query_parser_new()
            try check { cxapian_query_parser_set_stemmer(parser, "english", $0) }
            cxapian_query_parser_set_stemming_strategy(parser, CXAPIAN_STEM_SOME)
            cxapian_query_parser_set_database(parser, database)
            // The default field searches detail words and title words, as Spotlite's does.
            try check { cxapian_query_parser_add_prefix(parser, "", "", $0) }
            try check { cxapian_query_parser_add_prefix(parser, "", "S", $0) }
        }

        deinit {
            cxapian_query_parser_free(parser)
            cxapian_database_free(database)
        }

        /// Moves to the latest commit.
        public func reopen() throws {
            var changed = false
            try check { cxapian_database_reopen(database, &changed, $0) }
        }

        /// The top `limit` hits' URIs for `text` (words ANDed unless the text says OR), by relevance.
        public func search(_ text: String, limit: UInt32 = 20) throws -> [String] {
            cxapian_query_parser_set_default_and(parser, true)
            var query: OpaquePointer?
            try check {
                cxapian_query_parser_parse(parser, text, text.utf8.count, UInt32(CXAPIAN_QP_DEFAULT), &query, $0)
            }
            defer { cxapian_query_free(query) }
            var options = cxapian_enquire_options()
            options.max_items = limit
            options.by_relevance_first = true
            var mset: OpaquePointer?
            try check { cxapian_enquire(database, query, &options, &mset, $0) }
            defer { cxapian_mset_free(mset) }
            var uris: [String] = []
            for index in 0..<cxapian_mset_size(mset) {
                var weight = 0.0
                var data: UnsafeMutablePointer<CChar>?
                var length = 0
                try check { cxapian_mset_hit(mset, index, &weight, &data, &length, $0) }
                if let data {
                    uris.append(String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self))
                    cxapian_free(data)
                }
            }
            return uris
        }
    }
}

/// A C API failure, with Xapian's class and message.
public struct BaselineError: Error, CustomStringConvertible {
    public var description: String
}

func check(_ body: (UnsafeMutablePointer<OpaquePointer?>) -> Bool) throws {
    var error: OpaquePointer?
    if !body(&error) {
        let message = "\(String(cString: cxapian_error_class(error))): \(String(cString: cxapian_error_message(error)))"
        cxapian_error_free(error)
        throw BaselineError(description: message)
    }
}
