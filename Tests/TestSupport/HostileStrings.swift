import Foundation

/// `Tests/Corpora/hostile-strings.json`: strings a hostile or careless writer puts in a store to attack what shows
/// them (markup hidden in grapheme clusters, terminal control sequences, bidirectional overrides).
public enum HostileStrings {
    public struct Entry: Decodable, Sendable {
        public var name: String
        public var text: String
        /// False for text the store's own checks refuse (a NUL).
        public var storable: Bool?
    }

    public static func entries() throws -> [Entry] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Repository.root + "/Tests/Corpora/hostile-strings.json"))
        return try JSONDecoder().decode([Entry].self, from: data)
    }

    public static func all() throws -> [String] { try entries().map(\.text) }

    /// The entries a store takes.
    public static func storable() throws -> [Entry] { try entries().filter { $0.storable != false } }

    /// What no text output or page may hold raw: C0 controls but newline and tab, DEL, C1 controls (`C2 80`–`C2 9F`
    /// in UTF-8) and the bidirectional controls. The offset and bytes of the first, or nil.
    public static func firstRawControl(in data: Data) -> (offset: Int, bytes: [UInt8])? {
        let bytes = [UInt8](data)
        for index in bytes.indices {
            let byte = bytes[index]
            if (byte < 0x20 && byte != 0x0A && byte != 0x09) || byte == 0x7F { return (index, [byte]) }
            if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) {
                return (index, Array(bytes[index...index + 1]))
            }
            if byte == 0xE2, index + 2 < bytes.count,
                (bytes[index + 1] == 0x80 && (0xAA...0xAE).contains(bytes[index + 2]))
                    || (bytes[index + 1] == 0x81 && (0xA6...0xA9).contains(bytes[index + 2]))
            {
                return (index, Array(bytes[index...index + 2]))
            }
        }
        return nil
    }
}
