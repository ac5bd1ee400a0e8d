import Dispatch
import Foundation
import RecorderModel
import Synchronization

/// One async action's recorder in a task run: reads its device's ring from its own cursor and
/// writes `<identifier>.jsonl`.
///
/// `@unchecked Sendable`: every mutable property is used only on the owning run's serial queue
/// (`queue`; the methods that touch them assert it); the ring's notification only schedules work
/// onto that queue.
final class Recording: @unchecked Sendable {
    /// Seconds a stopping recorder waits for samples measured before the stop but still in flight
    /// from the device (a hardware FIFO or replay batch holds about 20 ms).
    static let stopGrace = 0.06

    let configuration: AsyncActionConfiguration
    let device: Device
    /// The sensor types recorded (checked against the device when it starts).
    var types: [SensorType]
    let queue: DispatchQueue
    let clock: any RecorderClock
    let directory: String
    let saveCoordinates: Bool

    var lease: DeviceLease?
    var reader: RingReader?
    var writer: RecordFileWriter?
    var encoder = JSONLinesEncoder()
    var scratch: [SensorFrame] = []
    var fileResult: FileResult?
    var startUptime = 0.0
    var lowerBound = -Double.infinity
    var stopUptime: Double?
    var stepPath: JSONString
    var pendingSteps: [(uptime: Double, path: JSONString)] = []
    /// The first failure (write error); the recording stops at it.
    var failure: String?
    var isFinalized = false
    /// A frame measured after the stop was read: nothing more belongs to this recording.
    var reachedStop = false
    /// Counts of the records in `encoder` not yet written: added to the file result only once
    /// their bytes are in the file.
    var pending = PendingCounts()
    /// Distance walked, for location recordings (resets per recording).
    var distance = DistanceTracker()
    /// Metres walked in each step path (location recordings).
    var distanceByStep: [String: Double] = [:]
    /// Microphone recordings: levels every `levelInterval`, and the WAV when `saveAudioFile`.
    var levelMeter: SoundLevelMeter?
    var saveAudioFile = false
    var wav: WAVFileWriter?
    var wavResult: FileResult?
    var levels: [SoundLevel] = []
    var audioChannels = 1
    /// Microphone recordings: lost audio measured in frames.
    var audio = AudioContinuity()

    struct PendingCounts {
        var samples = 0
        var dropped = 0
        var gaps = 0
        var errors = 0
    }
    /// Called (on the queue) when the recording stops on a write failure.
    var onFailure: (() -> Void)?
    private let drainScheduled = Atomic<Bool>(false)
    /// CLOCK_MONOTONIC seconds (bit pattern) of the last drain a delivery scheduled.
    private let lastDeliveryDrain = Atomic<UInt64>(0)
    /// Drains now and then when the device has gone quiet (see `drainInterval`).
    var sweeper: (any DispatchSourceTimer)?

    init(configuration: AsyncActionConfiguration, device: Device, types: [SensorType], directory: String,
         stepPath: String, queue: DispatchQueue, clock: any RecorderClock) {
        self.configuration = configuration
        self.device = device
        self.types = types
        self.directory = directory
        self.queue = queue
        self.clock = clock
        self.stepPath = JSONString(stepPath)
        if case .distance(let o) = configuration.options {
            saveCoordinates = o.saveCoordinates
            distance = DistanceTracker(accuracyThreshold: o.horizontalAccuracyThreshold)
        } else {
            saveCoordinates = false
        }
        if case .microphone(let o) = configuration.options {
            levelMeter = SoundLevelMeter(interval: o.levelInterval)
            saveAudioFile = o.saveAudioFile
        }
        scratch.reserveCapacity(4096)
    }

    var identifier: String { configuration.identifier }

    var preRollSeconds: Double {
        if case .motion(let o) = configuration.options { return o.preRollSeconds }
        return 0
    }

    var relativePath: String { identifier + ".jsonl" }

    /// Starts the device early so that the ring holds the pre-roll when the recorder starts.
    func arm() throws(DeviceError) {
        if lease == nil { lease = try device.acquire() }
    }

