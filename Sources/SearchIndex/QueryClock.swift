import Foundation

/// The "now" and the calendar that relative dates (`today`, `-7d`, `last_month`) are read against.
///
/// Injected, so that tests fix the time instead of sleeping or guessing; the CLI uses ``system``.
public struct QueryClock: Sendable {
    public var now: @Sendable () -> Date
    public var calendar: Calendar

    public init(now: @escaping @Sendable () -> Date, timeZone: TimeZone) {
        self.now = now
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.firstWeekday = 2  // ISO weeks start on Monday
        calendar.minimumDaysInFirstWeek = 4
        self.calendar = calendar
    }

    /// The machine's clock and local time zone.
    public static var system: QueryClock { QueryClock(now: { Date() }, timeZone: .current) }

    /// A fixed instant in a fixed zone, for tests.
    public static func fixed(_ date: Date, timeZone: TimeZone) -> QueryClock {
        QueryClock(now: { date }, timeZone: timeZone)
    }
}
