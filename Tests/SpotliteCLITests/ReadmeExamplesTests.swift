import Foundation
import Testing
import TestSupport

/// Every example of the README's "Query syntax" section, run on samples/, prints exactly what the README shows.
/// When a change to the output is intended, run the tests with SPOTLITE_UPDATE_README=1 and review the README's diff.
@Suite struct ReadmeExamplesTests {
    struct Example {
        var command: String
        var expected: String
    }

    static let readmePath = Repository.root + "/README.md"

    /// The `$ spotlite …` lines of the section's console blocks, each with the lines shown after it; with
    /// `outputs`, the README with each example's lines replaced by its output instead.
    static func examples(replacingWith outputs: [String]? = nil) throws -> (examples: [Example], readme: String) {
        let readme = try String(contentsOfFile: readmePath, encoding: .utf8)
        guard let start = readme.range(of: "## Query syntax"),
            let end = readme.range(of: "\n## ", range: start.upperBound..<readme.endIndex)
        else { return ([], readme) }
        var examples: [Example] = []
        var rewritten: [Substring] = []
        var inBlock = false
        for line in readme[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "```console" || line == "```" { inBlock = line != "```" }
            if inBlock && line.hasPrefix("$ spotlite ") {
                examples.append(Example(command: String(line.dropFirst(2)), expected: ""))
                if let outputs {
                    rewritten += [line] + outputs[examples.count - 1].split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                }
                continue
            } else if inBlock && line != "```console" && !examples.isEmpty {
                examples[examples.count - 1].expected += line + "\n"
                continue
            }
            rewritten.append(line)
        }
        let joined = rewritten.joined(separator: "\n")
        return (examples, String(readme[..<start.upperBound]) + joined + String(readme[end.lowerBound...]))
    }

    @Test func everyQueryExamplePrintsWhatTheREADMEShows() throws {
        let examples = try Self.examples().examples
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
        var outputs: [String] = []
        for example in examples {
            let command = CLI.binary + example.command.dropFirst("spotlite".count).replacingOccurrences(of: "<store-uuid>", with: uuid) + " 2>&1"
            let result = TestSupport.run(["bash", "-c", command], environment: environment)
            outputs.append(result.stdout.replacingOccurrences(of: uuid, with: "<store-uuid>"))
        }
        if ProcessInfo.processInfo.environment["SPOTLITE_UPDATE_README"] == "1" {
            try Self.examples(replacingWith: outputs).readme.write(toFile: Self.readmePath, atomically: true, encoding: .utf8)
            return
        }
        for (example, output) in zip(examples, outputs) {
            #expect(output == example.expected, "README example: \(example.command); rerun with SPOTLITE_UPDATE_README=1 to accept")
        }
    }
}
