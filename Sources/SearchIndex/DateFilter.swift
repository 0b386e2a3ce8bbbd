import Foundation

/// Parses the values of `created:` and `modified:` into ranges of seconds since 1970 (inclusive).
///
/// | form | meaning |
/// |---|---|
/// | `2024`, `2024-05`, `2024-05-01` | that year, month or day (local time) |
/// | `a..b`, `a..`, `..b` | from the start of `a` to the end of `b`; either side open |
/// | `>=a`, `>a`, `<=a`, `<a` | from / after / until / before `a` |
/// | `today`, `yesterday` | that day |
/// | `this_week`, `last_week`, `this_month`, `last_month`, `this_year`, `last_year` | that period (weeks start on Monday) |
/// | `-7d`, `-2w`, `-3m`, `-1y` | from the start of the day that long ago until now |
struct DateFilter {
    let clock: QueryClock

    /// A closed-open period: `start` inclusive, `end` exclusive (nil = unbounded).
    struct Period {
        var start: Double?
        var end: Double?
    }

    static let help =
        "use YYYY, YYYY-MM, YYYY-MM-DD, today, yesterday, this_week, last_week, this_month, last_month, "
        + "this_year, last_year, -7d, -2w, -3m, -1y, or a range a..b"

    /// The inclusive range `[lower, upper]` in seconds, either side possibly open, or nil if not a date filter.
    func range(_ text: String) -> (lower: Double?, upper: Double?)? {
        let text = text.lowercased()
        if let dots = text.range(of: "..") {
            let left = String(text[..<dots.lowerBound])
            let right = String(text[dots.upperBound...])
            if left.isEmpty && right.isEmpty { return nil }
            var lower: Double?
            var upper: Double?
            if !left.isEmpty {
                guard let period = period(left) else { return nil }
                lower = period.start
            }
            if !right.isEmpty {
                guard let period = period(right) else { return nil }
                upper = period.end.map { $0 - 1 }
            }
            if let lower, let upper, lower > upper { return nil }
            return (lower, upper)
        }
        for (op, rest) in [(">=", 2), ("<=", 2), (">", 1), ("<", 1)] where text.hasPrefix(op) {
            guard let period = period(String(text.dropFirst(rest))) else { return nil }
            switch op {
            case ">=": return (period.start, nil)
            case ">": return (period.end, nil)
            case "<=": return (nil, period.end.map { $0 - 1 })
            default: return (nil, period.start.map { $0 - 1 })
            }
        }
        guard let period = period(text) else { return nil }
        return (period.start, period.end.map { $0 - 1 })
    }

    /// The period a single date word stands for.
    func period(_ text: String) -> Period? {
        let calendar = clock.calendar
        let now = clock.now()
        func span(_ start: Date, _ component: Calendar.Component, _ count: Int = 1) -> Period? {
            guard let end = calendar.date(byAdding: component, value: count, to: start) else { return nil }
            return Period(start: start.timeIntervalSince1970, end: end.timeIntervalSince1970)
        }
        func startOf(_ component: Calendar.Component, _ date: Date) -> Date? {
            calendar.dateInterval(of: component, for: date)?.start
        }
        /// The whole `component` (day, week, month, year) `now` is in, or the one `back` before it.
        func whole(_ component: Calendar.Component, back: Int = 0) -> Period? {
            startOf(component, now).flatMap { calendar.date(byAdding: component, value: -back, to: $0) }.flatMap {
                span($0, component)
            }
        }
        switch text {
        case "today": return whole(.day)
        case "yesterday": return whole(.day, back: 1)
        case "this_week": return whole(.weekOfYear)
        case "last_week": return whole(.weekOfYear, back: 1)
        case "this_month": return whole(.month)
        case "last_month": return whole(.month, back: 1)
        case "this_year": return whole(.year)
        case "last_year": return whole(.year, back: 1)
        default: break
        }
        if text.hasPrefix("-"), let unit = text.last, let count = Int(text.dropFirst().dropLast()), count >= 0,
            count <= 100_000
        {
            let component: Calendar.Component
            switch unit {
            case "d": component = .day
            case "w": component = .weekOfYear
            case "m": component = .month
            case "y": component = .year
            default: return nil
            }
            guard let today = startOf(.day, now),
                let start = calendar.date(byAdding: component, value: -count, to: today)
            else { return nil }
            return Period(start: start.timeIntervalSince1970, end: nil)
        }
        return absolute(text)
    }

    /// `YYYY`, `YYYY-MM` or `YYYY-MM-DD` in the clock's time zone.
    func absolute(_ text: String) -> Period? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts[0].count == 4, parts.dropFirst().allSatisfy({ $0.count == 2 }),
            let numbers = Optional(parts.compactMap { Int($0) }), numbers.count == parts.count
        else { return nil }
        var components = DateComponents(year: numbers[0], month: 1, day: 1)
        if numbers.count > 1 {
            guard (1...12).contains(numbers[1]) else { return nil }
            components.month = numbers[1]
        }
        if numbers.count > 2 {
            guard (1...31).contains(numbers[2]) else { return nil }
            components.day = numbers[2]
        }
        guard let start = clock.calendar.date(from: components) else { return nil }
        // Reject dates the calendar rolled over (2024-02-31 → March 2).
        let check = clock.calendar.dateComponents([.year, .month, .day], from: start)
        guard check.year == components.year, check.month == components.month, check.day == components.day else {
            return nil
        }
        let unit: Calendar.Component = numbers.count == 1 ? .year : numbers.count == 2 ? .month : .day
        guard let end = clock.calendar.date(byAdding: unit, value: 1, to: start) else { return nil }
        return Period(start: start.timeIntervalSince1970, end: end.timeIntervalSince1970)
    }
}
