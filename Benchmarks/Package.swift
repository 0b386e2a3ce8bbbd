// swift-tools-version: 6.1
// 6.1: ordo-one/benchmark is taken with its MallocInterposer trait only, and traits need 6.1.

import PackageDescription

// Spotlite's benchmarks, a package of their own so that the main package never builds ordo-one/benchmark.
// `make bench` (or `swift package --package-path Benchmarks benchmark`) runs them; see docs/performance.md.
let package = Package(
    name: "SpotliteBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Spotlite", path: "../"),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
    ],
    targets: [
        // The corpora, the baselines (raw Xapian, SQLite FTS5) and the timing helpers the suites share.
        .target(
            name: "BenchmarkSupport",
            dependencies: [
                .product(name: "Indexer", package: "Spotlite"),
                .product(name: "SpotliteJSON", package: "Spotlite"),
                .product(name: "CXapian", package: "Spotlite"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/BenchmarkSupport"
        ),
        // One rebuild or a run of searches, for callgrind and quick timings (see docs/performance.md).
        .executableTarget(name: "profile", dependencies: ["BenchmarkSupport"], path: "Sources/Profile"),
        // The relevance harness on the GitBugs dev set, Spotlite next to FTS5 (`make relevance`).
        .executableTarget(name: "relevance", dependencies: ["BenchmarkSupport"], path: "Sources/Relevance"),
        .executableTarget(
            name: "SpotliteBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/SpotliteBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