    /// Starts recording at `uptime`: creates the file, writes the first marker, attaches to the ring.
    /// Returns the wanted sensor types the device turned out not to have.
    func start(uptime: Double, date: Date) throws(RecordingStartError) -> [SensorType] {
        dispatchPrecondition(condition: .onQueue(queue))
        do {
            try arm()
        } catch {
            throw .device(error)
        }
        guard let ring = device.ring, let caps = device.capabilities else { throw .device(.unavailable(device.name, reason: "not opened")) }
        let missing = types.filter { !caps.sensorTypes.contains($0) }
        types.removeAll { missing.contains($0) }
        guard !types.isEmpty else {
            lease?.release()
            lease = nil
            throw .device(.unsupportedSensor(device.name, missing[0]))
        }
        let writer: RecordFileWriter
        do {
            writer = try RecordFileWriter(path: directory + "/" + relativePath)
        } catch {
            lease?.release()
            lease = nil
            throw .storage(error)
        }
        self.writer = writer
        startUptime = uptime
        lowerBound = uptime - preRollSeconds
        var units: [String: String] = [:]
        for t in types { units[t.rawValue] = t.unit }
        var result = FileResult(identifier: identifier, relativePath: relativePath, device: device.name,
                                startDate: date, startUptime: uptime, units: units)
        result.frequency = device.capabilities?.rate
        if case .motion(let o) = configuration.options { result.requestedFrequency = o.frequency }
        // A microphone's levels file: one record per level interval.
        if case .microphone(let o) = configuration.options { result.frequency = 1 / o.levelInterval }
        fileResult = result
        if levelMeter != nil {
            audio = AudioContinuity(sampleRate: caps.details["sampleRate"].flatMap { Int($0) } ?? Int(saturating: caps.rate),
                                    expectedNext: uptime - preRollSeconds)
            audioChannels = caps.details["channels"].flatMap { Int($0) } ?? 1
        }
        if saveAudioFile {
            let rate = audio.sampleRate
            do {
                wav = try WAVFileWriter(path: directory + "/" + identifier + ".wav", sampleRate: rate, channels: audioChannels)
            } catch {
                try? writer.close()
                unlink(writer.path)
                self.writer = nil
                lease?.release()
                lease = nil
                throw .storage(error)
            }
            var audio = FileResult(identifier: identifier + "_audio", relativePath: identifier + ".wav", contentType: "audio/wav",
                                   device: device.name, startDate: date, startUptime: uptime, units: [:])
            audio.sampleRate = rate
            audio.channels = audioChannels
            audio.frameCount = 0
            wavResult = audio
        }
        encoder.appendMarker(uptime: uptime, timestamp: 0, timestampDate: ISO8601Timestamp.string(from: date), stepPath: stepPath)
        flushEncoder()
        reader = ring.addReader(fromUptime: lowerBound) { [weak self] in self?.framesArrived() }
        scheduleDrain()
        let sweep = DispatchSource.makeTimerSource(queue: queue)
        sweep.schedule(deadline: .now() + Self.sweepInterval, repeating: Self.sweepInterval)
        sweep.setEventHandler { [weak self] in self?.scheduleDrain() }
        sweep.resume()
        sweeper = sweep
        return missing
    }

    /// The step path changes at `uptime`; a marker is written before the first record measured
    /// at or after it.
    func changeStep(_ path: String, uptime: Double) {
        let json = JSONString(path)
        if writer == nil {
            stepPath = json
        } else {
            pendingSteps.append((uptime, json))
        }
    }

    /// How long a recorder lets frames gather in the ring before it writes them: one wake-up
    /// of its queue per interval rather than one per delivery (a microphone delivers every
    /// 20 ms). A delivery at least this long after the last drain schedules one at once;
    /// frames delivered sooner wait for the next delivery or, when the device goes quiet, for
    /// the sweep (`sweepInterval`). Durability is unchanged (files are synced once a second),
    /// `finalize` drains everything, and live tails do not wait (they have their own readers).
    static let drainInterval = 0.1
    /// The longest frames wait in the ring when no more are delivered; the sweep's drain also
    /// fdatasyncs data written since the last sync (a quiet device's last samples are durable
    /// within about two seconds).
    static let sweepInterval = 1.0

