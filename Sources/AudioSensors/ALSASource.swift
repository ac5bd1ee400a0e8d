import Dispatch
import FoundationEssentials
import Glibc
import Logging
import RecorderEngine
import RecorderModel
import RecorderRuntime
import Synchronization

/// Audio captured from an ALSA PCM, on the source's own thread.
///
/// Frames go to the ring as `.audio` chunks of one period (~20 ms); microphone recordings turn
/// them into sound levels and a WAV file. The first frame's uptime comes from ALSA's monotonic
/// status timestamp (or the read completion time minus the frames still buffered), later frames
/// by frame count. An overrun is recovered with `snd_pcm_recover`, counted, and delivered as a
/// gap (the frames lost). A PCM that is missing, busy or fails gives one fault frame and is
/// retried every `retryInterval` seconds. `stop()` wakes the thread's `poll` through a pipe.
public final class ALSASource: SensorSource {
    public let configuration: ALSAConfiguration

    /// A microphone gives sound levels.
    public var configuredSensorTypes: [SensorType]? { [.soundLevel] }
    let retryInterval: Double
    let logger: Logger

    /// The shared state of one capture thread and its controller.
    final class Run: Sendable {
        let stopped = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        /// A pipe whose read end is in every poll: `stop()` writes a byte to wake the thread.
        let wakeRead: Int32
        let wakeWrite: Int32
        let overruns = Atomic<Int>(0)
        let status = LockedValue<String>("starting")

        /// Throws when the pipe cannot be made (no descriptor left): the capture does not start,
        /// and the device says why.
        init() throws(ALSAError) {
            // Close-on-exec: a sound server a client library starts (libjack can) must not keep it.
            guard let pipe = SystemCall.nonBlockingPipe() else {
                throw ALSAError("cannot create the capture's wake pipe", code: -errno)
            }
            wakeRead = pipe.read
            wakeWrite = pipe.write
        }

        deinit {
            close(wakeRead)
            close(wakeWrite)
        }

        var isStopped: Bool { stopped.load(ordering: .acquiring) }

        func stop() {
            stopped.store(true, ordering: .releasing)
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }

        /// Waits up to `seconds` or until stopped.
        func pause(_ seconds: Double) {
            var p = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, Int32(clamping: Int(saturating: seconds * 1000)))
        }
    }

    private let run = LockedValue<Run?>(nil)

    public init(configuration: ALSAConfiguration, retryInterval: Double = 1, logger: Logger) {
        self.configuration = configuration
        self.retryInterval = retryInterval
        self.logger = logger
    }

    /// Frames per read: the configured period, or 20 ms.
    var periodFrames: Int { configuration.periodFrames ?? max(16, configuration.sampleRate / 50) }

    public func open() throws -> DeviceCapabilities {
        let pcm = try ALSAPCM(name: configuration.pcm)
        try pcm.configure(sampleRate: configuration.sampleRate, channels: configuration.channels, periodFrames: periodFrames)
        return DeviceCapabilities(
            sensorTypes: [.soundLevel], rate: Double(pcm.sampleRate) / Double(pcm.periodFrames),
            details: ["pcm": configuration.pcm, "sampleRate": "\(pcm.sampleRate)", "channels": "\(pcm.channels)",
                      "format": configuration.format, "periodFrames": "\(pcm.periodFrames)"])
    }

    public var liveDetails: [String: String] {
        guard let current = run.withLock({ $0 }) else { return ["capture": "idle"] }
        return ["capture": current.status.withLock { $0 }, "overruns": "\(current.overruns.load(ordering: .relaxed))"]
    }

    /// A poll waits at most half a second.
    public var longestBlock: Double { 1 }

    public func start(sink: any FrameSink) throws {
        let newRun = try Run()
        run.withLock { $0 = newRun }
        ThreadName.start(ThreadName.sampling("alsa", device: configuration.name)) { [configuration, retryInterval, logger, periodFrames] in
            ALSACapture(configuration: configuration, periodFrames: periodFrames, retryInterval: retryInterval,
                        sink: sink, run: newRun, logger: logger).capture()
            newRun.done.signal()
        }
    }

    public func stop() {
        guard let current = run.withLock({ r -> Run? in defer { r = nil }; return r }) else { return }
        current.stop()
        current.done.wait()
    }
}
