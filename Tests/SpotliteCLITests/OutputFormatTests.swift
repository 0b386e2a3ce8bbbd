import Foundation
import TestSupport
import Testing

/// Every output format on samples/, compared whole with the files in Golden/, and the JSON with its schema.
///
/// The store's UUID differs per run and is written as <store-uuid>. To accept a deliberate change of format,
/// run the tests with SPOTLITE_UPDATE_GOLDEN=1 and review the diff of Golden/.
@Suite(.serialized) struct OutputFormatTests {
    static let cli: CLI = .withSamples()
    static let goldenDirectory = Repository.root + "/Tests/SpotliteCLITests/Golden"

    /// Runs spotlite with a fixed zone and no terminal, with the store UUID replaced.
    func output(_ arguments: [String]) -> (stdout: String, stderr: String, status: Int32) {
        let cli = Self.cli
        var environment = cli.environment
        environment["TZ"] = "UTC"
        environment["COLUMNS"] = "100"
        let result = TestSupport.run([CLI.binary] + arguments, environment: environment)
        let uuid = Self.storeUUID
        return (
            result.stdout.replacingOccurrences(of: uuid, with: "<store-uuid>"),
            result.stderr.replacingOccurrences(of: uuid, with: "<store-uuid>"),
            result.status
        )
    }

    /// The shared store's UUID, read once.
    static let storeUUID: String = {
        let status = try? JSONNode.parse(Self.cli("status", "--format", "json").stdoutData)
        guard case .string(let uuid)? = status?["store_uuid"] else { return "?" }
        return uuid
    }()

    func expectGolden(_ name: String, _ arguments: [String], status: Int32 = 0) throws {
        let result = output(arguments)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        let command = arguments.joined(separator: " ").replacingOccurrences(of: Self.storeUUID, with: "<store-uuid>")
        let text =
            "$ spotlite \(command)\n" + result.stdout
            + (result.stderr.isEmpty ? "" : "--- stderr\n" + result.stderr)
        let path = Self.goldenDirectory + "/" + name
        if ProcessInfo.processInfo.environment["SPOTLITE_UPDATE_GOLDEN"] == "1" {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == expected, "\(name) differs; rerun with SPOTLITE_UPDATE_GOLDEN=1 to accept")
    }

    @Test(arguments: [
        ("search-text.txt", ["search", "leaking", "tap"], Int32(0)),
        ("search-json.txt", ["search", "fix", "--format", "json"], 0),
        ("search-jsonl.txt", ["search", "fix", "--format", "jsonl"], 0),
        ("search-ids.txt", ["search", "fix", "--format", "ids"], 0),
        ("search-sorted.txt", ["search", "kind:item is:open", "--sort", "priority", "--limit", "5"], 0),
        ("search-reversed.txt", ["search", "kind:item", "--sort", "created", "--reverse", "--limit", "3"], 0),
        ("search-facets.txt", ["search", "kind:item", "--facets", "project,priority,status", "--limit", "3"], 0),
        ("search-facets-json.txt", ["search", "boiler OR tap", "--facets", "project,status", "--format", "json"], 0),
        ("search-explain.txt", ["search", "--explain", "priority:2..3 created:2024-03 -is:completed"], 0),
        ("search-suggestion.txt", ["search", "leaknig"], 1),
        ("search-correct.txt", ["search", "leaknig", "--correct", "--format", "ids"], 0),
        ("search-spotlight.txt", ["search", "--spotlight", "title == \"fix*\"cd && priority >= 2"], 0),
        ("search-none.txt", ["search", "xylophone"], 1),
        ("search-bad-query.txt", ["search", "created:2024-13"], 2),
    ])
    func formatsMatchTheirGoldenFiles(name: String, arguments: [String], status: Int32) throws {
        try expectGolden(name, arguments, status: status)
    }

    @Test func resolveFormatsMatchTheirGoldenFiles() throws {
        let uri = Self.cli("search", "leaking tap", "--format", "ids", "--limit", "1").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try expectGolden("resolve-text.txt", ["resolve", uri])
        try expectGolden("resolve-json.txt", ["resolve", uri, "--format", "json"])
    }

    @Test func jsonOutputFollowsTheVersionedSchema() throws {
        let schemaPath = Repository.root + "/Sources/SpotliteCLI/Schemas/search-v1.schema.json"
        let schema = try JSONNode.parse(try Data(contentsOf: URL(fileURLWithPath: schemaPath)))
        let validator = JSONSchemaValidator(root: schema)
        for arguments in [
            ["search", "fix", "--format", "json"],
            ["search", "kind:project", "--format", "json", "--facets", "project,priority,status"],
            ["search", "leaknig", "--correct", "--format", "json"],
            ["search", "xylophone", "--format", "json"],
        ] {
            let result = Self.cli.run(arguments: arguments)
            let document = try JSONNode.parse(result.stdoutData)
            #expect(validator.errors(document) == [], "\(arguments)")
            #expect(document["schema"] == .string("spotlite.search/1"))
        }
        // The validator itself rejects what breaks the schema.
        var broken = try JSONNode.parse(Self.cli.run(arguments: ["search", "fix", "--format", "json"]).stdoutData)
        if case .object(var members) = broken {
            members["total"] = .string("many")
            members.removeValue(forKey: "hits")
            broken = .object(members)
        }
        #expect(validator.errors(broken).sorted() == ["$.total: is string, expected integer", "$: missing hits"])
        // Each jsonl line is a hit of the schema.
        let hitSchema = JSONSchemaValidator(root: schema)
        for line in Self.cli("search", "fix", "--format", "jsonl").stdoutLines {
            let hit = try JSONNode.parse(Data(line.utf8))
            let wrapped = JSONNode.object(["hits": .array([hit])])
            #expect(hitSchema.errors(wrapped).filter { $0.hasPrefix("$.hits") } == [])
        }
    }
}