    /// The ring's notification (on the device's thread): drains when the last drain scheduled
    /// by a delivery is `drainInterval` old.
    func framesArrived() {
        let now = clock.uptime()
        let last = Double(bitPattern: lastDeliveryDrain.load(ordering: .relaxed))
        guard now - last >= Self.drainInterval else { return }
        lastDeliveryDrain.store(now.bitPattern, ordering: .relaxed)
        scheduleDrain()
    }

    /// Drains on the queue; one drain is pending at a time.
    func scheduleDrain() {
        if !drainScheduled.exchange(true, ordering: .acquiringAndReleasing) {
            queue.async { [self] in
                drainScheduled.store(false, ordering: .releasing)
                if drain(budget: Self.drainBudget) { scheduleDrain() }
            }
        }
    }

    /// Frames one drain handles before it yields the queue to other work (step changes, finish).
    static let drainBudget = 8192

    /// Reads what the ring has for this recorder (at most `budget` frames) and writes it.
    /// Returns true when frames remain to be read (the caller reschedules).
    @discardableResult
    func drain(budget: Int) -> Bool {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let reader, writer != nil, failure == nil, !reachedStop else { return false }
        var left = budget
        var more = false
        while left > 0 {
            scratch.removeAll(keepingCapacity: true)
            let lost = reader.read(into: &scratch, maximum: min(4096, left))
            if lost > 0 {
                let at = scratch.first?.uptime ?? clock.uptime()
                emitSteps(upTo: at)
                // The ring counts frames of the source; a microphone's are chunks of audio, whose
                // lost frames are measured by time.
                var dropped = Int(lost)
                var duration: Double?
                if levelMeter != nil {
                    levelMeter?.reset()
                    if let audioLost = audio.lost(before: at) { (dropped, duration) = audioLost }
                    writeSilence(frames: dropped, endingAt: at)
                }
                for type in types {
                    encoder.appendGap(uptime: at, timestamp: at - startUptime, stepPath: stepPath, sensorType: type, droppedSamples: dropped,
                                      duration: duration)
                    pending.dropped += dropped
                    pending.gaps += 1
                }
            }
            if scratch.isEmpty { break }
            left -= scratch.count
            for frame in scratch { encode(frame) }
            flushEncoder()
            if failure != nil { return false }
            if let stopUptime, let last = scratch.last, last.uptime > stopUptime {
                reachedStop = true
                break
            }
            more = left <= 0
        }
        flushEncoder()
        flushAudio()
        writer?.syncIfDue(now: clock.uptime())
        wav?.syncIfDue(now: clock.uptime())
        return more && !reachedStop
    }

    func emitSteps(upTo uptime: Double) {
        while let next = pendingSteps.first, next.uptime <= uptime {
            pendingSteps.removeFirst()
            stepPath = next.path
            let date = clock.now().addingTimeInterval(next.uptime - clock.uptime())
            encoder.appendMarker(uptime: next.uptime, timestamp: next.uptime - startUptime,
                                 timestampDate: ISO8601Timestamp.string(from: date), stepPath: stepPath)
        }
    }

    func encode(_ frame: SensorFrame) {
        if case .audio(let chunk) = frame { return encodeAudio(chunk) }
        let uptime = frame.uptime
        if uptime < lowerBound { return }
        if let stopUptime, uptime > stopUptime { return }
        if !pendingSteps.isEmpty { emitSteps(upTo: uptime) }
        let timestamp = uptime - startUptime
        switch frame {
        case .motion(let m):
            for type in types {
                if let v = m.vector(for: type) {
                    encoder.appendMotion(uptime: uptime, timestamp: timestamp, stepPath: stepPath, sensorType: type, vector: v)
                    pending.samples += 1
                }
            }
        case .location(let fix):
            guard types.contains(.location) else { return }
            let date = fix.fixTime.map { ISO8601Timestamp.string(from: Date(timeIntervalSince1970: $0)) }
            let walked = distance.add(fix)
            if let step = walked.relative { distanceByStep[stepPath.value, default: 0] += step }
            encoder.appendLocation(fix, timestamp: timestamp, stepPath: stepPath, timestampDate: date,
                                   relativeDistance: walked.relative, totalDistance: walked.total, saveCoordinates: saveCoordinates)
            pending.samples += 1
        case .soundLevel(let level):
            guard types.contains(.soundLevel) else { return }
            encoder.appendSoundLevel(level, timestamp: timestamp, stepPath: stepPath)
            pending.samples += 1
        case .audio:
            break
        case .gap(_, let gapTypes, let dropped):
            var duration: Double?
            if gapTypes.contains(.soundLevel), levelMeter != nil {
                levelMeter?.reset()
                duration = audio.duration(ofFrames: dropped)
                writeSilence(frames: dropped, endingAt: uptime)
            }
            for type in types where gapTypes.contains(type) {
                encoder.appendGap(uptime: uptime, timestamp: timestamp, stepPath: stepPath, sensorType: type, droppedSamples: dropped,
                                  duration: duration)
                pending.dropped += dropped
                pending.gaps += 1
            }
        case .fault(_, let description):
            encoder.appendError(uptime: uptime, timestamp: timestamp, stepPath: stepPath, description: description)
            pending.errors += 1
        }
    }

