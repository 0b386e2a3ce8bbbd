/// An error from the tracker store: a code to match on, a sentence for people, and the underlying cause.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure; extensible.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }

        /// No store exists at the path.
        public static let missingStore = Code("missing store")
        /// The file is not an SQLite database, or not a Spotlite store.
        public static let notAStore = Code("not a store")
        /// The store was made by a newer Spotlite.
        public static let unsupportedVersion = Code("unsupported version")
        /// Input was rejected (empty title, priority out of range, bad import line…).
        public static let invalidInput = Code("invalid input")
        /// A URI or name refers to nothing in the store.
        public static let notFound = Code("not found")
        /// A URI belongs to another store.
        public static let foreignStore = Code("foreign store")
        /// A name matches more than one row.
        public static let ambiguous = Code("ambiguous")
        /// The store is busy or locked beyond the busy timeout.
        public static let busy = Code("busy")
        /// The change log cannot serve a cursor (pruned past it, or the cursor is ahead); the cause is the
        /// ``ChangeFeedGap``.
        public static let changeLogGap = Code("change log gap")
        /// The store is read-only to this user (file, directory or mount): a write was refused.
        public static let readOnly = Code("read only")
        /// A write would pass a limit the store keeps (``SubscriptionLimits``): refused, nothing written.
        public static let limitReached = Code("limit reached")
        /// Any other SQLite failure.
        public static let database = Code("database")

        public var description: String { name }
    }

    public var code: Code
    public var message: String
    public var cause: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String { message }
}
