import CXapian

/// Parses query strings as people type them into Xapian queries.
///
/// Configure prefixes and fields once, then ``parse(_:flags:)`` many times. Not thread-safe.
public final class QueryParser {
    let handle: OpaquePointer
    private var database: Database?
    private var mappers: [FieldMapperBox] = []

    /// What the parser understands.
    public struct Flags: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// `AND`, `OR`, `NOT`, `XOR` and parentheses.
        public static let boolean = Flags(rawValue: UInt32(CXAPIAN_QP_BOOLEAN))
        /// `"quoted phrases"`.
        public static let phrase = Flags(rawValue: UInt32(CXAPIAN_QP_PHRASE))
        /// `+required` and `-excluded` words.
        public static let loveHate = Flags(rawValue: UInt32(CXAPIAN_QP_LOVEHATE))
        /// `and`, `or`, `not` in any case.
        public static let booleanAnyCase = Flags(rawValue: UInt32(CXAPIAN_QP_BOOLEAN_ANY_CASE))
        /// `word*` wildcards (needs a database).
        public static let wildcard = Flags(rawValue: UInt32(CXAPIAN_QP_WILDCARD))
        /// A query of only `NOT x`.
        public static let pureNot = Flags(rawValue: UInt32(CXAPIAN_QP_PURE_NOT))
        /// The last word is a prefix (search as you type; needs a database).
        public static let partial = Flags(rawValue: UInt32(CXAPIAN_QP_PARTIAL))
        /// Compute a spelling correction (read it with ``QueryParser/correctedQuery``; needs a database).
        public static let spellingCorrection = Flags(rawValue: UInt32(CXAPIAN_QP_SPELLING_CORRECTION))
        /// Spans of CJK characters as unigrams and bigrams (the index's term generator must do the same).
        public static let cjkNgrams = Flags(rawValue: UInt32(CXAPIAN_QP_CJK_NGRAM))
        /// Xapian's defaults: boolean, phrase and love/hate.
        public static let `default`: Flags = [.boolean, .phrase, .loveHate]
    }

    /// How words are stemmed.
    public enum StemmingStrategy: Sendable {
        case none, some, all, allZ
    }

    /// Maps a field's text to a term: `.term(t)`, `.nothing` (a filter matching nothing), or
    /// `.invalid(message)` to reject the query with that message.
    public enum FieldMapping: Sendable, Equatable {
        case term(String)
        /// The term, which exactly the documents holding `value` in `slot` hold (``Query/slotTerm(_:slot:value:)``).
        case slotTerm(String, slot: UInt32, value: [UInt8])
        /// Documents with any of these terms.
        case anyTerm([String])
        /// Documents without this term.
        case withoutTerm(String)
        /// Documents whose value in `slot` lies between `lower` and `upper` (inclusive; nil = open).
        case valueRange(slot: UInt32, lower: [UInt8]?, upper: [UInt8]?)
        case nothing
        case invalid(String)
    }

    public init() {
        guard let handle = cxapian_query_parser_new() else { fatalError("out of memory allocating a query parser") }
        self.handle = handle
    }

    deinit { cxapian_query_parser_free(handle) }

    /// Sets the stemmer (a Snowball language name), or `nil` for none.
    public func setStemmer(language: String?) throws(XapianError) {
        try check { cxapian_query_parser_set_stemmer(handle, language ?? "", $0) }
    }

    public func setStemmingStrategy(_ strategy: StemmingStrategy) {
        let value: cxapian_stem_strategy
        switch strategy {
        case .none: value = CXAPIAN_STEM_NONE
        case .some: value = CXAPIAN_STEM_SOME
        case .all: value = CXAPIAN_STEM_ALL
        case .allZ: value = CXAPIAN_STEM_ALL_Z
        }
        cxapian_query_parser_set_stemming_strategy(handle, value)
    }

    /// Whether plain words combine with AND (`true`) or OR (`false`).
    public func setDefaultAnd(_ andByDefault: Bool) {
        cxapian_query_parser_set_default_and(handle, andByDefault)
    }

    /// The database used for wildcard expansion; kept alive by the parser.
    public func setDatabase(_ database: Database) {
        self.database = database
        cxapian_query_parser_set_database(handle, database.handle)
    }

    /// Maps `field:` to a free-text prefix; calling it twice for one field searches both prefixes.
    /// The field `""` is the default field.
    public func addPrefix(field: String, prefix: String) throws(XapianError) {
        try check { cxapian_query_parser_add_prefix(handle, field, prefix, $0) }
    }

    /// Maps `field:value` to the boolean filter term `prefix + value`.
    public func addBooleanPrefix(field: String, prefix: String, exclusive: Bool = true) throws(XapianError) {
        try check { cxapian_query_parser_add_boolean_prefix(handle, field, prefix, exclusive, $0) }
    }

    /// Maps `field:value` to a boolean filter whose term `map` computes (normalising case, resolving names…).
    /// `exclusive`: several filters of the field match documents with any of them (a project, a status); else with
    /// all of them (tags).
    public func addBooleanField(
        _ field: String, exclusive: Bool = true, map: @escaping (String) -> FieldMapping
    ) throws(XapianError) {
        let box = FieldMapperBox(map)
        mappers.append(box)
        let context = Unmanaged.passUnretained(box).toOpaque()
        try check {
            cxapian_query_parser_add_boolean_mapper(
                handle, field,
                { context, text, length, result in
                    let box = Unmanaged<FieldMapperBox>.fromOpaque(context!).takeUnretainedValue()
                    let value = String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
                    let result = result!
                    switch box.map(value) {
                    case .term(let term):
                        (result.pointee.term, result.pointee.term_length) = mallocCopy(Array(term.utf8))
                        return Int32(CXAPIAN_FIELD_TERM)
                    case .slotTerm(let term, let slot, let value):
                        (result.pointee.term, result.pointee.term_length) = mallocCopy(Array(term.utf8))
                        result.pointee.slot = slot
                        (result.pointee.begin, result.pointee.begin_length) = mallocCopy(value)
                        return Int32(CXAPIAN_FIELD_SLOT_TERM)
                    case .anyTerm(let terms):
                        (result.pointee.term, result.pointee.term_length) = mallocCopy(
                            terms.flatMap { Array($0.utf8) + [0] })
                        return Int32(CXAPIAN_FIELD_ANY_TERM)
                    case .withoutTerm(let term):
                        (result.pointee.term, result.pointee.term_length) = mallocCopy(Array(term.utf8))
                        return Int32(CXAPIAN_FIELD_NOT_TERM)
                    case .valueRange(let slot, let lower, let upper):
                        result.pointee.slot = slot
                        if let lower { (result.pointee.begin, result.pointee.begin_length) = mallocCopy(lower) }
                        if let upper { (result.pointee.end, result.pointee.end_length) = mallocCopy(upper) }
                        return Int32(CXAPIAN_FIELD_VALUE_RANGE)
                    case .nothing:
                        return Int32(CXAPIAN_FIELD_NOTHING)
                    case .invalid(let reason):
                        result.pointee.message = strdup(reason)
                        return Int32(CXAPIAN_FIELD_REJECTED)
                    }
                }, context, exclusive, $0)
        }
    }

    /// Bounds wildcard expansion: `word*` matching more than `limit` words fails the search with
    /// ``XapianError/Kind-swift.struct/querySyntax``; a partial last word expands to its `partialLimit` most
    /// frequent completions.
    public func setMaxExpansion(_ limit: UInt32, partialLimit: UInt32) {
        cxapian_query_parser_set_max_expansion(handle, limit, partialLimit)
    }

    /// After a parse with ``Flags/spellingCorrection``: the corrected query string, or `""` if none.
    public var correctedQuery: String {
        guard let text = cxapian_query_parser_corrected_query(handle) else { return "" }
        defer { cxapian_free(text) }
        return String(cString: text)
    }

    /// Parses `text`. Throws ``XapianError/Kind-swift.struct/querySyntax`` with Xapian's message on bad syntax.
    public func parse(_ text: String, flags: Flags = .default) throws(XapianError) -> Query {
        var query: OpaquePointer?
        try text.withBytes { (pointer, count) throws(XapianError) in
            try check { cxapian_query_parser_parse(handle, pointer, count, flags.rawValue, &query, $0) }
        }
        return Query(handle: query!)
    }
}

/// A malloc'ed copy of bytes, for the C side to own and free.
private func mallocCopy(_ bytes: [UInt8]) -> (UnsafeMutablePointer<CChar>, Int) {
    let pointer = malloc(max(bytes.count, 1))!.assumingMemoryBound(to: CChar.self)
    bytes.withUnsafeBufferPointer { buffer in
        if let base = buffer.baseAddress { memcpy(pointer, base, bytes.count) }
    }
    return (pointer, bytes.count)
}

private final class FieldMapperBox {
    let map: (String) -> QueryParser.FieldMapping
    init(_ map: @escaping (String) -> QueryParser.FieldMapping) { self.map = map }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
