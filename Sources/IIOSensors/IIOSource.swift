import Dispatch
import FoundationEssentials
import Glibc
import Logging
import RecorderEngine
import RecorderModel
import RecorderRuntime

/// Motion samples from an IIO device (or an accelerometer and a gyroscope device) through libiio.
///
/// `open()` probes: it creates a context, sets the rate and clock and reports the capabilities.
/// Sampling runs on the source's own thread: refills of about 20 ms, decoded with each channel's
/// format, offset and scale, timestamps from `in_timestamp`, frames of two devices merged in time
/// order. A device that fails (read error, timeout, ENODEV) gives one fault frame; the thread
/// retries every `retryInterval` seconds and, once the device is back, delivers a gap with the
/// estimated number of samples lost. `stop()` cancels the blocked refill with `iio_buffer_cancel`.
/// A device whose buffer nothing fills (no trigger: an IMU without its interrupt wired) is polled
/// instead: each channel's `raw` value read at the rate (`IIOCapturePolicy`, `IIOSampler+Polling`).
public final class IIOSource: SensorSource {
    public let configuration: IIOConfiguration

    /// The configuration's `sensorTypes`, when it names them.
    public var configuredSensorTypes: [SensorType]? { configuration.sensorTypes }
    let retryInterval: Double
    let logger: Logger

    /// The shared state of one sampling thread and its controller.
    final class Run: Sendable {
        let wake = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        /// The buffers a refill may block on; cancelled by `stop()`. Registration and the stop
        /// flag share the lock, so a buffer made while stopping is cancelled too.
        let cancellers = LockedValue<(stopped: Bool, buffers: [IIOBufferCanceller])>((false, []))
        let status = LockedValue<String>("starting")
        /// The refill timeout of the current session, seconds.
        let timeout = LockedValue<Double>(5)

        var isStopped: Bool { cancellers.withLock { $0.stopped } }

        /// Registers a buffer; false when already stopped.
        func register(_ canceller: IIOBufferCanceller) -> Bool {
            cancellers.withLock { c in
                if c.stopped { return false }
                c.buffers.append(canceller)
                return true
            }
        }

        func unregisterAll() { cancellers.withLock { $0.buffers.removeAll() } }

        func stop() {
            cancellers.withLock { c in
                c.stopped = true
                for b in c.buffers { b.cancel() }
            }
            wake.signal()
        }

        /// Sleeps up to `seconds`, or until stopped.
        func pause(_ seconds: Double) { _ = wake.wait(timeout: .now() + seconds) }
    }

    private let run = LockedValue<Run?>(nil)

    public init(configuration: IIOConfiguration, retryInterval: Double = 1, logger: Logger) {
        self.configuration = configuration
        self.retryInterval = retryInterval
        self.logger = logger
    }

    public func open() throws -> DeviceCapabilities {
        let session = try IIOSession.open(configuration)
        return DeviceCapabilities(sensorTypes: session.sensorTypes, rate: session.rate,
                                  availableRates: session.streams[0].availableRates.isEmpty ? nil : session.streams[0].availableRates,
                                  details: session.details, quanta: session.quanta)
    }

    public var liveDetails: [String: String] {
        ["stream": run.withLock { $0?.status.withLock { $0 } } ?? "idle"]
    }

    /// The refill timeout (or the time to open a context) and a second of margin.
    public var longestBlock: Double { (run.withLock { $0?.timeout.withLock { $0 } } ?? 5) + 1 }

    public func start(sink: any FrameSink) throws {
        let newRun = Run()
        run.withLock { $0 = newRun }
        ThreadName.start(ThreadName.sampling("iio", device: configuration.name)) { [configuration, retryInterval, logger] in
            IIOSampler(configuration: configuration, retryInterval: retryInterval, sink: sink, run: newRun, logger: logger).sample()
            newRun.done.signal()
        }
    }

    public func stop() {
        guard let current = run.withLock({ r -> Run? in defer { r = nil }; return r }) else { return }
        current.stop()
        current.done.wait()
    }
}
