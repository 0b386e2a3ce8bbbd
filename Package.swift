// swift-tools-version: 6.1
// 6.1: the Benchmarks/ package needs it for package traits, and both packages share one toolchain floor.

import PackageDescription

// Layers, lowest first (see docs/architecture.md): CXapian → Xapian → SearchIndex; TrackerStore;
// Indexer joins the two sides; SpotliteCLI is the command tree; spotlite is its one-line @main.
let package = Package(
    name: "Spotlite",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "spotlite", targets: ["spotlite"]),
        .library(name: "SpotliteCLI", targets: ["SpotliteCLI"]),
        .library(name: "SpotliteServer", targets: ["SpotliteServer"]),
        .library(name: "SpotliteJSON", targets: ["SpotliteJSON"]),
        .library(name: "SpotliteRemote", targets: ["SpotliteRemote"]),
        .library(name: "Indexer", targets: ["Indexer"]),
        .library(name: "SearchIndex", targets: ["SearchIndex"]),
        .library(name: "TrackerStore", targets: ["TrackerStore"]),
        .library(name: "Xapian", targets: ["Xapian"]),
        .library(name: "CXapian", targets: ["CXapian"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", exact: "2.0.1"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
        .package(url: "https://github.com/apple/swift-http-types", exact: "1.8.0"),
        // NIO itself, which Hummingbird runs on: the server's connection deadlines are a channel handler.
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras", exact: "1.35.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
    ],
    targets: [
        // The only code that includes xapian.h: a C API whose every entry point catches all C++ exceptions.
        .target(
            name: "CXapian",
            linkerSettings: [.linkedLibrary("xapian"), .linkedLibrary("stdc++")]
        ),
        .target(name: "Xapian", dependencies: ["CXapian"]),
        .target(
            name: "TrackerStore",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                // The SQLite C API, for the reads every search makes (SearchReads).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        .target(name: "SearchIndex", dependencies: ["Xapian"]),
        .target(
            name: "Indexer",
            dependencies: [
                "TrackerStore", "SearchIndex", .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The JSON documents tools read (search, resolve, status, subscriptions): one definition for the CLI and
        // the server.
        .target(name: "SpotliteJSON", dependencies: ["Indexer", "TrackerStore"]),
        // `spotlite serve`: the HTTP API, subscriptions' event streams, the search page. Above Indexer, beside the
        // CLI (whose `serve` command only starts it), so neither the store nor the index learns HTTP.
        .target(
            name: "SpotliteServer",
            dependencies: [
                "Indexer", "SpotliteJSON",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // Built into the binary (PackageResources), so no file can go missing when the binary is installed alone.
            resources: [
                .embedInCode("Resources/openapi.json"), .embedInCode("Resources/search.js"),
                .embedInCode("Resources/page.css"),
            ]
        ),
        // Remote stores: their rows read from another host's `serve` over Spotlite's HTTP API (a small blocking
        // client on NIO, which the server runs on already). Above Indexer, which knows only its `RowSource` protocol.
        .target(
            name: "SpotliteRemote",
            dependencies: [
                "Indexer", "SpotliteJSON", "TrackerStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .target(
            name: "SpotliteCLI",
            dependencies: [
                "Indexer", "SpotliteJSON", "SpotliteServer", "SpotliteRemote",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // stores.toml, the named stores (`spotlite stores`).
                .product(name: "TOMLKit", package: "TOMLKit"),
            ],
            exclude: ["Schemas"]  // the JSON schema of `search --format json`, checked by the tests
        ),
        // Linked by lld with packed relative relocations (DT_RELR, glibc 2.36): the loader applies the static
        // build's relocations from a table a hundredth of the size, at every process start
        // (docs/decisions/0008-process-start.md).
        .executableTarget(
            name: "spotlite",
            dependencies: ["SpotliteCLI"],
            linkerSettings: [
                .unsafeFlags(
                    ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"], .when(platforms: [.linux]))
            ]
        ),

        // Temporary directories, sample paths and process helpers shared by the test targets.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "XapianTests", dependencies: ["Xapian", "TestSupport"]),
        .testTarget(
            name: "TrackerStoreTests",
            dependencies: ["TrackerStore", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "SearchIndexTests",
            dependencies: [
                "SearchIndex", "TestSupport", .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "IndexerTests",
            dependencies: ["Indexer", "TestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        // The server's checks and escaping, in-process; remote stores' client against it.
        .testTarget(
            name: "SpotliteServerTests",
            dependencies: [
                "SpotliteServer", "SpotliteRemote", "Indexer", "SpotliteJSON", "TrackerStore", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // End-to-end: drives the real `spotlite` binary (built as a dependency) and the sqlite3 shell.
        .testTarget(
            name: "SpotliteCLITests",
            dependencies: [
                "SpotliteCLI", "spotlite", "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            exclude: ["Golden"]
        ),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
