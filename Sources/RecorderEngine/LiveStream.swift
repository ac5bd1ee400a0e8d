import Foundation
import RecorderModel
import Synchronization

/// A live subscriber's reader of a device ring: decimates to the requested rate, encodes the
/// same record objects as the files (without `stepPath`) into `stream.records` notifications.
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
        var encoder = JSONLinesEncoder(reservingCapacity: 16 * 1024)
        var scratch: [SensorFrame] = []
        var counter = 0
        /// Audio devices: live levels every 1/rate seconds (default 0.1 s).
        var meter: SoundLevelMeter?
        var levels: [SoundLevel] = []
        /// Audio: lost chunks measured in frames.
        var audio = AudioContinuity()
    }

    private let state: LockedValue<State>
    private let scheduled = Atomic<Bool>(false)

    /// Subscribes to `device` (starting it if idle). `notify` is called from the sampler thread
    /// when frames arrive: it should schedule `drain` on the owner's context. `rate` must lie in
    /// `SubscribeParams.rateRange` (the protocol decoder checks it).
    public init(subscription: Int, device: Device, types: [SensorType]?, rate: Double?, clock: any RecorderClock,
                notify: @escaping @Sendable () -> Void) throws(DeviceError) {
        self.subscription = subscription
        // The reader is attached before the device starts, so the first frames are not missed.
        guard device.probe(), let caps = device.capabilities, let ring = device.ring else {
            throw .unavailable(device.name, reason: device.info.error ?? "not opened")
        }
        let wanted = types ?? caps.sensorTypes
        for t in wanted where !caps.sensorTypes.contains(t) {
            throw .unsupportedSensor(device.name, t)
        }
        let reader = ring.addReader(fromUptime: nil, notify: notify)
        let lease: DeviceLease
        do {
            lease = try device.acquire()
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
        var initial = State(reader: reader, lease: lease)
        if wanted.contains(.soundLevel) {
            initial.meter = SoundLevelMeter(interval: rate.map { 1 / max(0.1, min($0, 100)) } ?? 0.1)
        }
        deliveredRate = caps.rate / Double(stride)
        startUptime = clock.uptime()
        state = LockedValue(initial)
    }

    /// Reads what arrived and returns notification lines (each ends in `\n`); empty when nothing.
    /// Lost frames (the subscriber was too slow) become gap records.
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
        let subscription = stream.subscription, types = stream.types, stride = stream.stride, startUptime = stream.startUptime
        guard let reader else { return [] }
        encoder.removeAll()
        scratch.removeAll(keepingCapacity: true)
        let lost = reader.read(into: &scratch, maximum: maximumRecords)
        guard lost > 0 || !scratch.isEmpty else { return [] }
        encoder.appendStatic("{\"jsonrpc\":\"2.0\",\"method\":\"stream.records\",\"params\":{\"subscription\":")
        encoder.appendInteger(subscription)
        encoder.appendStatic(",\"records\":[")
        let recordsStart = encoder.bytes.count
        var first = true
        func separator() {
            if !first { encoder.appendStatic(",") }
            first = false
        }
        if lost > 0 {
            let at = scratch.first?.uptime ?? startUptime
            // Audio chunks lost: their frames measured by time (as in a recording).
            var dropped = Int(lost)
            var duration: Double?
            if meter != nil {
                meter?.reset()
                if let audioLost = audio.lost(before: at) { (dropped, duration) = audioLost }
            }
            for t in types {
                separator()
                encoder.appendGap(uptime: at, timestamp: at - startUptime, stepPath: nil, sensorType: t, droppedSamples: dropped, duration: duration)
                encoder.removeLastNewline()
            }
        }
        for frame in scratch {
            let timestamp = frame.uptime - startUptime
            switch frame {
            case .motion(let m):
                counter += 1
                if (counter - 1) % stride != 0 { continue }
                for t in types {
                    guard let v = m.vector(for: t) else { continue }
                    separator()
                    encoder.appendMotion(uptime: m.uptime, timestamp: timestamp, stepPath: nil, sensorType: t, vector: v)
                    encoder.removeLastNewline()
                }
            case .location(let fix):
                guard types.contains(.location) else { continue }
                separator()
                let date = fix.fixTime.map { ISO8601Timestamp.string(from: Date(timeIntervalSince1970: $0)) }
                encoder.appendLocation(fix, timestamp: timestamp, stepPath: nil, timestampDate: date, relativeDistance: nil, totalDistance: nil, saveCoordinates: false)
                encoder.removeLastNewline()
            case .soundLevel(let level):
                guard types.contains(.soundLevel) else { continue }
                separator()
                encoder.appendSoundLevel(level, timestamp: timestamp, stepPath: nil)
                encoder.removeLastNewline()
            case .audio(let chunk):
                guard var m = meter else { continue }
                audio.read(chunk)
                levels.removeAll(keepingCapacity: true)
                m.add(chunk, into: &levels)
                meter = m
                for level in levels {
                    separator()
                    encoder.appendSoundLevel(level, timestamp: level.uptime - startUptime, stepPath: nil)
                    encoder.removeLastNewline()
                }
            case .gap(let uptime, let gapTypes, let dropped):
                var duration: Double?
                if meter != nil, gapTypes.contains(.soundLevel) {
                    meter?.reset()
                    duration = audio.duration(ofFrames: dropped)
                }
                for t in types where gapTypes.contains(t) {
                    separator()
                    encoder.appendGap(uptime: uptime, timestamp: timestamp, stepPath: nil, sensorType: t, droppedSamples: dropped, duration: duration)
                    encoder.removeLastNewline()
                }
            case .fault(let uptime, let description):
                separator()
                encoder.appendError(uptime: uptime, timestamp: timestamp, stepPath: nil, description: description)
                encoder.removeLastNewline()
            }
        }
        if encoder.bytes.count == recordsStart { return [] }
        encoder.appendStatic("]}}\n")
        return encoder.bytes
    }
}
