import FoundationEssentials
import Glibc
import RecorderEngine
import RecorderModel
import RecorderRuntime

extension IIOSampler {
    /// Samples a device without buffered capture (`IIOCapturePolicy`: no trigger, or `"trigger":
    /// "none"`): at each tick of the rate, one read of every axis's `raw` value (every stream's),
    /// stamped with CLOCK_MONOTONIC midway through the reads. Ticks are absolute (`next += period`),
    /// so the rate does not drift with the reads' time; a tick missed entirely (the thread was
    /// late by a whole period or more: a slow bus, a stalled CPU) is not caught up but counted in
    /// a gap before the next sample, as the buffered path counts lost scans. Frames go to the sink
    /// in batches of about `IIOSession.refillSeconds`, as refills do.
    func poll(_ session: IIOSession, rate: Double, types: [SensorType],
              outage: inout (since: Double, lastUptime: Double?)?, lastUptime: inout Double?) throws(IIOError) {
        let period = 1 / rate
        let perBatch = IIOStream.bufferSamples(rate: rate, seconds: IIOSession.refillSeconds)
        let mounts = session.streams.reduce(into: [SensorType: MountMatrix]()) { all, s in all.merge(s.mounts) { a, _ in a } }
        var batch: [SensorFrame] = []
        batch.reserveCapacity(perBatch + 2)
        var next = SystemClock.monotonicUptime()
        var values = [Double](repeating: 0, count: 9)
        while !run.isStopped {
            IIOSampler.sleep(until: next, stopped: run)
            if run.isStopped { break }
            let before = SystemClock.monotonicUptime()
            let missed = Int(saturating: ((before - next) / period).rounded(.down))
            if missed > 0 {
                // Whole periods late: those ticks are lost, not read late in a burst.
                next += Double(missed) * period
                batch.append(.gap(uptime: before, sensorTypes: types, droppedSamples: missed))
            }
            try values.withUnsafeMutableBufferPointer { buffer throws(IIOError) in
                for stream in session.streams { try stream.readPolled(into: buffer) }
            }
            let after = SystemClock.monotonicUptime()
            let frame = values.withUnsafeMutableBufferPointer { buffer in
                IIOStream.frame(uptime: (before + after) / 2, values: buffer, types: types, mounts: mounts)
            }
            batch.append(.motion(frame))
            next += period
            if batch.count >= perBatch {
                sink.heartbeat()
                deliver(&batch, rate: rate, types: types, outage: &outage, lastUptime: &lastUptime)
                batch.reserveCapacity(perBatch + 2)
            }
        }
        if !batch.isEmpty { deliver(&batch, rate: rate, types: types, outage: &outage, lastUptime: &lastUptime) }
    }

    /// Sleeps until CLOCK_MONOTONIC reaches `uptime` (seconds), in slices of at most 50 ms so a
    /// stop is seen within one.
    static func sleep(until uptime: Double, stopped run: IIOSource.Run) {
        while !run.isStopped {
            let now = SystemClock.monotonicUptime()
            guard now < uptime else { return }
            let target = min(uptime, now + 0.05)
            var deadline = timespec(tv_sec: Int(target.rounded(.down)), tv_nsec: Int((target - target.rounded(.down)) * 1e9))
            _ = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil)
        }
    }
}
