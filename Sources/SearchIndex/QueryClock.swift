import Foundation

/// The "now" and the calendar that relative dates (`today`, `-7d`, `last_month`) are read against.
///
/// Injected, so that tests fix the time instead of sleeping or guessing; the CLI uses ``system``.
public struct QueryClock: Sendable {
    public var now: @Sendable () -> Date
    /// The zone dates are read in, asked for only when a query has a date: the machine's zone takes a read and a
    /// parse of its time zone file, a fifth of `spotlite search`'s own work when nothing needs it (perf of 40
    /// `spotlite search dpkg --format ids` processes).
    private let timeZone: @Sendable () -> TimeZone

    public init(now: @escaping @Sendable () -> Date, timeZone: TimeZone) {
        self.init(now: now, timeZone: { timeZone })
    }

    private init(now: @escaping @Sendable () -> Date, timeZone: @escaping @Sendable () -> TimeZone) {
        self.now = now
        self.timeZone = timeZone
    }

    /// The Gregorian calendar in the clock's zone, with ISO weeks (Monday first, the first week the one with
    /// January 4th).
    public var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone()
        calendar.firstWeekday = 2  // ISO weeks start on Monday
        calendar.minimumDaysInFirstWeek = 4
        return calendar
    }

    /// The machine's clock and local time zone.
    public static var system: QueryClock { QueryClock(now: { Date() }, timeZone: { TimeZone.current }) }

    /// A fixed instant in a fixed zone, for tests.
    public static func fixed(_ date: Date, timeZone: TimeZone) -> QueryClock {
        QueryClock(now: { date }, timeZone: timeZone)
    }
}