    /// A chunk of a microphone recording: the frames measured within the recording (a chunk may
    /// straddle its start or stop) go to the WAV and the level meter.
    func encodeAudio(_ chunk: AudioChunk) {
        guard types.contains(.soundLevel), var meter = levelMeter else { return }
        let period = 1 / Double(chunk.sampleRate)
        audio.read(chunk)
        var first = 0
        if chunk.uptime < lowerBound { first = min(chunk.frames, Int(saturating: ((lowerBound - chunk.uptime) / period).rounded(.up))) }
        var end = chunk.frames
        if let stopUptime { end = max(first, min(end, Int(saturating: ((stopUptime - chunk.uptime) / period).rounded(.down)) &+ 1)) }
        guard end > first else { return }
        var part = chunk
        if first > 0 || end < chunk.frames {
            part.samples = Array(chunk.samples[(first * chunk.channels)..<(end * chunk.channels)])
            part.uptime = chunk.uptime + Double(first) * period
        }
        if let wav, failure == nil {
            if wav.framesWritten == 0 { wavStarts(at: part.uptime) }
            do {
                try wav.write(part.samples)
            } catch {
                return stopOnAudioFailure(error)
            }
        }
        levels.removeAll(keepingCapacity: true)
        meter.add(part, into: &levels)
        levelMeter = meter
        appendLevels()
    }

    /// Lost audio (`frames` frames ending at `uptime`) becomes silence in the WAV, as much of it as
    /// lies within the recording: the WAV's timeline stays the wall clock's, and its file result
    /// counts the frames (`droppedSamples`, `gapCount`) and says where they are (`gaps`).
    func writeSilence(frames lost: Int, endingAt uptime: Double) {
        guard let wav, failure == nil, lost > 0, audio.sampleRate > 0 else { return }
        let rate = Double(audio.sampleRate)
        let start = max(uptime - Double(lost) / rate, lowerBound)
        let end = min(uptime, stopUptime ?? .infinity)
        let frames = Int(saturating: ((end - start) * rate).rounded())
        guard frames > 0 else { return }
        let first = wav.framesWritten
        if first == 0 { wavStarts(at: start) }
        do {
            try wav.writeSilence(frames: frames)
        } catch {
            return stopOnAudioFailure(error)
        }
        guard var result = wavResult else { return }
        result.droppedSamples += frames
        result.gapCount += 1
        result.gaps = (result.gaps ?? []) + [AudioGap(uptime: uptime, frame: first, frameCount: frames)]
        wavResult = result
    }

    /// The WAV's first frame was measured at `uptime`: its result's start (frame `k` of the file
    /// is at `startUptime + k / sampleRate`).
    func wavStarts(at uptime: Double) {
        wavResult?.startUptime = uptime
        if let result = fileResult { wavResult?.startDate = result.startDate.addingTimeInterval(uptime - result.startUptime) }
    }

    /// Writes the WAV's buffered samples (at the end of every drain).
    func flushAudio() {
        guard let wav, failure == nil else { return }
        do {
            try wav.flush()
            wavResult?.frameCount = wav.framesWritten
        } catch {
            stopOnAudioFailure(error)
        }
    }

