import Dispatch
import Glibc
import Logging
import RecorderEngine
import RecorderModel
import RecorderRuntime
import Synchronization

/// A Bluetooth LE heart-rate sensor through BlueZ's D-Bus API (sd-bus), on the source's own
/// thread: `HeartRateLinkRules` decide, `HeartRateLink` talks to BlueZ.
///
/// Connects lazily when sampling starts (a recording or a live subscriber); while the sensor,
/// its adapter or BlueZ is missing, the recording carries a fault record and the link tries again;
/// when notifications resume after an outage the first comes with a gap record of the silent
/// time. `stop()` wakes the thread through a pipe; the sensor is disconnected (its battery).
public final class HeartRateSource: SensorSource {
    public let configuration: HeartRateConfiguration
    let logger: Logger

    /// A heart-rate device gives heart rate.
    public var configuredSensorTypes: [SensorType]? { [.heartRate] }

    /// The shared state of one sampling thread and its controller.
    final class Control: Sendable {
        /// The read end of a pipe `stop()` writes to; the thread's wait includes it (never read:
        /// once readable, the thread stops).
        let wake: Int32
        private let wakeWriter: Int32
        let done = DispatchSemaphore(value: 0)
        let stopped = Atomic<Bool>(false)
        let details = LockedValue<[String: String]>([:])

        init() {
            let pipe = SystemCall.nonBlockingPipe()
            wake = pipe?.read ?? -1
            wakeWriter = pipe?.write ?? -1
        }

        deinit {
            if wake >= 0 { close(wake) }
            if wakeWriter >= 0 { close(wakeWriter) }
        }

        func stop() {
            stopped.store(true, ordering: .releasing)
            var one: UInt8 = 1
            _ = write(wakeWriter, &one, 1)
        }
    }

    private let control = LockedValue<Control?>(nil)
    private let lastDetails = LockedValue<[String: String]>(["connection": "not connected"])

    public init(configuration: HeartRateConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public func open() throws -> DeviceCapabilities {
        var details = ["address": configuration.address, "adapter": configuration.adapter]
        details.merge(liveDetails) { $1 }
        // Connection is lazy (when a recording or a subscriber needs heart rate): the device is
        // usable while the sensor is away, and recordings then carry a fault record. Sensors
        // notify about once a second.
        return DeviceCapabilities(sensorTypes: [.heartRate], rate: 1, details: details)
    }

    public var liveDetails: [String: String] {
        control.withLock { $0?.details.withLock { $0 } } ?? lastDetails.withLock { $0 }
    }

    public func start(sink: any FrameSink) throws {
        let run = Control()
        guard run.wake >= 0 else { throw BLEError("cannot make a pipe: " + ErrorText.reason(errno)) }
        control.withLock { $0 = run }
        let configuration = self.configuration
        let logger = self.logger
        ThreadName.start(ThreadName.sampling("ble", device: configuration.name)) { [lastDetails] in
            let link = HeartRateLink(configuration: configuration, sink: sink, control: run, logger: logger)
            link.run()
            var details = run.details.withLock { $0 }
            details["connection"] = "not connected"
            lastDetails.withLock { $0 = details }
            run.done.signal()
        }
    }

    /// The loop wakes at least once a second; a disconnect on stop waits up to 2 s.
    public var longestBlock: Double { 4 }

    public func stop() {
        guard let run = control.withLock({ c -> Control? in defer { c = nil }; return c }) else { return }
        run.stop()
        run.done.wait()
    }
}
