// swift-tools-version:6.2
import PackageDescription

// Layering: dependencies point one way (docs/architecture.md; ArchitectureTests fails on a wrong
// arrow, reading this file through `swift package dump-package` and each target's imports).
//   bottom:     CRecorderRuntime <- RecorderRuntime <- RecorderJSON <- RecorderModel <- RecorderConfiguration; CZstd, CZlib <- RecorderCompression
//   recording:  <- RecorderEngine <- backends (ReplaySensors, GPSSensors, IIOSensors, AudioSensors, BLESensors), analyses
//               (MotionFusion, GaitAnalysis); RecorderEngine, RecorderSystemd, RecorderProtocol <- RecorderDaemon
//   the wire:   RecorderProtocol (above the engine and the backends, which speak model and engine types)
//   client:     RecorderProtocol <- RecorderClient <- RecorderFleet, RecorderWeb; RecorderModel <- RecorderExport, RecorderPlot, RecorderFHIR
//   executables (composition roots): recorderd (daemon + backends + analyses), recorderd-services (web + fleet),
//               recorderctl (client side only)
let package = Package(
    name: "recorderd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "recorderd", targets: ["recorderd"]),
        .executable(name: "recorderctl", targets: ["recorderctl"]),
        .library(name: "RecorderClient", targets: ["RecorderClient"]),
        // For the fuzzing package (Fuzz/), which builds recorderd's modules with -sanitize=fuzzer.
        .library(name: "RecorderRuntime", targets: ["RecorderRuntime"]),
        .library(name: "RecorderJSON", targets: ["RecorderJSON"]),
        .library(name: "RecorderModel", targets: ["RecorderModel"]),
        .library(name: "RecorderProtocol", targets: ["RecorderProtocol"]),
        .library(name: "RecorderConfiguration", targets: ["RecorderConfiguration"]),
        .library(name: "ReplaySensors", targets: ["ReplaySensors"]),
        .library(name: "GPSSensors", targets: ["GPSSensors"]),
        .library(name: "IIOSensors", targets: ["IIOSensors"]),
        .library(name: "AudioSensors", targets: ["AudioSensors"]),
        .library(name: "BLESensors", targets: ["BLESensors"]),
        .library(name: "MotionFusion", targets: ["MotionFusion"]),
        .library(name: "GaitAnalysis", targets: ["GaitAnalysis"]),
        .library(name: "RecorderEngine", targets: ["RecorderEngine"]),
        .library(name: "RecorderDaemon", targets: ["RecorderDaemon"]),
        .library(name: "RecorderFHIR", targets: ["RecorderFHIR"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // The web page (RecorderWeb): HTTP/1 and WebSocket. Neither swift-configuration support nor
        // full Foundation (its FullFoundation trait: DateFormatter strategies): the client side links
        // FoundationEssentials only, so no executable needs Foundation and ICU's 39 MB of data.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        // HTTP's request and response types, as Hummingbird hands them to the page's handlers.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
    ],
    targets: [
        // MARK: The bottom: a runtime, JSON, the model, the protocol, the configuration
        // SHA-256 and the system calls Swift's Glibc module lacks: the one C shim of the runtime.
        .target(name: "CRecorderRuntime"),
        // Locks, the blocking pool, threads and their names, the clock, SHA-256, file helpers.
        .target(name: "RecorderRuntime", dependencies: ["CRecorderRuntime"]),
        // zstd frames (libzstd): what compresses — the MCAP export's chunks, the fleet's uploads —
        // links it; the recording process does not.
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        // zlib: raw deflate, the zip archives' (the sage export, the page's CSV download).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "RecorderCompression", dependencies: ["CZstd", "CZlib"]),
        // JSON: the strict parser, values, the value decoder, the text encoder, decimals, key schemas.
        .target(name: "RecorderJSON", dependencies: ["RecorderRuntime"]),
        // What recorderd records and runs: records and their JSON-lines codec, tasks, results.
        .target(name: "RecorderModel", dependencies: ["RecorderJSON"]),
        // The control protocol (JSON-RPC 2.0 messages) and the fleet's messages.
        .target(name: "RecorderProtocol", dependencies: ["RecorderModel", "RecorderJSON", "RecorderRuntime"]),
        // recorderd.json: its types, the loader, and the registry of device kinds the executable fills.
        .target(
            name: "RecorderConfiguration",
            dependencies: ["RecorderModel", "RecorderJSON", "RecorderRuntime",
                           .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "Logging", package: "swift-log")]
        ),
        // MARK: The recording side: engine, backends, analyses, daemon
        .target(
            name: "RecorderEngine",
            dependencies: [
                "RecorderRuntime", "RecorderJSON", "RecorderModel", "RecorderConfiguration",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "ReplaySensors", dependencies: ["RecorderEngine", "RecorderModel", "RecorderJSON", "RecorderRuntime", "RecorderConfiguration"]),
        .systemLibrary(name: "CLibGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
        .target(
            name: "GPSSensors",
            dependencies: ["RecorderEngine", "RecorderModel", "RecorderJSON", "RecorderRuntime", "RecorderConfiguration", "CLibGPS"]
        ),
        .systemLibrary(name: "CLibIIO", pkgConfig: "libiio", providers: [.apt(["libiio-dev"])]),
        .target(
            name: "IIOSensors",
            dependencies: ["RecorderEngine", "RecorderModel", "RecorderJSON", "RecorderRuntime", "RecorderConfiguration", "CLibIIO",
                           .product(name: "Logging", package: "swift-log")]
        ),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .target(
            name: "AudioSensors",
            dependencies: ["RecorderEngine", "RecorderModel", "RecorderJSON", "RecorderRuntime", "RecorderConfiguration", "CALSA",
                           .product(name: "Logging", package: "swift-log")]
        ),
        // Bluetooth LE sensors through BlueZ's D-Bus API (sd-bus, RecorderSystemd's DBusConnection): heart rate.
        .target(
            name: "BLESensors",
            dependencies: ["RecorderEngine", "RecorderModel", "RecorderRuntime", "RecorderConfiguration", "RecorderSystemd",
                           .product(name: "Logging", package: "swift-log")]
        ),
        // The clock's synchronisation: chronyd (chronyc) or systemd-timesyncd (D-Bus through RecorderSystemd).
        .target(
            name: "TimeServices",
            dependencies: ["RecorderEngine", "RecorderModel", "RecorderRuntime", "RecorderConfiguration", "RecorderSystemd",
                           .product(name: "Logging", package: "swift-log")]
        ),
        .target(name: "MotionFusion", dependencies: ["RecorderEngine", "RecorderModel", "RecorderJSON", "RecorderRuntime", "RecorderConfiguration"]),
        .target(name: "GaitAnalysis", dependencies: ["RecorderEngine", "RecorderModel", "RecorderJSON"]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // The journal log handler, sd_notify and socket activation: what both of recorderd's processes use.
        .target(name: "RecorderSystemd", dependencies: ["CSystemd", "RecorderRuntime", .product(name: "Logging", package: "swift-log")]),
        .target(
            name: "RecorderDaemon",
            dependencies: [
                "RecorderEngine", "RecorderModel", "RecorderProtocol", "RecorderConfiguration", "RecorderJSON", "RecorderRuntime",
                "RecorderSystemd",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // MARK: The client side: client, exports, plots, task files, web page, fleet link
        .target(name: "RecorderClient", dependencies: ["RecorderProtocol", "RecorderModel", "RecorderJSON", "RecorderRuntime"]),
        // HL7 FHIR: Questionnaires as task definitions (recorderctl run).
        .target(name: "RecorderFHIR", dependencies: ["RecorderModel", "RecorderJSON"]),
        // Exports of a run directory (recorderctl export): reads the files, needs no daemon.
        .target(
            name: "RecorderExport",
            dependencies: ["RecorderModel", "RecorderJSON", "RecorderRuntime", "RecorderCompression"]
        ),
        // cairo's headers only (no pkg-config: that would link the library into every executable);
        // RecorderPlot loads libcairo.so.2 when it draws its first plot.
        .systemLibrary(name: "CCairo", providers: [.apt(["libcairo2-dev"])]),
        // Plots of a run directory (recorderctl plot): cairo's PNG and SVG surfaces.
        .target(name: "RecorderPlot", dependencies: ["RecorderModel", "RecorderJSON", "RecorderRuntime", "RecorderExport", "CCairo"]),
        // The Pi's web page (http in the configuration): a client of the control socket like
        // recorderctl, plus the exports and plots of run directories.
        .target(
            name: "RecorderWeb",
            dependencies: [
                "RecorderClient", "RecorderProtocol", "RecorderModel", "RecorderJSON", "RecorderRuntime", "RecorderConfiguration",
                "RecorderFHIR", "RecorderExport", "RecorderPlot",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // Compiled into the binary (no files to install beside it, no CDN).
            resources: ["app.css", "app.js", "layout.mustache", "error.mustache", "login.mustache", "devices.mustache", "runs.mustache",
                        "run.mustache", "tasks.mustache", "task.mustache"].map { .embedInCode("Resources/" + $0) }
        ),
        // The fleet link (mqtt in the configuration): libmosquitto, a client of the control socket.
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .target(
            name: "RecorderFleet",
            dependencies: [
                "RecorderClient", "RecorderProtocol", "RecorderModel", "RecorderJSON", "RecorderRuntime", "RecorderCompression",
                "RecorderConfiguration", "CMosquitto",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // MARK: The executables: composition roots
        .target(name: "CEarlySignals"),
        // The recording process: chooses the backends and analyses it is made of.
        .executableTarget(
            name: "recorderd",
            dependencies: [
                "CEarlySignals", "RecorderDaemon", "RecorderEngine", "RecorderSystemd", "RecorderConfiguration", "RecorderProtocol",
                "RecorderModel", "RecorderRuntime",
                "ReplaySensors", "GPSSensors", "IIOSensors", "AudioSensors", "BLESensors", "TimeServices", "MotionFusion", "GaitAnalysis",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The web page and the fleet link in a process of their own, started by recorderd: the
        // recording process then maps no Hummingbird, zlib or cairo, and this
        // one no sensor backend.
        .executableTarget(
            name: "recorderd-services",
            dependencies: [
                "RecorderRuntime", "RecorderSystemd", "RecorderConfiguration", "RecorderProtocol", "RecorderModel", "RecorderWeb", "RecorderFleet",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "recorderctl",
            dependencies: [
                "RecorderClient", "RecorderProtocol", "RecorderModel", "RecorderJSON", "RecorderRuntime", "RecorderConfiguration",
                "RecorderExport", "RecorderFHIR", "RecorderPlot", "RecorderFleet",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // MARK: Benchmarks (swift run -c release …; BENCHMARKS.md)
        .executableTarget(
            name: "RecorderBenchmarks",
            dependencies: bottom + ["RecorderEngine", "RecorderClient", "RecorderDaemon", "MotionFusion", "GaitAnalysis", "ReplaySensors",
                                    "FakeIIO", "RecorderTestSupport", .product(name: "Logging", package: "swift-log")],
            path: "Benchmarks/RecorderBenchmarks"
        ),
        .executableTarget(name: "ExportCount", dependencies: ["RecorderExport"], path: "Benchmarks/ExportCount"),
        .executableTarget(
            name: "FanInPis",
            dependencies: ["RecorderFleet", "RecorderConfiguration", "RecorderJSON", .product(name: "Logging", package: "swift-log"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
            path: "Benchmarks/FanInPis"
        ),
        .executableTarget(name: "UploadCount", dependencies: ["RecorderFleet", "RecorderRuntime"], path: "Benchmarks/UploadCount"),
        .executableTarget(name: "RingCount", dependencies: bottom + ["RecorderEngine"], path: "Benchmarks/RingCount"),
        .executableTarget(
            name: "DaemonCount",
            dependencies: bottom + ["RecorderDaemon", "RecorderTestSupport", .product(name: "Logging", package: "swift-log")],
            path: "Benchmarks/DaemonCount"
        ),
        .executableTarget(
            name: "DaemonFloor",
            dependencies: ["CALSA", "CLibGPS", "CLibIIO",
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Benchmarks/DaemonFloor"
        ),
        .executableTarget(name: "DrainCount", dependencies: bottom + ["RecorderEngine", .product(name: "Logging", package: "swift-log")], path: "Benchmarks/DrainCount"),
        // MARK: Tests
        // The test process's environment, set before main (the test bundle only, not the benchmarks).
        .target(name: "CTestEnvironment", path: "Tests/CTestEnvironment"),
        .target(
            name: "RecorderTestSupport",
            dependencies: bottom + ["RecorderEngine", "RecorderClient", "RecorderDaemon", "ReplaySensors", "GPSSensors", "IIOSensors", "AudioSensors",
                                    "MotionFusion", "GaitAnalysis", "CRecorderRuntime", .product(name: "Logging", package: "swift-log")],
            path: "Tests/RecorderTestSupport"
        ),
        .target(name: "FakeIIO", dependencies: bottom, path: "Tests/FakeIIO"),
        .executableTarget(name: "FakeIIOGenerator", dependencies: ["FakeIIO"], path: "Tests/FakeIIOGenerator"),
        // The dependency rule, checked against the package, the imports and the linked libraries.
        .testTarget(name: "DeviceTests", dependencies: ["RecorderModel", "RecorderTestSupport"]),
        .testTarget(name: "ArchitectureTests", dependencies: ["RecorderTestSupport", "recorderd", "recorderd-services", "recorderctl"]),
        .testTarget(name: "TimeServicesTests", dependencies: ["TimeServices", "RecorderModel", "RecorderSystemd", "RecorderConfiguration", "RecorderTestSupport",
                                                             .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "RecorderModelTests", dependencies: bottom + ["RecorderTestSupport"]),
        .testTarget(name: "BLESensorsTests", dependencies: ["BLESensors", "RecorderModel", "RecorderSystemd", "RecorderProtocol", "RecorderConfiguration", "RecorderJSON"]),
        .testTarget(name: "RecorderWebTests", dependencies: bottom + ["RecorderWeb", "RecorderClient", "RecorderFHIR", "RecorderTestSupport", "recorderd", "recorderd-services", "recorderctl",
                                                                      .product(name: "HTTPTypes", package: "swift-http-types")]),
        .testTarget(name: "RecorderFleetTests", dependencies: bottom + ["RecorderFleet", "RecorderClient", "RecorderCompression", "RecorderTestSupport", "recorderd", "recorderd-services", "recorderctl",
                                                                        .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "RecorderFHIRTests", dependencies: bottom + ["RecorderFHIR", "RecorderClient", "RecorderTestSupport"]),
        .testTarget(name: "MotionFusionTests", dependencies: bottom + ["MotionFusion", "RecorderEngine", "ReplaySensors", "RecorderTestSupport", "FakeIIO"]),
        .testTarget(name: "RecorderExportTests", dependencies: bottom + ["RecorderExport", "RecorderPlot", "RecorderClient", "RecorderEngine", "RecorderTestSupport"]),
        .testTarget(
            name: "GaitAnalysisTests",
            dependencies: bottom + ["GaitAnalysis", "MotionFusion", "RecorderEngine", "RecorderFHIR", "ReplaySensors", "RecorderTestSupport", "recorderd", "recorderctl"]
        ),
        .testTarget(name: "RecorderEngineTests", dependencies: bottom + ["RecorderEngine", "ReplaySensors", "RecorderTestSupport", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "GPSSensorsTests", dependencies: bottom + ["GPSSensors", "RecorderEngine", "RecorderExport", "RecorderTestSupport"]),
        .testTarget(
            name: "AudioSensorsTests",
            dependencies: bottom + ["AudioSensors", "RecorderClient", "RecorderEngine", "RecorderTestSupport", "CTestEnvironment", "recorderd",
                                    .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "IIOSensorsTests",
            dependencies: bottom + ["IIOSensors", "CLibIIO", "FakeIIO", "RecorderClient", "RecorderTestSupport",
                                    "recorderd", "recorderd-services", "recorderctl", "FakeIIOGenerator"]
        ),
        .testTarget(
            name: "RecorderDaemonTests",
            dependencies: bottom + ["RecorderDaemon", "RecorderSystemd", "RecorderClient", "RecorderEngine", "ReplaySensors", "RecorderExport",
                                    "RecorderTestSupport", "CTestEnvironment",
                                    .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                                    .product(name: "Logging", package: "swift-log"), "recorderd", "recorderd-services", "recorderctl"]
        ),
    ]
)

/// The modules at the bottom of every other: what tests and benchmarks import most.
var bottom: [Target.Dependency] {
    ["RecorderRuntime", "RecorderJSON", "RecorderModel", "RecorderProtocol", "RecorderConfiguration"]
}

// What a sanitizer build leaves out (scripts/sanitizers.sh sets RECORDERD_LEAVE_OUT): the test
// targets whose tests it skips, by name, and "benchmarks" (the executables under Benchmarks/).
// What it does not run, it does not compile. Unset (every other build): the whole package.
let leftOut = Set((Context.environment["RECORDERD_LEAVE_OUT"] ?? "").split(separator: ",").map(String.init))
package.targets.removeAll { target in
    leftOut.contains(target.name) || (leftOut.contains("benchmarks") && target.path?.hasPrefix("Benchmarks/") == true)
}
