import Dispatch
import FoundationEssentials
import Glibc
import RecorderModel
import RecorderRuntime
import Synchronization

/// One async action's recorder in a task run: reads its device's ring from its own cursor and
/// writes `<identifier>.jsonl`.
///
/// `@unchecked Sendable`: every mutable property is used only on the owning run's serial queue
/// (`queue`; the methods that touch them assert it); the ring's notification and the sweep timer
/// only submit work to that queue.
final class Recording: @unchecked Sendable {
    /// Seconds a stopping recorder waits for samples measured before the stop but still in flight
    /// from the device (a hardware FIFO or replay batch holds about 20 ms).
    static let stopGrace = 0.06

    let configuration: AsyncActionConfiguration
    let device: Device
    /// The analysis of an analysis action (gait): its producer writes the file, and the
    /// recording reads the sensors it asks for.
    let analysis: (any AnalysisProvider)?
    /// The sensor types recorded (checked against the device when it starts).
    var types: [SensorType]
    let queue: RunQueue
    let clock: any RecorderClock
    let directory: String

    var lease: DeviceLease?
    var reader: RingReader?
    var writer: RecordFileWriter?
    /// The frames' way to records (made at the start, when the device's formats are known).
    var pipeline: RecordPipeline?
    var fileResult: FileResult?
    var startUptime = 0.0
    var stopUptime: Double?
    /// The step path until the start (then the pipeline's sink keeps it).
    var initialStepPath: JSONString
    /// The first failure (write error); the recording stops at it.
    var failure: String?
    var isFinalized = false
    /// A frame measured after the stop was read: nothing more belongs to this recording.
    var reachedStop = false

    /// Called (on the queue) when the recording stops on a write failure.
    var onFailure: (() -> Void)?
    /// Who waits for an analysis's final summary of a step (`whenFinal`), confined to `queue`.
    private var finalWaiters: [(path: String, deliver: @Sendable (GaitStepSummary) -> Void)] = []
    private let drainScheduled = Atomic<Bool>(false)
    /// CLOCK_MONOTONIC seconds (bit pattern) of the last drain a delivery scheduled.
    private let lastDeliveryDrain = Atomic<UInt64>(0)
    /// This recording's `drainInterval(ringSpan:)` (seconds, bit pattern): set before its ring
    /// reader exists, read by the device's thread.
    private let deliveryDrainInterval = Atomic<UInt64>(Recording.drainInterval.bitPattern)
    /// Drains now and then when the device has gone quiet (see `drainInterval`).
    var sweeper: (any DispatchSourceTimer)?

    init(configuration: AsyncActionConfiguration, device: Device, types: [SensorType], analysis: (any AnalysisProvider)? = nil,
         directory: String, stepPath: String, queue: RunQueue, clock: any RecorderClock) {
        self.configuration = configuration
        self.device = device
        self.analysis = analysis
        self.types = types
        self.directory = directory
        self.queue = queue
        self.clock = clock
        self.initialStepPath = JSONString(stepPath)
    }

    var identifier: String { configuration.identifier }

    var preRollSeconds: Double {
        if case .motion(let o) = configuration.options { return o.preRollSeconds }
        return 0
    }

    var relativePath: String { identifier + ".jsonl" }

    /// Starts the device early so that the ring holds the pre-roll when the recorder starts.
    func arm() throws(DeviceError) {
        if lease == nil { lease = try device.acquire(for: types) }
    }

