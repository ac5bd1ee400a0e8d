// Instruction counts of a recording's writer (scripts/count-instructions.sh drain runs it under
// callgrind): N scans of an IIO-like device (accelerometer and gyro as whole counts of their
// scales, quantised) delivered in refills of 200 to a device's ring, read by a task run's motion
// recording, turned into records by its pipeline, encoded, hashed and written to its file. The
// difference of two runs (N large and small) leaves start-up and the run's files out.
// Usage: DrainCount N DIRECTORY
import Foundation
import Logging
import RecorderConfiguration
import RecorderEngine
import RecorderModel
import RecorderProtocol
import RecorderRuntime

/// A device that delivers what the harness hands it, on the harness's thread.
final class HandFedSource: SensorSource, @unchecked Sendable {
    // @unchecked: `sink` is a LockedValue.
    let sink = LockedValue<(any FrameSink)?>(nil)
    static let accelerometerScale = 0.000598 / 9.80665, gyroScale = 0.000153

    func open() throws -> DeviceCapabilities {
        DeviceCapabilities(sensorTypes: [.accelerometer, .gyro], rate: 10_000, quanta: [
            .accelerometer: Vector3(x: Self.accelerometerScale, y: Self.accelerometerScale, z: Self.accelerometerScale),
            .gyro: Vector3(x: Self.gyroScale, y: Self.gyroScale, z: Self.gyroScale),
        ])
    }

    func start(sink: any FrameSink) throws { self.sink.withLock { $0 = sink } }
    func stop() { sink.withLock { $0 = nil } }
}

struct HandFedBackend: SensorBackend {
    let source: HandFedSource
    var kind: String { "hand-fed" }
    var configurationKeys: [String] { ["name"] }
    var servedActionTypes: Set<AsyncActionType> { [.motion] }
    func makeSource(configuration: DeviceConfiguration, baseDirectory: String) throws(ConfigurationError) -> any SensorSource { source }
    func discover(configurations: [DeviceConfiguration]) -> [HardwareDevice] { [] }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let scans = Int(arguments[1]), (0...1_000_000).contains(scans) else {
    print("usage: DrainCount N DIRECTORY (N ≤ 1,000,000)")
    exit(2)
}
let data = arguments[2]
var logger = Logger(label: "drain-count")
logger.logLevel = .error
let source = HandFedSource()
var configuration = DaemonConfiguration()
configuration.ringSeconds = 200  // 2 M frames: the harness never outruns the writer into a loss
configuration.devices = [DeviceConfiguration(name: "imu0", kind: "hand-fed", json: .object(["name": .string("imu0"), "kind": .string("hand-fed")]))]
let devices = DeviceRegistry(configuration: configuration, backends: [HandFedBackend(source: source)], baseDirectory: "/", logger: logger)
_ = devices.probeAll()
let runs = TaskRunRegistry(dataDirectory: data, devices: devices, ringSeconds: 200, logger: logger)
/// Runs `body` on the concurrency pool and waits for it on this thread (an `await` at the top
/// level would park the main thread in `dispatch_main`, which valgrind 3.19 cannot run).
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> T {
    let result = LockedValue<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            let value = try await body()
            result.withLock { $0 = .success(value) }
        } catch {
            result.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    done.wait()
    switch result.withLock({ $0 })! {
    case .success(let value): return value
    case .failure(let error): fatalError("\(error)")
    }
}
let run = blocking { try await runs.start(taskIdentifier: "drain", asyncActions: [.motion("motion")]) }
guard let sink = source.sink.withLock({ $0 }) else { fatalError("the recording did not start its device") }
// Scans 1 µs apart from just after now, so that all are measured before the stop below.
let first = SystemClock.monotonicUptime() + 0.01
let refill = 200
var written = 0
while written < scans {
    let n = min(refill, scans - written)
    var batch: [SensorFrame] = []
    batch.reserveCapacity(n)
    for k in 0..<n {
        let i = written + k
        func count(_ axis: Int) -> Double { Double(Int16(truncatingIfNeeded: (i &* 6 &+ axis) &* 7919)) }
        batch.append(.motion(MotionFrame(
            uptime: first + Double(i) * 1e-6,
            accelerometer: Vector3(x: count(0) * HandFedSource.accelerometerScale, y: count(1) * HandFedSource.accelerometerScale,
                                   z: count(2) * HandFedSource.accelerometerScale),
            gyro: Vector3(x: count(3) * HandFedSource.gyroScale, y: count(4) * HandFedSource.gyroScale, z: count(5) * HandFedSource.gyroScale))))
    }
    sink.deliver(batch)
    written += n
}
// The stop must come after the last scan's time.
while SystemClock.monotonicUptime() < first + Double(scans) * 1e-6 + 0.01 { usleep(1000) }
let result = blocking { try await runs.finish(run.taskRunUUID) }
let file = result.asyncResults.first?.file
print("records \(file?.sampleCount ?? -1) dropped \(file?.droppedSamples ?? -1)")
