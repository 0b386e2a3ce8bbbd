import CXapian

#if canImport(Glibc)
    import Glibc
#endif

/// An error raised by Xapian, caught at the C boundary and carried into Swift.
///
/// Match on ``kind`` to react (a ``Kind/lock`` means another writer holds the database; a ``Kind/modified``
/// means a reader should `reopen()` and retry); show ``message`` to people.
public struct XapianError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, in the terms a caller acts on.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        let name: String

        /// Another writer holds the database's write lock (`DatabaseLockError`).
        public static let lock = Kind(name: "lock")
        /// The revision being read was overwritten; reopen and retry (`DatabaseModifiedError`).
        public static let modified = Kind(name: "modified")
        /// The database could not be opened: missing, not a database, wrong version (`DatabaseOpeningError`…).
        public static let opening = Kind(name: "opening")
        /// The database is damaged (`DatabaseCorruptError`).
        public static let corrupt = Kind(name: "corrupt")
        /// A query string could not be parsed (`QueryParserError`).
        public static let querySyntax = Kind(name: "query syntax")
        /// An argument was out of range or malformed (`InvalidArgumentError`, `InvalidOperationError`).
        public static let invalidArgument = Kind(name: "invalid argument")
        /// The disk or the user's quota is full (`ENOSPC`, `EDQUOT` behind a `DatabaseError`): nothing is wrong
        /// with the database; retry once there is space.
        public static let noSpace = Kind(name: "no space")
        /// Anything else, including non-Xapian C++ exceptions.
        public static let other = Kind(name: "other")

        public var description: String { name }
    }

    /// The kind, derived from the Xapian error class.
    public var kind: Kind
    /// The Xapian error class name, e.g. `DatabaseLockError`, or `std::exception`.
    public var errorClass: String
    /// Xapian's message.
    public var message: String

    public init(kind: Kind, errorClass: String, message: String) {
        self.kind = kind
        self.errorClass = errorClass
        self.message = message
    }

    public var description: String { "\(errorClass): \(message)" }

    /// Whether a message carries the system's words for a full disk or quota (Xapian appends `strerror`).
    public static func isOutOfSpace(_ message: String) -> Bool {
        message.contains(String(cString: strerror(ENOSPC))) || message.contains(String(cString: strerror(EDQUOT)))
    }

    static func kind(forClass errorClass: String) -> Kind {
        switch errorClass {
        case "DatabaseLockError": return .lock
        case "DatabaseModifiedError": return .modified
        case "DatabaseOpeningError", "DatabaseNotFoundError", "DatabaseVersionError", "DatabaseClosedError":
            return .opening
        case "DatabaseCorruptError": return .corrupt
        case "QueryParserError", "WildcardError": return .querySyntax
        case "InvalidArgumentError", "InvalidOperationError", "RangeError": return .invalidArgument
        default: return .other
        }
    }

    /// Takes ownership of a boundary error and frees it.
    init(consuming error: OpaquePointer?) {
        guard let error else {
            self.init(kind: .other, errorClass: "unknown", message: "Xapian reported a failure without an error")
            return
        }
        defer { cxapian_error_free(error) }
        let errorClass = String(cString: cxapian_error_class(error))
        let message = String(cString: cxapian_error_message(error))
        var kind = Self.kind(forClass: errorClass)
        // A table file shorter than its revision says (truncated) is reported as a plain DatabaseError.
        if errorClass == "DatabaseError" && message.hasPrefix("EOF reading block") { kind = .corrupt }
        if Self.isOutOfSpace(message) { kind = .noSpace }
        self.init(kind: kind, errorClass: errorClass, message: message)
    }
}

/// Runs a boundary call of the `(…, cxapian_error **) -> bool` shape and throws its error.
@inline(__always)
func check(_ body: (UnsafeMutablePointer<OpaquePointer?>) -> Bool) throws(XapianError) {
    var error: OpaquePointer?
    if !body(&error) {
        throw XapianError(consuming: error)
    }
}

/// Takes a malloc'ed (pointer, length) buffer from the boundary as bytes and frees it.
func takeBytes(_ pointer: UnsafeMutablePointer<CChar>?, _ length: Int) -> [UInt8] {
    guard let pointer else { return [] }
    defer { cxapian_free(pointer) }
    return pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
        Array(UnsafeBufferPointer(start: $0, count: length))
    }
}

/// The text of a string the C API returned (`length` UTF-8 bytes, not NUL-terminated), decoded where it lies and then
/// freed; "" for none.
func takeText(_ pointer: UnsafeMutablePointer<CChar>?, _ length: Int) -> String {
    guard let pointer else { return "" }
    defer { cxapian_free(pointer) }
    return pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
        String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
    }
}

extension String {
    /// Calls body with the UTF-8 bytes as a (pointer, length) pair, without requiring NUL termination.
    @inline(__always)
    func withBytes<R>(_ body: (UnsafePointer<CChar>, Int) throws(XapianError) -> R) throws(XapianError) -> R {
        var copy = self
        let result: Result<R, XapianError> = copy.withUTF8 { buffer in
            let base = buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
            let empty: StaticString = ""
            let pointer = base ?? UnsafeRawPointer(empty.utf8Start).assumingMemoryBound(to: CChar.self)
            do throws(XapianError) {
                return .success(try body(pointer, buffer.count))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Calls body with the string as a NUL-terminated C string, the string's own storage where it has one (passing a
    /// String where C wants a pointer makes a copy for each call).
    @inline(__always)
    func withCStringBytes<R>(_ body: (UnsafePointer<CChar>) throws(XapianError) -> R) throws(XapianError) -> R {
        let result: Result<R, XapianError> = withCString { pointer in
            do throws(XapianError) {
                return .success(try body(pointer))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