    /// Starts recording at `uptime`: creates the file, writes the first marker, attaches to the ring.
    /// Returns the wanted sensor types the device turned out not to have.
    func start(uptime: Double, date: Date) throws(RecordingStartError) -> [SensorType] {
        queue.precondition()
        do {
            try arm()
        } catch {
            throw .device(error)
        }
        guard let ring = device.ring, let caps = device.capabilities else { throw .device(.unavailable(device.name, reason: "not opened")) }
        if let analysis {
            do throws(AnalysisRefusal) {
                let inputs = try analysis.inputTypes(capabilities: caps)
                if Set(inputs) != Set(types) {
                    // The device was not open when the run began: lease what the analysis reads.
                    let previous = lease
                    lease = try? device.acquire(for: inputs)
                    previous?.release()
                    types = inputs
                    guard lease != nil else { throw AnalysisRefusal("its sensors could not be started") }
                }
            } catch {
                lease?.release()
                lease = nil
                throw .device(.analysisRefused(device.name, analysis.actionType, reason: error.description))
            }
        }
        let missing = types.filter { !caps.sensorTypes.contains($0) }
        types.removeAll { missing.contains($0) }
        guard !types.isEmpty else {
            lease?.release()
            lease = nil
            throw .device(.unsupportedSensor(device.name, missing[0]))
        }
        // What the file holds: the samples of the types, or an analysis's events.
        let recorded = analysis == nil ? types : []
        let writer: RecordFileWriter
        do {
            writer = try RecordFileWriter(path: directory + "/" + relativePath)
        } catch {
            lease?.release()
            lease = nil
            throw .storage(error)
        }
        startUptime = uptime
        var units: [String: String] = [:]
        for t in recorded { units[t.rawValue] = t.unit }
        if let analysis { units[analysis.streamedType.rawValue] = analysis.streamedType.unit }
        var result = FileResult(identifier: identifier, relativePath: relativePath, device: device.name,
                                startDate: date, startUptime: uptime, units: units)
        result.frequency = caps.rate
        if recorded.contains(where: \.isMotion) {
            var conventions = ["axes": SensorType.motionAxesConvention]
            for t in recorded { conventions[t.rawValue] = t.convention }
            result.conventions = conventions
        }
        if recorded.contains(.heartRate) { result.conventions = ["heartRate": SensorType.heartRateConvention] }
        let options: RecordPipeline.Options
        do throws(StorageError) {
            options = try pipelineOptions(caps: caps, uptime: uptime, date: date)
        } catch {
            try? writer.close()
            unlink(writer.path)
            lease?.release()
            lease = nil
            throw .storage(error)
        }
        self.writer = writer
        var sink = RecordSink(startUptime: uptime, stepPath: initialStepPath)
        sink.lowerBound = uptime - preRollSeconds
        sink.stopUptime = stopUptime
        sink.appendFirstMarker(uptime: uptime, date: date)
        let pipeline = RecordPipeline(types: recorded, sink: sink, options: options)
        pipeline.describe(&result)
        fileResult = result
        self.pipeline = pipeline
        flushEncoder()
        deliveryDrainInterval.store(Self.drainInterval(ringSpan: Double(ring.capacity) / caps.rate).bitPattern, ordering: .relaxed)
        reader = ring.addReader(fromUptime: uptime - preRollSeconds) { [weak self] in self?.framesArrived() }
        scheduleDrain()
        // Fires on the runs' timer queue and submits: the run's queue counts all its work (`RunQueue`).
        let sweep = DispatchSource.makeTimerSource(queue: RunQueue.timers)
        sweep.schedule(deadline: .now() + Self.sweepInterval, repeating: Self.sweepInterval)
        sweep.setEventHandler { [weak self] in self?.scheduleDrain() }
        sweep.resume()
        sweeper = sweep
        return missing
    }

    /// The producers' settings from the configuration; creates the WAV of a microphone recording
    /// that saves it.
    func pipelineOptions(caps: DeviceCapabilities, uptime: Double, date: Date) throws(StorageError) -> RecordPipeline.Options {
        var options = RecordPipeline.Options()
        options.quanta = caps.quanta
        switch configuration.options {
        case .motion(let o):
            options.requestedFrequency = o.frequency
        case .gait:
            options.analysis = analysis?.makeProducer(configuration: configuration, capabilities: caps)
        case .heartRate:
            options.heartRateIdentifier = identifier
        case .distance(let o):
            options.saveCoordinates = o.saveCoordinates
            options.distance = DistanceTracker(accuracyThreshold: o.horizontalAccuracyThreshold)
        case .microphone(let o):
            options.levelInterval = o.levelInterval
            let rate = caps.details["sampleRate"].flatMap { Int($0) } ?? Int(saturating: caps.rate)
            let channels = caps.details["channels"].flatMap { Int($0) } ?? 1
            options.audio = AudioContinuity(sampleRate: rate, expectedNext: uptime - preRollSeconds)
            options.channels = channels
            if o.saveAudioFile {
                let wav = try WAVFileWriter(path: directory + "/" + identifier + ".wav", sampleRate: rate, channels: channels)
                var audio = FileResult(identifier: identifier + "_audio", relativePath: identifier + ".wav", contentType: "audio/wav",
                                       device: device.name, startDate: date, startUptime: uptime, units: [:])
                audio.sampleRate = rate
                audio.channels = channels
                audio.frameCount = 0
                options.wav = MicrophoneRecords.WAVOutput(writer: wav, result: audio, recordingStartUptime: uptime, recordingStartDate: date)
            }
        }
        return options
    }

