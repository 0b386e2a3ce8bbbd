import Foundation

/// The store's timestamp form: ISO 8601 UTC with second precision, `YYYY-MM-DDTHH:MM:SSZ`, years 0001–9999.
///
/// Text so that a `sqlite3` shell shows and sorts it; parsed here without Foundation's formatters, which are
/// slow in bulk and roll impossible dates over (2024-02-31 becomes March 2) instead of refusing them. The
/// schema's triggers (``Schema/v2``) hold every writer to the same rule.
public enum Timestamp {
    /// The SQL expression for "now" in this form.
    static let nowSQL = "strftime('%Y-%m-%dT%H:%M:%SZ','now')"

    /// Seconds since 1970 for a stored timestamp, or nil if it is not in the store's form or names no real instant
    /// (a 31st of February, a 60th second).
    public static func seconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[19] == UInt8(ascii: "Z") else { return nil }
        return localSeconds(bytes[0..<19])
    }

    /// Normalises an ISO 8601 timestamp from outside (`…Z`, fractional seconds, or a `±HH:MM` offset) to the
    /// store's form, or returns nil if it is not one or names no real instant in years 0001–9999.
    public static func normalize(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, let local = localSeconds(bytes[0..<19]) else { return nil }
        var rest = bytes[19...]
        if rest.first == UInt8(ascii: ".") {
            // A fraction of a second, dropped: the store keeps whole seconds.
            rest = rest.dropFirst()
            let digits = rest.prefix { $0 >= 0x30 && $0 <= 0x39 }
            guard !digits.isEmpty, digits.count <= 9 else { return nil }
            rest = rest.dropFirst(digits.count)
        }
        var offset: Int64 = 0
        if rest.count == 1, rest.first == UInt8(ascii: "Z") || rest.first == UInt8(ascii: "z") {
            offset = 0
        } else if rest.count == 6, let sign = rest.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
            rest[rest.startIndex + 3] == UInt8(ascii: ":"),
            let hours = number(rest, rest.startIndex + 1, 2), let minutes = number(rest, rest.startIndex + 4, 2),
            hours <= 23, minutes <= 59
        {
            offset = (hours * 3600 + minutes * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        let utc = local - offset
        guard utc >= minimumSeconds, utc <= maximumSeconds else { return nil }
        return string(seconds: utc)
    }

    /// The store's form of a date.
    public static func string(from date: Date) -> String {
        string(seconds: Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z in seconds since 1970.
    static let minimumSeconds: Int64 = -62_135_596_800
    static let maximumSeconds: Int64 = 253_402_300_799

    /// The store's form of an instant (seconds since 1970, within years 0001–9999).
    static func string(seconds: Int64) -> String {
        let clamped = min(max(seconds, minimumSeconds), maximumSeconds)
        var days = clamped / 86_400
        var time = clamped % 86_400
        if time < 0 {
            time += 86_400
            days -= 1
        }
        // Civil from days (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(time / 3600, 2)):\(pad(time / 60 % 60, 2)):"
            + "\(pad(time % 60, 2))Z"
    }

    /// Seconds since 1970 of `YYYY-MM-DDTHH:MM:SS` read as UTC, or nil unless it is a real date and time.
    private static func localSeconds(_ bytes: ArraySlice<UInt8>) -> Int64? {
        let base = bytes.startIndex
        guard bytes.count == 19, bytes[base + 4] == 0x2D, bytes[base + 7] == 0x2D,
            bytes[base + 10] == UInt8(ascii: "T") || bytes[base + 10] == UInt8(ascii: "t"),
            bytes[base + 13] == 0x3A, bytes[base + 16] == 0x3A,
            let year = number(bytes, base, 4), let month = number(bytes, base + 5, 2),
            let day = number(bytes, base + 8, 2), let hour = number(bytes, base + 11, 2),
            let minute = number(bytes, base + 14, 2), let second = number(bytes, base + 17, 2),
            year >= 1, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 60
        else { return nil }
        // Days from civil (Howard Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return days * 86_400 + hour * 3600 + minute * 60 + second
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The decimal number in `count` bytes from `start`, or nil if any is not a digit.
    private static func number(_ bytes: ArraySlice<UInt8>, _ start: Int, _ count: Int) -> Int64? {
        var value: Int64 = 0
        for index in start..<start + count {
            let digit = bytes[index] &- 0x30
            guard digit < 10 else { return nil }
            value = value * 10 + Int64(digit)
        }
        return value
    }
}
