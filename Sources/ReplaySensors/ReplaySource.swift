import Dispatch
import FoundationEssentials
import Glibc
import RecorderConfiguration
import RecorderEngine
import RecorderJSON
import RecorderModel
import RecorderRuntime
import Synchronization

/// Plays a recording back as a sensor source, paced by its own clock on its own thread.
///
/// Frame `i` of a playback is measured at `t0 + i / (frequency × speed)` CLOCK_MONOTONIC seconds
/// and delivered once that time has passed, in batches of about 20 ms (like a hardware FIFO).
/// Each start plays from the first row.
public final class ReplaySource: SensorSource {
    /// Seconds the sampler sleeps between batches.
    static let batchInterval = 0.02
    /// Frames delivered at most per batch when catching up (unthrottled speeds).
    static let maximumBatch = 1024

    final class Run: Sendable {
        let stop = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let stopped = Atomic<Bool>(false)
    }

    public let configuration: ReplayConfiguration

    /// The file's columns.
    public var configuredSensorTypes: [SensorType]? { SensorType.motionTypes.filter { configuration.columns[$0] != nil } }
    let path: String
    private let data = LockedValue<ReplayData?>(nil)
    private let run = LockedValue<Run?>(nil)

    public init(configuration: ReplayConfiguration, path: String) {
        self.configuration = configuration
        self.path = path
    }

    /// Frames per second delivered.
    func rate(of data: ReplayData) -> Double {
        (configuration.frequency ?? data.fileRate ?? 100) * configuration.speed
    }

    public func open() throws -> DeviceCapabilities {
        let loaded: ReplayData
        if let existing = data.withLock({ $0 }) {
            loaded = existing
        } else {
            loaded = try ReplayData.load(path: path, configuration: configuration)
            data.withLock { $0 = loaded }
        }
        let rate = rate(of: loaded)
        guard rate > 0, rate <= ReplayConfiguration.maximumRate else {
            throw ReplayData.LoadError(description: "\(path): the played rate would be \(NumberRange.format(rate)) Hz: expected at most \(NumberRange.format(ReplayConfiguration.maximumRate)) Hz")
        }
        return DeviceCapabilities(
            sensorTypes: loaded.sensorTypes, rate: rate,
            details: ["file": path, "frames": "\(loaded.count)", "speed": "\(configuration.speed)", "loop": "\(configuration.loop)"])
    }

    public func start(sink: any FrameSink) throws {
        guard let data = data.withLock({ $0 }) else { throw ReplayData.LoadError(description: "not opened") }
        let period = 1 / rate(of: data)
        let newRun = Run()
        run.withLock { $0 = newRun }
        let loop = configuration.loop
        ThreadName.start(ThreadName.sampling("replay", device: configuration.name)) {
            Self.play(data: data, period: period, loop: loop, sink: sink, run: newRun)
            newRun.done.signal()
        }
    }

    /// The longest wait between batches: one frame period, at least a second.
    public var longestBlock: Double {
        guard let loaded = data.withLock({ $0 }) else { return 1 }
        return max(1, 1 / rate(of: loaded))
    }

    public func stop() {
        guard let current = run.withLock({ r -> Run? in defer { r = nil }; return r }) else { return }
        current.stopped.store(true, ordering: .releasing)
        current.stop.signal()
        current.done.wait()
    }

    static func play(data: ReplayData, period: Double, loop: Bool, sink: any FrameSink, run: Run) {
        let t0 = SystemClock.monotonicUptime()
        var emitted = 0
        while !run.stopped.load(ordering: .acquiring) {
            sink.heartbeat()
            let now = SystemClock.monotonicUptime()
            var due = Int(saturating: (now - t0) / period) + 1
            if !loop { due = min(due, data.count) }
            let end = min(due, emitted + maximumBatch)
            if end > emitted {
                // A new array per delivery, of the frames' size: the ring keeps it as it is.
                var batch: [SensorFrame] = []
                batch.reserveCapacity(end - emitted)
                for i in emitted..<end {
                    var frame = data.frame(at: i % data.count)
                    frame.uptime = t0 + Double(i) * period
                    batch.append(.motion(frame))
                }
                emitted = end
                sink.deliver(consume batch)
                if emitted < due { continue }
            }
            if !loop && emitted >= data.count {
                // Played out: idle until stopped, still showing life.
                _ = run.stop.wait(timeout: .now() + 0.5)
                continue
            }
            let next = t0 + Double(emitted) * period
            let wait = max(next - SystemClock.monotonicUptime(), batchInterval)
            _ = run.stop.wait(timeout: .now() + wait)
        }
    }
}

/// The `replay` backend.
public struct ReplayBackend: TypedSensorBackend {
    public init() {}

    public var kind: String { "replay" }
    public var servedActionTypes: Set<AsyncActionType> { [.motion] }

    public func makeSource(_ replay: ReplayConfiguration, baseDirectory: String) -> any SensorSource {
        let path = replay.file.hasPrefix("/") ? replay.file : baseDirectory + "/" + replay.file
        return ReplaySource(configuration: replay, path: path)
    }
}
