import FoundationEssentials
import Glibc
import RecorderModel
import RecorderRuntime

/// The one way a device's frames become records, shared by recordings and live streams: the
/// frames read from a ring go to each producer (a recorder kind's content, analyses) and their
/// records into one sink. The owner reads the ring, takes the sink's bytes and writes them.
struct RecordPipeline {
    var producers: [any RecordProducer]
    var sink: RecordSink
    /// Some producer (an analysis) sees the frames a live stream's rate skips.
    let seesSkippedFrames: Bool

    /// Producers for `types`: motion sensors, location, sound levels and heart rate each have their own.
    /// `options` tunes them for a recording (distance and coordinates, the level interval, the
    /// WAV); live streams pass `.live`.
    init(types: [SensorType], sink: RecordSink, options: Options) {
        self.sink = sink
        var producers: [any RecordProducer] = []
        let motion = types.filter(\.isMotion)
        if !motion.isEmpty { producers.append(MotionRecords(types: motion, quanta: options.quanta, requestedFrequency: options.requestedFrequency)) }
        if types.contains(.location) {
            producers.append(LocationRecords(distance: options.distance, saveCoordinates: options.saveCoordinates))
        }
        if types.contains(.soundLevel) {
            producers.append(MicrophoneRecords(levelInterval: options.levelInterval, audio: options.audio, wav: options.wav,
                                               channels: options.channels))
        }
        if types.contains(.heartRate) { producers.append(HeartRateRecords(identifier: options.heartRateIdentifier)) }
        if let analysis = options.analysis { producers.append(analysis) }
        self.producers = producers
        seesSkippedFrames = producers.contains { $0.seesEveryFrame }
    }

    /// How the producers are set up.
    struct Options {
        /// Motion: the rate the configuration asked for (the file result says it).
        var requestedFrequency: Double?
        /// Location: distance walked (nil: none, as in live streams).
        var distance: DistanceTracker?
        var saveCoordinates = false
        /// Microphone: seconds per level record.
        var levelInterval = 0.1
        /// Microphone: where the audio stands (a recording's start, so that chunks lost before
        /// the first one read are measured too).
        var audio = AudioContinuity()
        /// Microphone: channels of the audio (until the first chunk says).
        var channels = 1
        /// Microphone: the WAV the audio goes to.
        var wav: MicrophoneRecords.WAVOutput?
        /// Motion: one count of each axis of the device's quantised sensor types (its capabilities').
        var quanta: [SensorType: Vector3] = [:]
        /// Heart rate: the recorder's identifier, for its step summaries (nil: none, as in live streams).
        var heartRateIdentifier: String?
        /// An analysis (gait) joining the producers.
        var analysis: (any RecordProducer)?

        /// A live stream's: no distance, no coordinates, no WAV.
        static func live(levelInterval: Double, quanta: [SensorType: Vector3] = [:]) -> Options {
            Options(levelInterval: levelInterval, quanta: quanta)
        }
    }

    /// A frame read from the ring. `sampled`: false for a frame a live stream's rate skips
    /// (only analyses see it).
    mutating func add(_ frame: SensorFrame, sampled: Bool = true) {
        if case .audio = frame {
            for i in producers.indices { producers[i].add(frame, to: &sink) }
            return
        }
        // A skipped frame is nothing to a stream without an analysis (at 1,666 Hz streamed at
        // 50 Hz, 97 % of the frames): not even looked at.
        if !sampled, !seesSkippedFrames { return }
        guard sink.contains(frame.uptime) else { return }
        if !sampled {
            for i in producers.indices where producers[i].seesEveryFrame { producers[i].add(frame, to: &sink) }
            return
        }
        if case .fault(let uptime, let description) = frame {
            sink.appendError(uptime: uptime, description: description)
            return
        }
        for i in producers.indices { producers[i].add(frame, to: &sink) }
    }

    /// Frames read from the ring in a row, every one sampled (a recording's drain); false when a
    /// producer failed (`sink.failure`), and the frames after the failing one were not added.
    /// With one producer (a recorder kind without an analysis: the usual recording), the runs of
    /// frames it would be given one by one go to it in one call each (`add(run:to:)`). With more,
    /// frame by frame: each frame's records of every producer stay together, in producer order.
    mutating func add(frames: UnsafeBufferPointer<SensorFrame>) -> Bool {
        guard producers.count == 1 else {
            for i in frames.indices {
                add(frames[i])
                if sink.failure != nil { return false }
            }
            return true
        }
        var runStart = 0
        for i in frames.indices {
            switch frames[i] {
            case .audio, .fault: break
            default: if sink.contains(frames[i].uptime) { continue }
            }
            // Not a frame the producer takes as it is: the run before it goes first.
            if runStart < i {
                producers[0].add(run: UnsafeBufferPointer(rebasing: frames[runStart..<i]), to: &sink)
                if sink.failure != nil { return false }
            }
            add(frames[i])
            if sink.failure != nil { return false }
            runStart = i + 1
        }
        if runStart < frames.count {
            producers[0].add(run: UnsafeBufferPointer(rebasing: frames[runStart...]), to: &sink)
        }
        return sink.failure == nil
    }

    /// The ring overwrote `count` frames before the one measured at `uptime`.
    mutating func ringLost(_ count: Int, before uptime: Double) {
        sink.markSteps(upTo: uptime)
        for i in producers.indices { producers[i].ringLost(count, before: uptime, to: &sink) }
    }

    /// The end of a drain (`now`: CLOCK_MONOTONIC seconds, for periodic syncs).
    mutating func flush(now: Double) {
        for i in producers.indices { producers[i].flush(to: &sink, now: now) }
    }

    /// The end of a recording: what producers still hold.
    mutating func finish() {
        for i in producers.indices { producers[i].finish(to: &sink) }
    }

    /// Closes the producers' own files; returns the first error.
    mutating func close() -> StorageError? {
        var first: StorageError?
        for i in producers.indices {
            if let error = producers[i].close(), first == nil { first = error }
        }
        return first
    }

    /// Stops the producers' own files (the recording stopped on a failure).
    mutating func abandon() {
        for i in producers.indices { producers[i].abandon() }
    }

    /// The JSON-lines file's result as the producers describe it.
    func describe(_ result: inout FileResult) {
        for p in producers { p.describe(&result) }
    }

    /// The producers' summaries of the step at `path` so far.
    func summaries(ofStep path: String) -> [StepSummary] {
        producers.compactMap { $0.summary(ofStep: path) }
    }

    /// The analyses' final summaries of the step at `path` (those that are final now).
    func finalSummaries(ofStep path: String) -> [GaitStepSummary] {
        producers.compactMap { $0.finalSummary(ofStep: path) }
    }

    /// Results of the producers' own files.
    var fileResults: [FileResult] { producers.flatMap(\.fileResults) }
}