    /// The step path changes at `uptime`; a marker is written before the first record measured
    /// at or after it.
    func changeStep(_ path: String, uptime: Double) {
        let json = JSONString(path)
        if pipeline == nil {
            initialStepPath = json
        } else {
            pipeline?.sink.changeStep(json, uptime: uptime, date: clock.now().addingTimeInterval(uptime - clock.uptime()))
        }
    }

    /// How long a recorder lets frames gather in the ring before it writes them (a ring
    /// shorter than a second is drained sooner: `drainInterval(ringSpan:)`): one wake-up
    /// of its queue per interval rather than one per delivery (a microphone delivers every
    /// 20 ms). A delivery at least this long after the last drain schedules one at once;
    /// frames delivered sooner wait for the next delivery or, when the device goes quiet, for
    /// the sweep (`sweepInterval`). Durability is unchanged (files are synced once a second),
    /// `finalize` drains everything, and live tails do not wait (they have their own readers).
    ///
    /// Each drain pays a fixed cost besides its frames — waking a queue's thread, and that
    /// thread's caches gone cold since the last one — of a few hundred µs on the benchmark VM:
    /// at 10 kHz, draining every 0.25 s rather than every 0.1 s costs ~15 % less CPU per scan,
    /// and longer intervals save no more (BENCHMARKS.md, "lean, eighth slice").
    static let drainInterval = 0.25

    /// The drain interval for a ring holding `ringSpan` seconds of frames: `drainInterval`, or a
    /// quarter of the span when the ring is shorter than a second, so that a small ring
    /// (`ringSeconds` below 1, or a fast device) is drained long before it wraps rather than
    /// losing what a drain every 0.25 s would not reach in time — but never more often than
    /// every `shortestDrainInterval` (sources deliver every ~20 ms; a ring shorter than that
    /// cannot be kept whole whatever the interval).
    static func drainInterval(ringSpan: Double) -> Double {
        guard ringSpan.isFinite, ringSpan > 0 else { return drainInterval }
        return max(shortestDrainInterval, min(drainInterval, ringSpan / 4))
    }

    /// At most 50 drains a second, whatever the ring.
    static let shortestDrainInterval = 0.02
    /// The longest frames wait in the ring when no more are delivered; the sweep's drain also
    /// fdatasyncs data written since the last sync (a quiet device's last samples are durable
    /// within about two seconds).
    static let sweepInterval = 1.0

    /// The ring's notification (on the device's thread): drains when the last drain scheduled
    /// by a delivery is `drainInterval(ringSpan:)` old.
    func framesArrived() {
        let now = clock.uptime()
        let last = Double(bitPattern: lastDeliveryDrain.load(ordering: .relaxed))
        guard now - last >= Double(bitPattern: deliveryDrainInterval.load(ordering: .relaxed)) else { return }
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
        queue.precondition()
        guard let reader, writer != nil, pipeline != nil, failure == nil, !reachedStop else { return false }
        var left = budget
        var more = false
        while left > 0 {
            let batch = reader.read(maximum: min(4096, left))
            if batch.lost > 0 { pipeline!.ringLost(Int(batch.lost), before: batch.first?.uptime ?? clock.uptime()) }
            if batch.isEmpty { break }
            left -= batch.count
            // The pipeline is moved out of this class for the batch: each access to the stored
            // property is checked for exclusivity at run time, and reading `pipeline!.sink.failure`
            // copied the whole pipeline (a retain and release of each of its references) per frame.
            var local = pipeline.take()!
            for slice in batch.slices {
                guard slice.withUnsafeBufferPointer({ local.add(frames: $0) }) else { break }
            }
            pipeline = consume local
            flushEncoder()
            if failure != nil { return false }
            if let stopUptime, let last = batch.last, last.uptime > stopUptime {
                reachedStop = true
                break
            }
            more = left <= 0
        }
        flushEncoder()
        let now = clock.uptime()
        pipeline?.flush(now: now)
        flushEncoder()
        writer?.syncIfDue(now: now)
        if !finalWaiters.isEmpty { deliverFinalSummaries() }
        return more && !reachedStop
    }

