import FoundationEssentials
import Glibc
import RecorderModel
import RecorderRuntime
import Synchronization

/// A live subscriber's reader of a device ring: decimates to the requested rate and encodes the
/// same record objects as the files (without `stepPath`), batch by batch, for the daemon's
/// `stream.records` notifications.
///
/// Its owner drains it from one context (the connection's event loop) and may close it from
/// another (a closed connection's cleanup): the mutable state sits behind one lock, so a close
/// can never pull the reader out from under a drain.
public final class LiveStream: Sendable {
    public let subscription: Int
    public let types: [SensorType]
    /// Keep one frame of every `stride`.
    public let stride: Int
    public let deliveredRate: Double
    let startUptime: Double

    struct State {
        var reader: RingReader?
        var lease: DeviceLease?
        /// The frames' way to records, as in recordings (no step path, no files).
        var pipeline: RecordPipeline
        /// Motion frames seen (for decimation).
        var counter = 0
    }

    private let state: LockedValue<State>
    private let scheduled = Atomic<Bool>(false)

    /// Subscribes to `device` (starting it if idle). `notify` is called from the sampler thread
    /// when frames arrive: it should schedule `drain` on the owner's context. `rate` must lie in
    /// `SubscribeParams.rateRange` (the protocol decoder checks it). `analysisConfiguration`: what
    /// a streamed analysis is made with (the participant's heights for `step`).
    public init(subscription: Int, device: Device, types: [SensorType]?, rate: Double?, analysisConfiguration: AsyncActionConfiguration? = nil,
                clock: any RecorderClock, notify: @escaping @Sendable () -> Void) throws(DeviceError) {
        self.subscription = subscription
        // The reader is attached before the device starts, so the first frames are not missed.
        guard device.probe(), let caps = device.capabilities, let ring = device.ring else {
            throw .unavailable(device.name, reason: device.info.error ?? "not opened")
        }
        // By default the raw sensors (asking for fused types turns the fusion on).
        let wanted = types ?? caps.sensorTypes.filter { !$0.isFused }
        // An analysis's events (`step`): it reads the sensors it needs.
        var analysis: (any RecordProducer)?
        var leased = wanted
        for t in wanted where !caps.sensorTypes.contains(t) {
            guard let provider = device.analysis(streaming: t) else { throw .unsupportedSensor(device.name, t) }
            do throws(AnalysisRefusal) {
                leased += try provider.inputTypes(capabilities: caps).filter { !leased.contains($0) }
            } catch {
                throw .analysisRefused(device.name, provider.actionType, reason: error.description)
            }
            leased.removeAll { $0 == t }
            analysis = provider.makeProducer(configuration: analysisConfiguration, capabilities: caps)
        }
        let reader = ring.addReader(fromUptime: nil, notify: notify)
        let lease: DeviceLease
        do {
            lease = try device.acquire(for: leased)
        } catch {
            reader.close()
            throw error
        }
        self.types = wanted
        if let rate, rate > 0, rate < caps.rate {
            stride = max(1, Int(saturating: (caps.rate / rate).rounded()))
        } else {
            stride = 1
        }
        deliveredRate = caps.rate / Double(stride)
        startUptime = clock.uptime()
        // Audio devices: live levels every 1/rate seconds (default 0.1 s).
        let levelInterval = rate.map { 1 / max(0.1, min($0, 100)) } ?? 0.1
        var options = RecordPipeline.Options.live(levelInterval: levelInterval, quanta: caps.quanta)
        options.analysis = analysis
        let pipeline = RecordPipeline(types: wanted.filter(caps.sensorTypes.contains), sink: RecordSink(startUptime: startUptime, stepPath: nil),
                                      options: options)
        state = LockedValue(State(reader: reader, lease: lease, pipeline: pipeline))
    }

    /// Reads what arrived and returns its records as JSON lines (each ends in `\n`); empty when
    /// nothing. Lost frames (the subscriber was too slow) become gap records.
    public func drain(maximumRecords: Int = 512) -> [UInt8] {
        state.withLock { $0.drain(maximumRecords: maximumRecords, stream: self) }
    }

    /// True when more frames are waiting.
    public var hasBacklog: Bool { state.withLock { ($0.reader?.backlog ?? 0) > 0 } }

    /// Coalesces notifications: true when the caller should schedule a drain.
    public func claimDrain() -> Bool { !scheduled.exchange(true, ordering: .acquiringAndReleasing) }

    /// Marks the scheduled drain as started.
    public func beginDrain() { scheduled.store(false, ordering: .releasing) }

    /// Leaves the ring and releases the device (which may block briefly to stop it: call off the
    /// event loop and the cooperative pool).
    public func close() {
        let lease = state.withLock { s -> DeviceLease? in
            s.reader?.close()
            s.reader = nil
            defer { s.lease = nil }
            return s.lease
        }
        lease?.release()
    }
}

extension LiveStream.State {
    /// The body of `LiveStream.drain`, under its lock.
    mutating func drain(maximumRecords: Int, stream: LiveStream) -> [UInt8] {
        guard let reader else { return [] }
        let batch = reader.read(maximum: maximumRecords)
        guard batch.lost > 0 || !batch.isEmpty else { return [] }
        pipeline.sink.encoder.removeAll()
        if batch.lost > 0 { pipeline.ringLost(Int(batch.lost), before: batch.first?.uptime ?? stream.startUptime) }
        batch.forEach { frame in
            if case .motion = frame {
                counter += 1
                if (counter - 1) % stream.stride != 0 {
                    pipeline.add(frame, sampled: false)
                    return true
                }
            }
            pipeline.add(frame)
            return true
        }
        return pipeline.sink.encoder.bytes
    }
}
