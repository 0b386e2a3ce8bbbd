import Foundation
import Testing

@testable import TrackerStore

/// The store's one timestamp form, and what is accepted from outside: real instants only.
@Suite struct TimestampTests {
    @Test(arguments: [
        ("2024-05-01T09:30:00Z", "2024-05-01T09:30:00Z"),
        ("2024-05-01t09:30:00z", "2024-05-01T09:30:00Z"),
        ("2024-05-01T09:30:00.123456Z", "2024-05-01T09:30:00Z"),
        ("2024-05-01T09:30:00+02:00", "2024-05-01T07:30:00Z"),
        ("2024-12-31T23:30:00-01:00", "2025-01-01T00:30:00Z"),
        ("2024-02-29T12:00:00Z", "2024-02-29T12:00:00Z"),
        ("2000-02-29T12:00:00Z", "2000-02-29T12:00:00Z"),
        ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"),
        ("9999-12-31T23:59:59Z", "9999-12-31T23:59:59Z"),
        ("1969-12-31T23:59:59Z", "1969-12-31T23:59:59Z"),
    ])
    func realInstantsNormalizeToUTCSeconds(text: String, expected: String) {
        #expect(Timestamp.normalize(text) == expected)
        #expect(Timestamp.seconds(expected) != nil)
    }

    @Test(arguments: [
        "2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2024-04-31T00:00:00Z",
        "2024-06-30T23:59:60Z", "2024-05-01T24:00:00Z", "2024-05-01T23:60:00Z", "2024-13-01T00:00:00Z",
        "2024-00-10T00:00:00Z", "0000-06-01T00:00:00Z", "99999-01-01T00:00:00Z", "2024-05-01 09:30:00Z",
        "2024-05-01T09:30:00", "2024-05-01T09:30:00+25:00", "2024-05-01T09:30:00+02:60", "2024-05-01T09:30:00.Z",
        "0001-01-01T00:00:00+00:01", "9999-12-31T23:59:59-00:01", "yesterday", "", "２０２４-05-01T09:30:00Z",
    ])
    func impossibleTimesAreRefused(text: String) {
        #expect(Timestamp.normalize(text) == nil, "\(text)")
    }

    @Test func secondsAndStringAreInverses() {
        for seconds: Int64 in [Timestamp.minimumSeconds, -1, 0, 951_782_400, 1_709_251_199, Timestamp.maximumSeconds] {
            let text = Timestamp.string(seconds: seconds)
            #expect(Timestamp.seconds(text) == seconds, "\(text)")
        }
    }
}