    /// Writes the encoded records to the file; stops the recording on a producer's failure (the
    /// records before it are written first) or a failure writing them.
    func flushEncoder() {
        guard let writer, failure == nil, pipeline != nil else { return }
        if !pipeline!.sink.encoder.bytes.isEmpty {
            let counts = pipeline!.sink.takeCounts()
            do {
                try writer.write(pipeline!.sink.encoder.bytes)
                fileResult?.sampleCount += counts.samples
                fileResult?.droppedSamples += counts.dropped
                fileResult?.gapCount += counts.gaps
                if counts.errors > 0 {
                    let before = fileResult?.errorCount ?? 0
                    fileResult?.errorCount = before + counts.errors
                }
            } catch {
                // Disk full or I/O error: the file keeps every whole line written so far.
                pipeline!.sink.encoder.removeAll()
                return stop(failing: error)
            }
            pipeline!.sink.encoder.removeAll()
        }
        if let producerFailure = pipeline!.sink.failure { stop(failing: producerFailure) }
    }

    /// Disk full or I/O error: the recorder stops, its files keep what was written, and the run
    /// records an error result.
    func stop(failing error: StorageError) {
        guard failure == nil else { return }
        failure = "recording stopped: \(error)"
        pipeline?.abandon()
        detach()
        onFailure?()
    }

    /// Marks the stop; `finalize` writes what was measured up to `uptime`.
    func stop(uptime: Double) {
        if stopUptime == nil {
            stopUptime = uptime
            pipeline?.sink.stopUptime = uptime
        }
    }

    /// Drains, writes the last markers, fsyncs and closes. `date` is the wall-clock time now.
    func finalize(date: Date) {
        queue.precondition()
        guard !isFinalized else { return }
        isFinalized = true
        if writer != nil, pipeline != nil {
            while drain(budget: Self.drainBudget) {}
            // Step changes before the stop get their marker; one at the stop instant does not
            // (nothing of the recording follows it).
            if let stopUptime { pipeline!.sink.markSteps(upTo: stopUptime.nextDown) }
            if failure == nil { pipeline!.finish() }
            flushEncoder()
            if let error = pipeline!.close(), failure == nil { failure = "\(error)" }
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
        }
        // Every summary is final now (or the recording failed: no summary comes).
        if !finalWaiters.isEmpty { deliverFinalSummaries() }
        finalWaiters = []
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

    /// A summary of the step at `path` (an analysis's, a heart-rate recorder's), from every frame
    /// the ring holds now (drained first); nil for recorders without one.
    func summary(ofStep path: String) -> StepSummary? {
        queue.precondition()
        guard pipeline != nil else { return nil }
        while drain(budget: Self.drainBudget) {}
        return pipeline?.summaries(ofStep: path).first
    }

    /// Calls `deliver` once with the analysis's final summary of the step at `path`: at once when
    /// it is final already, else after the drain that makes it so, or when the recording ends
    /// (a recording that fails never calls it).
    func whenFinal(ofStep path: String, deliver: @escaping @Sendable (GaitStepSummary) -> Void) {
        queue.precondition()
        guard analysis != nil, pipeline != nil, failure == nil else { return }
        finalWaiters.append((path, deliver))
        deliverFinalSummaries()
    }

    /// Hands the final summaries that are ready to their waiters.
    private func deliverFinalSummaries() {
        guard failure == nil, let pipeline else {
            finalWaiters = []
            return
        }
        finalWaiters.removeAll { waiter in
            guard let summary = pipeline.finalSummaries(ofStep: waiter.path).first else { return false }
            waiter.deliver(summary)
            return true
        }
    }

    /// The file results as of now: the JSON-lines file, and the producers' own (a WAV).
    var currentFileResults: [FileResult] {
        [currentFileResult].compactMap { $0 } + (pipeline?.fileResults ?? [])
    }

    /// The JSON-lines file's result as of now.
    var currentFileResult: FileResult? {
        guard var result = fileResult else { return nil }
        pipeline?.describe(&result)
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
