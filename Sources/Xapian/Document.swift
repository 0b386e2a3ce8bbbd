import CXapian

/// A Xapian document under construction: terms, values and opaque data.
///
/// Not thread-safe; build one per thread. Freed when the last reference goes.
public final class Document {
    let handle: OpaquePointer

    public init() {
        guard let handle = cxapian_document_new() else { fatalError("out of memory allocating a Xapian document") }
        self.handle = handle
    }

    deinit { cxapian_document_free(handle) }

    /// Sets the document's data (any bytes; Spotlite stores the unique identifier).
    public func setData(_ data: String) throws(XapianError) {
        try data.withBytes { (pointer, count) throws(XapianError) in
            try check { cxapian_document_set_data(handle, pointer, count, $0) }
        }
    }

    /// Adds a term with a within-document frequency increment (no position).
    public func addTerm(_ term: String, wdfIncrement: UInt32 = 1) throws(XapianError) {
        try term.withBytes { (pointer, count) throws(XapianError) in
            try check { cxapian_document_add_term(handle, pointer, count, wdfIncrement, $0) }
        }
    }

    /// Adds a boolean (filter) term: it matches but carries no weight.
    ///
    /// Throws ``XapianError/Kind-swift.struct/invalidArgument`` if the term is longer than Xapian's limit
    /// (245 bytes), when the document is stored.
    public func addBooleanTerm(_ term: String) throws(XapianError) {
        try term.withBytes { (pointer, count) throws(XapianError) in
            try check { cxapian_document_add_boolean_term(handle, pointer, count, $0) }
        }
    }

    /// Sets the value in a slot (for sorting, ranges and checks).
    public func addValue(_ value: [UInt8], slot: UInt32) throws(XapianError) {
        try value.withUnsafeBufferPointer { buffer throws(XapianError) in
            let pointer = UnsafeRawPointer(buffer.baseAddress)?.assumingMemoryBound(to: CChar.self)
            try check { cxapian_document_add_value(handle, slot, pointer, buffer.count, $0) }
        }
    }
}

/// Xapian's sortable encoding of numbers: byte order equals numeric order.
public enum SortableNumber {
    /// Encodes a number so that comparing the bytes compares the numbers.
    public static func encode(_ value: Double) -> [UInt8] {
        var buffer = [CChar](repeating: 0, count: 16)
        let length = buffer.withUnsafeMutableBufferPointer { cxapian_sortable_serialise(value, $0.baseAddress) }
        return buffer[..<length].map { UInt8(bitPattern: $0) }
    }

    /// Decodes bytes made by ``encode(_:)``.
    public static func decode(_ bytes: [UInt8]) -> Double {
        bytes.withUnsafeBufferPointer { buffer in
            let pointer = UnsafeRawPointer(buffer.baseAddress)?.assumingMemoryBound(to: CChar.self)
            return cxapian_sortable_unserialise(pointer, buffer.count)
        }
    }
}
