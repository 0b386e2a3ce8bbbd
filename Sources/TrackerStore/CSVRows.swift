/// RFC 4180 CSV, as trackers export it: fields separated by commas, a quoted field may hold commas, line breaks and
/// doubled quotes (`""`). Rows come with the line they start on, for errors.
public enum CSVRows {
    public struct Failure: Error {
        public var line: Int
        public var reason: String
    }

    /// The rows of `bytes` (a UTF-8 byte order mark skipped), blank lines left out.
    public static func parse(_ bytes: [UInt8]) throws(Failure) -> [(line: Int, fields: [String])] {
        var rows: [(line: Int, fields: [String])] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var line = 1
        var rowLine = 1
        var quoted = false
        var wasQuoted = false
        func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            wasQuoted = false
        }
        func endRow() {
            endField()
            if !(fields.count == 1 && fields[0].isEmpty) { rows.append((rowLine, fields)) }
            fields.removeAll()
        }
        while index < bytes.count {
            let byte = bytes[index]
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") {
                        field.append(byte)
                        index += 2
                        continue
                    }
                    quoted = false
                } else {
                    if byte == 0x0A { line += 1 }
                    field.append(byte)
                }
                index += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                guard field.isEmpty, !wasQuoted else {
                    throw Failure(line: line, reason: "a quote inside an unquoted field; quote the field and double it")
                }
                quoted = true
                wasQuoted = true
            case UInt8(ascii: ","): endField()
            case 0x0D where index + 1 < bytes.count && bytes[index + 1] == 0x0A: break
            case 0x0A:
                endRow()
                line += 1
                rowLine = line
            default:
                if wasQuoted {
                    throw Failure(
                        line: line, reason: "text after a closing quote; a field is quoted whole or not at all")
                }
                field.append(byte)
            }
            index += 1
        }
        if quoted { throw Failure(line: rowLine, reason: "a quoted field is not closed before the end of the file") }
        if !field.isEmpty || !fields.isEmpty || wasQuoted { endRow() }
        return rows
    }
}
