// swift-tools-version: 6.0
import PackageDescription

// Upcoming features Hummingbird 2 also enables: explicit `any` and imports that say what a file uses.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

// Modules whose pixel loops the tests run over whole videos (the court corpus is rendered and
// analysed in the tests): optimised in debug builds too, ~5–10× faster, assertions off, overflow
// and bounds checks kept. The other modules stay unoptimised for the debugger.
let optimisedInDebug: [SwiftSetting] = swiftSettings + [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "CameraCore",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CameraCommon", targets: ["CameraCommon"]),
        .library(name: "CameraIO", targets: ["CameraIO"]),
        .library(name: "CameraTransform", targets: ["CameraTransform"]),
        .library(name: "CameraEffects", targets: ["CameraEffects"]),
        .library(name: "CameraAssemble", targets: ["CameraAssemble"]),
        .library(name: "CGameKit", targets: ["CGameKit"]),
        .library(name: "WatchBoxKit", targets: ["WatchBoxKit"]),
        .library(name: "LeBotKit", targets: ["LeBotKit"]),
        .executable(name: "cameracore", targets: ["cameracore"]),
        .executable(name: "cgame", targets: ["cgame"]),
        .executable(name: "watchbox", targets: ["watchbox"]),
        .executable(name: "lebot", targets: ["lebot"]),
        .executable(name: "cameracore-server", targets: ["cameracore-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // WatchBox: SQLite (camera store), AES-GCM and Digest hashes (credentials, RTSP auth), and
        // SwiftNIO (RTSP probing, ONVIF, port scans). The server reuses all three.
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // LeBot: HTTPS to Gemini's REST API, and the Live API's WebSocket (wss). Hummingbird serves
        // the Gemini-compatible test server now and the CameraCore server later.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // The server: bcrypt password hashes, signed session tokens and Sign in with Apple (JWKS),
        // and PostgreSQL when DATABASE_URL names one (SQLite through GRDB otherwise).
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // FFmpeg's libraries, found with pkg-config (Debian: libav*-dev). The shim header adds the
        // handful of macros Swift cannot import.
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev"])]
        ),
        .target(
            name: "CameraCommon",
            swiftSettings: optimisedInDebug
        ),
        .target(
            name: "CameraIO",
            dependencies: [
                "CameraCommon", "CFFmpeg",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Cairo (libcairo2-dev) rasterises text and pen strokes for CameraEffects.
        .systemLibrary(
            name: "CCairo",
            pkgConfig: "cairo",
            providers: [.apt(["libcairo2-dev"])]
        ),
        .target(
            name: "CameraTransform",
            dependencies: ["CameraCommon"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CameraEffects",
            dependencies: ["CameraCommon", "CameraTransform", "CameraIO", "CCairo"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CameraAssemble",
            dependencies: ["CameraCommon", "CameraIO", "CameraTransform", "CameraEffects"],
            swiftSettings: swiftSettings
        ),
        // Tesseract 5 (libtesseract-dev) reads on-screen text for CGame's event detection.
        .systemLibrary(
            name: "CTesseract",
            pkgConfig: "tesseract",
            providers: [.apt(["libtesseract-dev", "tesseract-ocr-eng"])]
        ),
        .target(
            name: "CGameKit",
            dependencies: [
                "CameraCommon", "CameraIO", "CameraEffects", "CameraAssemble", "CTesseract", "Networking",
            ],
            // The text preprocessor's pixel loops run ~10× slower unoptimised, and the tests watch
            // live games, where slow reading means dropped frames.
            swiftSettings: optimisedInDebug
        ),
        .executableTarget(
            name: "cgame",
            dependencies: [
                "CommandLineSupport", "CameraCommon", "CameraIO", "CameraAssemble", "CGameKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // The network basics the kits and the server share: the HTTP/1.1 client with deadlines (plain
        // for cameras, TLS for Gemini), the one URL parser, IPv4 addresses, networks and ranges.
        .target(
            name: "Networking",
            dependencies: [
                "CameraCommon",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "WatchBoxKit",
            dependencies: [
                "CameraCommon", "CameraIO", "Networking",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "watchbox",
            dependencies: [
                "CommandLineSupport", "CameraCommon", "CameraIO", "WatchBoxKit", "Networking",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WatchBoxKitTests",
            dependencies: [
                "watchbox", "CameraCommon", "CameraIO", "WatchBoxKit", "Networking", "CameraTesting", "CameraTestPeers",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // LeBot James: ball tracking, shots, coaching; Cairo draws the shot chart.
        .target(
            name: "LeBotKit",
            dependencies: [
                "CameraCommon", "CameraIO", "CCairo", "Networking",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: optimisedInDebug
        ),
        .executableTarget(
            name: "lebot",
            dependencies: [
                "CommandLineSupport", "CameraCommon", "CameraIO", "LeBotKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LeBotKitTests",
            dependencies: ["lebot", "CameraCommon", "CameraIO", "LeBotKit", "CameraTesting", "CameraTestPeers"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CGameKitTests",
            dependencies: [
                "cgame", "CameraCommon", "CameraIO", "CameraAssemble", "CGameKit", "CameraTesting", "CameraTestPeers",
            ],
            swiftSettings: swiftSettings
        ),
        // Test fixtures every test target shares: media made at test time, corpora with ground truth,
        // ffprobe as the reference, and running our built tools. No servers here.
        .target(
            name: "CameraTesting",
            dependencies: ["CameraCommon", "CameraIO"],
            swiftSettings: optimisedInDebug
        ),
        // Real peers the tests and the benchmark talk to on loopback or in namespaces they create:
        // GStreamer's RTSP server, an ONVIF device, a Gemini-compatible server, a PostgreSQL cluster.
        .target(
            name: "CameraTestPeers",
            dependencies: [
                "CameraCommon", "CameraTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            resources: [
                .copy("Resources/rtsp_server.py"), .copy("Resources/onvif_device.py"),
                .copy("Resources/credential_catcher.py"), .copy("Resources/openarena_match.py"),
            ],
            swiftSettings: swiftSettings
        ),
        // What the command-line tools share: progress bars, --json output, stderr messages.
        .target(
            name: "CommandLineSupport",
            dependencies: ["CameraCommon"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "cameracore",
            dependencies: [
                "CommandLineSupport", "CameraCommon", "CameraIO", "CameraTransform", "CameraEffects", "CameraAssemble",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "cameracore-bench",
            dependencies: [
                "CameraCommon", "CameraIO", "CameraTesting", "CameraTestPeers", "CameraTransform", "CameraEffects",
                "CameraAssemble", "CGameKit", "WatchBoxKit", "LeBotKit", "Networking",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        // The one server: accounts, CGame sync, the LeBot AI proxy, the WatchBox API and live view,
        // and the web UI (static files in Public/, no build step).
        .target(
            name: "CameraServer",
            dependencies: [
                "CameraCommon", "CameraIO", "CameraAssemble", "CGameKit", "WatchBoxKit", "LeBotKit", "Networking",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Public")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "cameracore-server",
            dependencies: [
                "CameraServer", "CommandLineSupport", "CameraCommon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CameraServerTests",
            dependencies: [
                "CameraServer", "CameraCommon", "CameraIO", "CGameKit", "cgame", "lebot", "CameraTesting",
                "CameraTestPeers",
                "Networking",
                "WatchBoxKit", "LeBotKit",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CameraCommonTests",
            dependencies: ["CameraCommon", "CameraTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CameraCoreCLITests",
            dependencies: ["cameracore", "CameraCommon", "CameraTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CameraAssembleTests",
            dependencies: ["CameraCommon", "CameraAssemble", "CameraEffects", "CameraIO", "CameraTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CameraEffectsTests",
            dependencies: ["CameraCommon", "CameraTransform", "CameraEffects", "CameraIO", "CameraTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CameraIOTests",
            dependencies: ["CameraCommon", "CameraIO", "CameraTesting", "CameraTestPeers"],
            swiftSettings: swiftSettings
        ),
    ]
)
