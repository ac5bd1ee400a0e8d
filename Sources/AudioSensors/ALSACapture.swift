import FoundationEssentials
import Glibc
import Logging
import RecorderEngine
import RecorderJSON
import RecorderModel
import RecorderRuntime

/// The body of an `ALSASource`'s capture thread.
struct ALSACapture {
    let configuration: ALSAConfiguration
    let periodFrames: Int
    let retryInterval: Double
    let sink: any FrameSink
    let run: ALSASource.Run
    let logger: Logger

    /// Captures until stopped (or, with `frames`, until that many frames, then idles).
    func capture() {
        var faulted = false
        var captured = 0
        // Kept across reopened PCMs: the frames lost meanwhile are measured from where it stopped.
        var timeline: AudioTimeline?
        while !run.isStopped {
            sink.heartbeat()
            let pcm: ALSAPCM
            let startUptime: Double
            do {
                pcm = try ALSAPCM(name: configuration.pcm)
                try pcm.configure(sampleRate: configuration.sampleRate, channels: configuration.channels, periodFrames: periodFrames)
                startUptime = SystemClock.monotonicUptime()
                try pcm.start()
            } catch {
                fail("\(error)", faulted: &faulted)
                run.pause(retryInterval)
                continue
            }
            run.status.withLock { $0 = "capturing" }
            do {
                try read(pcm, startUptime: startUptime, captured: &captured, timeline: &timeline, faulted: &faulted)
            } catch {
                if run.isStopped { break }
                fail("\(error)", faulted: &faulted)
                run.pause(retryInterval)
            }
        }
        run.status.withLock { $0 = "idle" }
    }

    func fail(_ description: String, faulted: inout Bool) {
        run.status.withLock { $0 = "unavailable: \(description); retrying" }
        guard !faulted else { return }
        faulted = true
        logger.warning("audio capture failed; retrying", metadata: ["device": "\(configuration.name)", "error": "\(description)"])
        sink.deliver([.fault(uptime: SystemClock.monotonicUptime(), description: "ALSA device \(configuration.name) failed: \(description)")])
    }

    func read(_ pcm: ALSAPCM, startUptime: Double, captured: inout Int, timeline: inout AudioTimeline?, faulted: inout Bool) throws(ALSAError) {
        let rate = Double(pcm.sampleRate)
        let channels = pcm.channels
        let period = Double(pcm.periodFrames) / rate
        // One period of tolerance between the frame count and the clock (`AudioTimeline`).
        if timeline?.rate != rate || timeline?.tolerance != period { timeline = AudioTimeline(rate: rate, tolerance: period) }
        // Only a card's own timestamps measure its clock (a software PCM's say when it was read).
        let cardTimestamps = pcm.card >= 0
        timeline!.interrupt()
        // The PCM's descriptors and, last, the wake pipe's (one array for the whole capture).
        let wake = pollfd(fd: run.wakeRead, events: Int16(POLLIN), revents: 0)
        var fds = pcm.pollDescriptors() + [wake]
        // A running PCM that delivers nothing for this long has failed without saying so (a
        // sound server that died leaves the PCM running, silent): treated as a failure.
        let silenceLimit = max(1.0, 4 * Double(pcm.bufferFrames) / rate)
        var lastData = SystemClock.monotonicUptime()
        while !run.isStopped {
            sink.heartbeat()
            if let limit = configuration.frames, captured >= limit {
                // A finite input is used up: idle until stopped.
                run.status.withLock { $0 = "done: \(limit) frames" }
                run.pause(0.5)
                continue
            }
            // A source ahead of the clock (an unpaced plugin) is read when its frames are due.
            let wait = timeline!.waitBeforeRead(now: SystemClock.monotonicUptime())
            if wait > 0 {
                run.pause(min(wait, 0.5))
                lastData = SystemClock.monotonicUptime()
                continue
            }
            let ready = poll(&fds, nfds_t(fds.count), 500)
            if run.isStopped { break }
            if SystemClock.monotonicUptime() - lastData > silenceLimit {
                throw ALSAError("\(pcm.name): no audio for \(FixedDecimal.text(silenceLimit, decimals: 1)) s", code: -EIO)
            }
            if ready <= 0 { continue }
            let readable = fds.withUnsafeMutableBufferPointer { pcm.isReadable(UnsafeMutableBufferPointer(rebasing: $0.dropLast())) }
            guard readable else { continue }
            let want = min(pcm.periodFrames, (configuration.frames ?? Int.max) - captured)
            let samples: [Int16]
            do {
                samples = try pcm.read(frames: want)
            } catch where error.code == -EPIPE || error.code == -ESTRPIPE {
                // Overrun (or suspend): frames were lost; the gap is measured when reading resumes.
                run.overruns.add(1, ordering: .relaxed)
                try pcm.recover(error)
                timeline!.interrupt()
                fds = pcm.pollDescriptors() + [wake]
                continue
            }
            let n = samples.count / channels
            guard n > 0 else { continue }
            let completion = SystemClock.monotonicUptime()
            lastData = completion
            var frames: [SensorFrame] = []
            frames.reserveCapacity(2)
            let fallback = completion - Double(pcm.buffered + n) / rate
            let stamped = pcm.firstFrameUptime(framesRead: n).flatMap { abs($0 - fallback) < 1 ? $0 : nil }
            var observed = stamped ?? fallback
            // A PCM paced in real time may hand over, at its start, one block captured just
            // before it (JACK: a 256-frame cycle), never more than a period; more means the
            // input is faster than real time (a file), which is stamped from the start.
            if !timeline!.isAnchored, observed < startUptime - period { observed = startUptime }
            let placement = timeline!.place(frames: n, observed: observed, measured: stamped != nil && cardTimestamps)
            if placement.missing > 0 {
                frames.append(.gap(uptime: placement.uptime, sensorTypes: [.soundLevel], droppedSamples: placement.missing))
            }
            if placement.discarded > 0 {
                frames.append(.discarded(uptime: placement.uptime, sensorTypes: [.soundLevel], count: placement.discarded))
            }
            if faulted {
                logger.info("audio capture back", metadata: ["device": "\(configuration.name)"])
                faulted = false
            }
            if placement.discarded < n {
                let kept = placement.discarded == 0 ? samples : Array(samples[(placement.discarded * channels)...])
                frames.append(.audio(AudioChunk(uptime: placement.uptime, sampleRate: pcm.sampleRate, channels: channels, samples: kept)))
            }
            sink.deliver(frames)
            captured += n
        }
    }
}
