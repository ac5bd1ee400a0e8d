import FoundationEssentials
import Glibc
import Logging
import RecorderEngine
import RecorderModel
import RecorderRuntime

/// The body of an `IIOSource`'s sampling thread: connect, refill, decode, merge, deliver; on
/// failure one fault frame, a retry every `retryInterval` seconds, and a gap when samples resume.
struct IIOSampler {
    let configuration: IIOConfiguration
    let retryInterval: Double
    let sink: any FrameSink
    let run: IIOSource.Run
    let logger: Logger

    /// Samples until the run is stopped.
    func sample() {
        var outage: (since: Double, lastUptime: Double?)?
        var lastUptime: Double?
        var rate = configuration.frequency ?? 100
        var types = configuration.sensorTypes ?? [.accelerometer, .gyro]
        while !run.isStopped {
            sink.heartbeat()
            let session: IIOSession
            do {
                session = try IIOSession.open(configuration)
                rate = session.rate
                types = session.sensorTypes
            } catch {
                if run.isStopped { break }
                fail("\(error)", outage: &outage, lastUptime: lastUptime)
                run.pause(retryInterval)
                continue
            }
            let polled = session.streams[0].capture == .polled
            if polled {
                run.timeout.withLock { $0 = 5 }
            } else {
                do {
                    let samples = session.streams.map { IIOStream.bufferSamples(rate: $0.rate, seconds: IIOSession.refillSeconds) }
                    let timeout = try session.setTimeout(bufferSamples: samples)
                    run.timeout.withLock { $0 = max(5, timeout) }
                    for (stream, count) in zip(session.streams, samples) {
                        let buffer = try stream.openBuffer(samples: count)
                        if !run.register(buffer.canceller) { break }
                    }
                } catch {
                    if run.isStopped { break }
                    fail("\(error)", outage: &outage, lastUptime: lastUptime)
                    run.pause(retryInterval)
                    continue
                }
            }
            defer {
                run.unregisterAll()
                for stream in session.streams { stream.closeBuffer() }
            }
            if run.isStopped { break }
            run.status.withLock { $0 = polled ? "polling" : "streaming" }
            do {
                if polled {
                    try poll(session, rate: rate, types: types, outage: &outage, lastUptime: &lastUptime)
                } else {
                    try stream(session, rate: rate, types: types, outage: &outage, lastUptime: &lastUptime)
                }
            } catch {
                if run.isStopped { break }
                fail("\(error)", outage: &outage, lastUptime: lastUptime)
                run.pause(retryInterval)
            }
        }
        run.status.withLock { $0 = "idle" }
    }

    /// Records the start of an outage: one fault frame and one log line per outage.
    func fail(_ description: String, outage: inout (since: Double, lastUptime: Double?)?, lastUptime: Double?) {
        run.status.withLock { $0 = "unavailable: \(description); retrying" }
        guard outage == nil else { return }
        let now = SystemClock.monotonicUptime()
        outage = (now, lastUptime)
        logger.warning("IIO device failed; retrying", metadata: ["device": "\(configuration.name)", "error": "\(description)"])
        sink.deliver([.fault(uptime: now, description: "IIO device \(configuration.name) failed: \(description)")])
    }

    /// Refills every stream in turn until an error or the stop; frames of several streams are
    /// delivered merged in time order.
    func stream(_ session: IIOSession, rate: Double, types: [SensorType],
                outage: inout (since: Double, lastUptime: Double?)?, lastUptime: inout Double?) throws(IIOError) {
        let sharesClocks = session.context.sharesHostClocks
        var pending = [[SensorFrame]](repeating: [], count: session.streams.count)
        for i in pending.indices { pending[i].reserveCapacity(4096) }
        // A refill's scans (of every stream), and room for gap frames: each batch is handed to the
        // ring as it is (a new one per refill).
        let expected = session.streams.reduce(8) { $0 + IIOStream.bufferSamples(rate: $1.rate, seconds: IIOSession.refillSeconds) }
        while !run.isStopped {
            sink.heartbeat()
            var batch: [SensorFrame] = []
            batch.reserveCapacity(expected)
            if session.streams.count == 1 {
                // One device: its frames are already in time order.
                _ = try session.streams[0].buffer!.refill()
                session.streams[0].decode(completion: SystemClock.monotonicUptime(), sharesHostClocks: sharesClocks, into: &batch)
            } else {
                for (i, stream) in session.streams.enumerated() {
                    _ = try stream.buffer!.refill()
                    stream.decode(completion: SystemClock.monotonicUptime(), sharesHostClocks: sharesClocks, into: &pending[i])
                }
                Self.merge(&pending, into: &batch)
            }
            guard !batch.isEmpty else { continue }
            deliver(&batch, rate: rate, types: types, outage: &outage, lastUptime: &lastUptime)
        }
    }

    /// Hands a batch to the sink; after an outage, first a gap of the samples it lost, estimated
    /// from the last sample before it.
    func deliver(_ batch: inout [SensorFrame], rate: Double, types: [SensorType],
                 outage: inout (since: Double, lastUptime: Double?)?, lastUptime: inout Double?) {
        guard let first = batch.first else { return }
        if let lost = outage {
            if let last = lost.lastUptime {
                let missing = Int(saturating: ((first.uptime - last) * rate).rounded()) &- 1
                if missing > 0 { batch.insert(.gap(uptime: first.uptime, sensorTypes: types, droppedSamples: missing), at: 0) }
            }
            logger.info("IIO device back", metadata: ["device": "\(configuration.name)", "down": "\(SystemClock.monotonicUptime() - lost.since) s"])
            outage = nil
        }
        lastUptime = batch.last?.uptime
        sink.deliver(batch)
        batch = []
    }

    /// Moves the frames every stream has reached (up to the earliest of their last uptimes) from
    /// `pending` to `batch`, in time order.
    static func merge(_ pending: inout [[SensorFrame]], into batch: inout [SensorFrame]) {
        guard let limit = pending.map({ $0.last?.uptime ?? -.infinity }).min(), limit > -.infinity else { return }
        var cursors = [Int](repeating: 0, count: pending.count)
        while true {
            var best: Int?
            for i in pending.indices where cursors[i] < pending[i].count {
                let u = pending[i][cursors[i]].uptime
                if u <= limit, best.map({ u < pending[$0][cursors[$0]].uptime }) ?? true { best = i }
            }
            guard let i = best else { break }
            batch.append(pending[i][cursors[i]])
            cursors[i] += 1
        }
        for i in pending.indices { pending[i].removeFirst(cursors[i]) }
    }
}
