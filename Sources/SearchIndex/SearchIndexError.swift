import Xapian

/// An error from the search index: a code to match on, a sentence, and the Xapian error behind it.
public struct SearchIndexError: Error, CustomStringConvertible, Sendable {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }

        /// Another writer holds the index.
        public static let locked = Code("locked")
        /// The revision being read was replaced; reopen and retry.
        public static let modified = Code("modified")
        /// The index is missing or cannot be opened.
        public static let unavailable = Code("unavailable")
        /// The index is damaged.
        public static let corrupt = Code("corrupt")
        /// A query string could not be understood.
        public static let querySyntax = Code("query syntax")
        /// An argument was out of range.
        public static let invalidArgument = Code("invalid argument")
        /// The disk or quota is full: the index is intact; retry once there is space.
        public static let noSpace = Code("no space")
        /// Anything else.
        public static let other = Code("other")

        public var description: String { name }
    }

    public var code: Code
    public var message: String
    public var cause: XapianError?

    public init(_ code: Code, _ message: String, cause: XapianError? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String { message }

    /// Whether a message carries the system's words for a full disk or quota.
    public static func isOutOfSpace(_ message: String) -> Bool { XapianError.isOutOfSpace(message) }

    init(_ error: XapianError) {
        let code: Code
        switch error.kind {
        case .lock: code = .locked
        case .modified: code = .modified
        case .opening: code = .unavailable
        case .corrupt: code = .corrupt
        case .querySyntax: code = .querySyntax
        case .invalidArgument: code = .invalidArgument
        case .noSpace: code = .noSpace
        default: code = .other
        }
        self.init(code, Self.sentence(for: error), cause: error)
    }

    /// The error's message in Spotlite's words where Xapian's would puzzle a user: a wildcard that expands too far
    /// ("Wildcard a* expands to more than 1000 terms") says what to do about it, whichever search met it.
    static func sentence(for error: XapianError) -> String {
        guard error.errorClass == "WildcardError" else { return error.message }
        let words = error.message.split(separator: " ")
        let pattern = words.count > 1 && words[0] == "Wildcard" ? " \(words[1])" : ""
        return "the wildcard\(pattern) matches more than \(SearchQueryParser.maximumWildcardExpansion) words; "
            + "type more letters before the *"
    }
}

/// Runs Xapian calls, converting their errors.
@inline(__always)
func xapian<T>(_ body: () throws(XapianError) -> T) throws(SearchIndexError) -> T {
    do {
        return try body()
    } catch {
        throw SearchIndexError(error)
    }
}
