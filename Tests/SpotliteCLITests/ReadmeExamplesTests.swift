import Foundation
import Testing
import TestSupport

/// Every example of the README's "Query syntax" section, run on samples/, prints exactly what the README shows.
@Suite struct ReadmeExamplesTests {
    struct Example {
        var command: String
        var expected: String
    }

    /// The `$ spotlite …` lines of the section's console blocks, each with the lines shown after it.
    static func examples() throws -> [Example] {
        let readme = try String(contentsOfFile: Repository.root + "/README.md", encoding: .utf8)
        guard let start = readme.range(of: "## Query syntax"),
            let end = readme.range(of: "\n## ", range: start.upperBound..<readme.endIndex)
        else { return [] }
        var examples: [Example] = []
        var inBlock = false
        for line in readme[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "```console" { inBlock = true; continue }
            if line == "```" { inBlock = false; continue }
            guard inBlock else { continue }
            if line.hasPrefix("$ spotlite ") {
                examples.append(Example(command: String(line.dropFirst(2)), expected: ""))
            } else if !examples.isEmpty {
                examples[examples.count - 1].expected += line + "\n"
            }
        }
        return examples
    }

    @Test func everyQueryExamplePrintsWhatTheREADMEShows() throws {
        let examples = try Self.examples()
        #expect(examples.count >= 20)
        let cli = CLI.withSamples()
        let uuid: String
        if case .string(let value)? = try JSONNode.parse(cli("status", "--format", "json").stdoutData)["store_uuid"] {
            uuid = value
        } else {
            Issue.record("no store UUID")
            return
        }
        var environment = cli.environment
        environment["TZ"] = "UTC"
        environment["COLUMNS"] = "100"
        for example in examples {
            let command = CLI.binary + example.command.dropFirst("spotlite".count) + " 2>&1"
            let result = TestSupport.run(["bash", "-c", command], environment: environment)
            let output = result.stdout.replacingOccurrences(of: uuid, with: "<store-uuid>")
            #expect(output == example.expected, "README example: \(example.command)")
        }
    }
}
