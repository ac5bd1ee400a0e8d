// swift-tools-version:6.1
import PackageDescription

// Layering (dependencies point one way):
// RecorderModel <- RecorderEngine <- backends (GPSSensors, IIOSensors, AudioSensors) <- RecorderDaemon <- recorderd
// RecorderModel <- RecorderClient <- recorderctl
let package = Package(
    name: "recorderd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "recorderd", targets: ["recorderd"]),
        .executable(name: "recorderctl", targets: ["recorderctl"]),
        .library(name: "RecorderClient", targets: ["RecorderClient"]),
        // For the fuzzing package (Fuzz/), which builds recorderd's modules with -sanitize=fuzzer.
        .library(name: "RecorderModel", targets: ["RecorderModel"]),
        .library(name: "RecorderEngine", targets: ["RecorderEngine"]),
        .library(name: "RecorderDaemon", targets: ["RecorderDaemon"]),
        .library(name: "RecorderFHIR", targets: ["RecorderFHIR"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // The SageResearch export's zip archive (deflate through zlib).
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", exact: "0.9.20"),
        // The web page (RecorderWeb): HTTP/1 and WebSocket. swift-configuration support is not used.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
    ],
    targets: [
        .target(name: "RecorderModel"),
        // SHA-256 of the file results (portable C, and the x86 SHA extensions where present).
        .target(name: "CSHA256"),
        .target(name: "CSystemSupport"),
        .target(
            name: "RecorderEngine",
            dependencies: [
                "RecorderModel",
                "CSHA256",
                "CSystemSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .systemLibrary(
            name: "CLibGPS",
            pkgConfig: "libgps",
            providers: [.apt(["libgps-dev"])]
        ),
        .target(
            name: "GPSSensors",
            dependencies: ["RecorderModel", "RecorderEngine", "CLibGPS"]
        ),
        .systemLibrary(
            name: "CLibIIO",
            pkgConfig: "libiio",
            providers: [.apt(["libiio-dev"])]
        ),
        .target(
            name: "IIOSensors",
            dependencies: ["RecorderModel", "RecorderEngine", "CLibIIO", .product(name: "Logging", package: "swift-log")]
        ),
        .systemLibrary(
            name: "CALSA",
            pkgConfig: "alsa",
            providers: [.apt(["libasound2-dev"])]
        ),
        .target(
            name: "AudioSensors",
            dependencies: ["RecorderModel", "RecorderEngine", "CALSA", "CSystemSupport", .product(name: "Logging", package: "swift-log")]
        ),
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        .target(
            name: "RecorderDaemon",
            dependencies: [
                "CSystemd",
                "RecorderModel",
                "RecorderEngine",
                "MotionFusion",
                "GaitAnalysis",
                "GPSSensors",
                "IIOSensors",
                "AudioSensors",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(name: "RecorderClient", dependencies: ["RecorderModel"]),
        // HL7 FHIR: Questionnaires as task definitions (recorderctl run).
        .target(name: "RecorderFHIR", dependencies: ["RecorderModel"]),
        .target(name: "MotionFusion", dependencies: ["RecorderModel", "RecorderEngine"]),
        .target(name: "GaitAnalysis", dependencies: ["RecorderModel", "RecorderEngine"]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        // Exports of a run directory (recorderctl export): reads the files, needs no daemon.
        .target(name: "RecorderExport", dependencies: ["RecorderModel", "CZstd", .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
        // cairo's headers only (no pkg-config: that would link the library into every executable);
        // RecorderPlot loads libcairo.so.2 when it draws its first plot.
        .systemLibrary(name: "CCairo", providers: [.apt(["libcairo2-dev"])]),
        // Plots of a run directory (recorderctl plot): cairo's PNG and SVG surfaces.
        .target(name: "RecorderPlot", dependencies: ["RecorderModel", "RecorderExport", "CCairo"]),
        // The Pi's web page (http in the configuration): a client of the control socket like
        // recorderctl, plus the exports and plots of run directories.
        .target(
            name: "RecorderWeb",
            dependencies: [
                "RecorderModel", "RecorderClient", "RecorderFHIR", "RecorderExport", "RecorderPlot",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The fleet link (mqtt in the configuration): libmosquitto, a client of the control socket.
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .target(
            name: "RecorderFleet",
            dependencies: [
                "RecorderModel", "RecorderEngine", "RecorderClient", "CMosquitto",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(name: "CEarlySignals"),
        .executableTarget(
            name: "recorderd",
            dependencies: [
                "CEarlySignals",
                "RecorderDaemon",
                "RecorderEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The web page and the fleet link in a process of their own, started by recorderd: the
        // recording process then maps no Foundation (ICU), Hummingbird or ZIPFoundation.
        .executableTarget(
            name: "recorderd-services",
            dependencies: [
                "CSystemSupport",
                "RecorderDaemon",
                "RecorderWeb",
                "RecorderFleet",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "recorderctl",
            dependencies: [
                "RecorderClient",
                "RecorderModel",
                "RecorderExport",
                "RecorderFHIR",
                "RecorderPlot",
                "RecorderFleet",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "RecorderBenchmarks",
            dependencies: ["RecorderModel", "RecorderEngine", "RecorderClient", "RecorderDaemon", "MotionFusion", "GaitAnalysis", "FakeIIO",
                           "RecorderTestSupport"],
            path: "Benchmarks/RecorderBenchmarks"
        ),
        .executableTarget(name: "ExportCount", dependencies: ["RecorderExport"], path: "Benchmarks/ExportCount"),
        .executableTarget(name: "UploadCount", dependencies: ["RecorderFleet"], path: "Benchmarks/UploadCount"),
        .executableTarget(name: "RingCount", dependencies: ["RecorderEngine"], path: "Benchmarks/RingCount"),
        .executableTarget(name: "DaemonCount", dependencies: ["RecorderDaemon", "RecorderModel", .product(name: "Logging", package: "swift-log")], path: "Benchmarks/DaemonCount"),
        .executableTarget(
            name: "DaemonFloor",
            dependencies: ["CALSA", "CLibGPS", "CLibIIO",
                           .product(name: "NIOPosix", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Benchmarks/DaemonFloor"
        ),
        .executableTarget(name: "DrainCount", dependencies: ["RecorderEngine", .product(name: "Logging", package: "swift-log")], path: "Benchmarks/DrainCount"),
        .target(name: "CChildProcess", path: "Tests/CChildProcess"),
        // The test process's environment, set before main (the test bundle only, not the benchmarks).
        .target(name: "CTestEnvironment", path: "Tests/CTestEnvironment"),
        .target(
            name: "RecorderTestSupport",
            dependencies: ["RecorderEngine", "RecorderModel", "RecorderClient", "CChildProcess", "CSystemSupport", .product(name: "Logging", package: "swift-log")],
            path: "Tests/RecorderTestSupport"
        ),
        .target(name: "FakeIIO", dependencies: ["RecorderModel"], path: "Tests/FakeIIO"),
        .executableTarget(name: "FakeIIOGenerator", dependencies: ["FakeIIO"], path: "Tests/FakeIIOGenerator"),
        .testTarget(name: "RecorderModelTests", dependencies: ["RecorderModel", "RecorderTestSupport"]),
        .testTarget(name: "RecorderWebTests", dependencies: ["RecorderWeb", "RecorderClient", "RecorderModel", "RecorderTestSupport", "recorderd", "recorderd-services", "recorderctl"]),
        .testTarget(name: "RecorderFleetTests", dependencies: ["RecorderFleet", "RecorderClient", "RecorderModel", "RecorderTestSupport", "recorderd", "recorderd-services", "recorderctl",
                                                       .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "RecorderFHIRTests", dependencies: ["RecorderFHIR", "RecorderModel", "RecorderClient", "RecorderTestSupport"]),
        .testTarget(name: "MotionFusionTests", dependencies: ["MotionFusion", "RecorderModel", "RecorderEngine", "RecorderTestSupport", "FakeIIO"]),
        .testTarget(name: "RecorderExportTests", dependencies: ["RecorderExport", "RecorderPlot", "RecorderModel", "RecorderClient", "RecorderTestSupport"]),
        .testTarget(name: "GaitAnalysisTests", dependencies: ["GaitAnalysis", "MotionFusion", "RecorderModel", "RecorderEngine", "RecorderTestSupport"]),
        .testTarget(name: "RecorderEngineTests", dependencies: ["RecorderEngine", "RecorderModel", "RecorderTestSupport"]),
        .testTarget(
            name: "GPSSensorsTests",
            dependencies: ["GPSSensors", "RecorderEngine", "RecorderExport", "RecorderModel", "RecorderTestSupport"]
        ),
        .testTarget(
            name: "AudioSensorsTests",
            dependencies: ["AudioSensors", "RecorderClient", "RecorderModel", "RecorderEngine", "RecorderTestSupport", "CTestEnvironment",
                           "recorderd"]
        ),
        .testTarget(
            name: "IIOSensorsTests",
            dependencies: ["IIOSensors", "FakeIIO", "RecorderClient", "RecorderModel", "RecorderTestSupport",
                           "recorderd", "recorderd-services", "recorderctl", "FakeIIOGenerator"]
        ),
        .testTarget(
            name: "RecorderDaemonTests",
            dependencies: ["RecorderDaemon", "RecorderClient", "RecorderModel", "RecorderEngine", "RecorderExport", "RecorderTestSupport",
                           "CTestEnvironment", .product(name: "NIOPosix", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
                           "recorderd", "recorderd-services", "recorderctl"]
        ),
    ]
)
