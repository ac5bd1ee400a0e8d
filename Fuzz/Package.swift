// swift-tools-version:6.0
import PackageDescription

// Coverage-guided fuzzing of recorderd's own code with libFuzzer (`-sanitize=fuzzer`), in a
// package of its own so that the main build never links libFuzzer's `main`. scripts/fuzz.sh
// builds it (with the flags that make the Swift code coverage-instrumented) and runs each target
// for a bounded time; CI runs it.
let package = Package(
    name: "recorderd-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "recorderd", path: ".."),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "RecorderRuntime", package: "recorderd"),
                .product(name: "RecorderJSON", package: "recorderd"),
                .product(name: "RecorderModel", package: "recorderd"),
                .product(name: "RecorderProtocol", package: "recorderd"),
                .product(name: "RecorderConfiguration", package: "recorderd"),
                .product(name: "RecorderEngine", package: "recorderd"),
                .product(name: "RecorderDaemon", package: "recorderd"),
                .product(name: "RecorderFHIR", package: "recorderd"),
                .product(name: "RecorderClient", package: "recorderd"),
                .product(name: "ReplaySensors", package: "recorderd"),
                .product(name: "GPSSensors", package: "recorderd"),
                .product(name: "IIOSensors", package: "recorderd"),
                .product(name: "AudioSensors", package: "recorderd"),
                .product(name: "BLESensors", package: "recorderd"),
                .product(name: "MotionFusion", package: "recorderd"),
                .product(name: "GaitAnalysis", package: "recorderd"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "FuzzRequests", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzConfiguration", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzRecords", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzHeartRate", dependencies: ["FuzzSupport"]),
    ]
)
