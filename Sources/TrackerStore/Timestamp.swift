import Foundation

/// The store's timestamp form: ISO 8601 UTC with second precision, `YYYY-MM-DDTHH:MM:SSZ`.
///
/// Text so that a `sqlite3` shell shows and sorts it; parsed here without Foundation's formatters, which
/// are slow in bulk.
public enum Timestamp {
    /// The SQL expression for "now" in this form.
    static let nowSQL = "strftime('%Y-%m-%dT%H:%M:%SZ','now')"

    /// Seconds since 1970 for a stored timestamp, or nil if it is not in the store's form.
    public static func seconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54, bytes[13] == 0x3A,
            bytes[16] == 0x3A, bytes[19] == 0x5A
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                let digit = bytes[index] &- 0x30
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        // Days from civil (Howard Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        return days * 86400 + hour * 3600 + minute * 60 + second
    }

    /// Normalises an ISO 8601 timestamp from outside (`…Z`, fractional seconds, or a `±HH:MM` offset)
    /// to the store's form, or returns nil if it is not one.
    public static func normalize(_ text: String) -> String? {
        if seconds(text) != nil { return text }
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        guard let date = plain.date(from: text) ?? withFraction.date(from: text) else { return nil }
        return string(from: date)
    }

    /// The store's form of a date.
    public static func string(from date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
