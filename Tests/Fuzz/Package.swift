// swift-tools-version: 6.1

import PackageDescription

// libFuzzer targets for Spotlite's parsers of untrusted text, a package of their own so that the main package never
// builds with the fuzzer's instrumentation. `make fuzz` builds them with `-sanitize=fuzzer,address` and runs each
// for a bounded time on the corpus in Corpus/ (see docs/development.md).
let package = Package(
    name: "SpotliteFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "Spotlite", path: "../../")],
    targets: [
        // libFuzzer's driver behind each target's entry point.
        .target(name: "FuzzDriver"),
        // Query strings, both languages, parsed and run against a small real index.
        .executableTarget(
            name: "FuzzQuery",
            dependencies: ["FuzzDriver", .product(name: "SearchIndex", package: "Spotlite")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        // Import lines: the strict JSON parser, field checks and timestamps.
        .executableTarget(
            name: "FuzzImport",
            dependencies: ["FuzzDriver", .product(name: "TrackerStore", package: "Spotlite")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