    /// Disk full or I/O error writing the WAV: it keeps every whole frame written so far; the
    /// recorder stops and the run records an error result.
    func stopOnAudioFailure(_ error: StorageError) {
        wavResult?.frameCount = wav?.framesWritten
        // The levels measured so far still go to their file (the failed WAV write was cut back to
        // its last whole frame, which may have made room); that write may fail and stop us too.
        flushEncoder()
        guard failure == nil else { return }
        failure = "recording stopped: \(error)"
        detach()
        onFailure?()
    }

    /// Writes the levels the meter completed.
    func appendLevels() {
        for level in levels {
            if !pendingSteps.isEmpty { emitSteps(upTo: level.uptime) }
            encoder.appendSoundLevel(level, timestamp: level.uptime - startUptime, stepPath: stepPath)
            pending.samples += 1
        }
        levels.removeAll(keepingCapacity: true)
    }

    func flushEncoder() {
        guard !encoder.bytes.isEmpty, let writer, failure == nil else { return }
        defer { pending = PendingCounts() }
        do {
            try writer.write(encoder.bytes)
            fileResult?.sampleCount += pending.samples
            fileResult?.droppedSamples += pending.dropped
            fileResult?.gapCount += pending.gaps
            if pending.errors > 0 {
                let errors = (fileResult?.errorCount ?? 0) + pending.errors
                fileResult?.errorCount = errors
            }
        } catch {
            // Disk full or I/O error: the file keeps every whole line written so far; the
            // recorder stops and the run records an error result.
            failure = "recording stopped: \(error)"
            detach()
            onFailure?()
        }
        encoder.removeAll()
    }

    /// Marks the stop; `finalize` writes what was measured up to `uptime`.
    func stop(uptime: Double) {
        if stopUptime == nil { stopUptime = uptime }
    }

    /// Drains, writes the last markers, fsyncs and closes. `date` is the wall-clock time now.
    func finalize(date: Date) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !isFinalized else { return }
        isFinalized = true
        if writer != nil {
            while drain(budget: Self.drainBudget) {}
            // Step changes before the stop get their marker; one at the stop instant does not
            // (nothing of the recording follows it).
            if let stopUptime { emitSteps(upTo: stopUptime.nextDown) }
            if var meter = levelMeter {
                // The last, partial window.
                meter.flush(channels: audioChannels, into: &levels)
                levelMeter = meter
                appendLevels()
            }
            flushEncoder()
            if let wav {
                do {
                    try wav.close()
                    wavResult?.frameCount = wav.framesWritten
                    wavResult?.sha256 = SHA256.hexDigest(ofFile: wav.path)
                } catch {
                    if failure == nil { failure = "\(error)" }
                }
            }
            if let writer {
                do {
                    try writer.close()
                } catch {
                    if failure == nil { failure = "\(error)" }
                }
                fileResult?.sha256 = writer.sha256
            }
            let end = stopUptime ?? clock.uptime()
            fileResult?.endUptime = end
            fileResult?.endDate = date.addingTimeInterval(end - clock.uptime())
            // The WAV ends with its last frame.
            if let audio = wavResult, let rate = audio.sampleRate, rate > 0 {
                let duration = Double(audio.frameCount ?? 0) / Double(rate)
                wavResult?.endUptime = audio.startUptime + duration
                wavResult?.endDate = audio.startDate.addingTimeInterval(duration)
            }
        }
        detach()
    }

    /// Leaves the ring and the device.
    func detach() {
        sweeper?.cancel()
        sweeper = nil
        reader?.close()
        reader = nil
        lease?.release()
        lease = nil
    }

    /// The file results as of now: the JSON-lines file, and the WAV of a microphone recording.
    var currentFileResults: [FileResult] {
        [currentFileResult, wavResult].compactMap { $0 }
    }

    /// The JSON-lines file's result as of now.
    var currentFileResult: FileResult? {
        guard var result = fileResult else { return nil }
        if types.contains(.location) {
            result.totalDistance = distance.total
            result.distanceByStep = distanceByStep
            result.unusedFixes = distance.unusedFixes
        }
        if !isFinalized, let writer { result.sha256 = writer.sha256 }
        return result
    }
}

/// Why a recorder could not start.
enum RecordingStartError: Error, CustomStringConvertible {
    case device(DeviceError)
    case storage(StorageError)

    var description: String {
        switch self {
        case .device(let e): return e.description
        case .storage(let e): return e.description
        }
    }
}
