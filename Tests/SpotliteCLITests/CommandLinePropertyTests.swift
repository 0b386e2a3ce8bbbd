import Foundation
import PropertyBased
import TestSupport
import Testing

/// Whatever a person or a script types, the real binary ends with a documented status — 0 (hits), 1 (none) or
/// 2 (bad usage) for a search — and never by a signal (an overflow trap, a stack overflow, a `try!`).
@Suite struct CommandLinePropertyTests {
    static let cli = CLI.withSamples()

    static let number = Gen.frequency(
        (2, Gen.int(in: -4...6).map(String.init)),
        (2, Gen.int(in: Int.min...Int.max).map(String.init)),
        (
            1,
            Gen.element(of: ["9223372036854775807", "-9223372036854775808", "99999999999999999999", "1e9", ""])
                .map { $0 ?? "" }
        )
    )

    static let filter = zip(Gen.int(in: 0...9), number, number).map { input -> String in
        let (form, a, b) = input
        switch form {
        case 0: return "priority:\(a)"
        case 1: return "priority:>\(a)"
        case 2: return "priority:<\(a)"
        case 3: return "priority:\(a)..\(b)"
        case 4: return "created:-\(a)d"
        case 5: return "created:\(a)..\(b)"
        case 6: return "modified:>=\(a)-\(b)"
        case 7: return String(repeating: "(", count: abs((Int(a) ?? 3) % 400)) + "tap"
        case 8: return String(repeating: "NOT ", count: abs((Int(b) ?? 3) % 300)) + "tap"
        default: return "-\(a)"
        }
    }

    static let spotlight = zip(Gen.int(in: 0...5), number, Gen.int(in: 0...3_000)).map { input -> String in
        let (form, a, depth) = input
        switch form {
        case 0: return "priority > \(a)"
        case 1: return "InRange(priority, \(a), 3)"
        case 2: return "contentCreationDate > $time.today(\(a))"
        case 3: return String(repeating: "!", count: depth) + "title == \"tap\""
        case 4: return String(repeating: "(", count: depth) + "priority == 2" + String(repeating: ")", count: depth)
        default: return "contentModificationDate < $time.now(\(a))"
        }
    }

    static let option = Gen.element(of: [
        "--limit", "-n", "--offset", "--format", "--sort", "--reverse", "--facets", "--partial", "--correct",
        "--explain", "-0", "--null", "-x", "--nope", "--", "-", "json", "ids", "xml", "title", "bogus",
        "project,status",
        "0", "-1", "99999999999999999999", "tap", "is:open",
    ]).map { $0 ?? "" }.array(of: 0...5)

    /// Runs a search; true if it ended by a signal or with a status other than 0, 1 or 2.
    static func misbehaves(_ arguments: [String]) -> String? {
        let result = cli.run(arguments: ["search"] + arguments)
        guard [0, 1, 2].contains(result.status), !result.stderr.contains("Fatal error"),
            !result.stderr.contains("Program crashed")
        else {
            return "spotlite search \(arguments.map { $0.prefix(40) }) → \(result.status): \(result.stderr.prefix(300))"
        }
        return nil
    }

    @Test func filterNumbersAndNestingNeverCrashTheBinary() async {
        await propertyCheck(count: 120, input: Self.filter, Self.option) { query, options in
            if let failure = Self.misbehaves([query] + options) { Issue.record("\(failure)") }
        }
    }

    @Test func spotlightQueriesNeverCrashTheBinary() async {
        await propertyCheck(count: 80, input: Self.spotlight) { query in
            if let failure = Self.misbehaves(["--spotlight", query]) { Issue.record("\(failure)") }
        }
    }
}
