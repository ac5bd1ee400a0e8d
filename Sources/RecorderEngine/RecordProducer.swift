import RecorderModel
import RecorderRuntime

/// One kind of content made from a device's frames: a recorder kind's records (motion,
/// location, microphone levels and WAV) or an analysis joining the pipeline. Recordings and
/// live streams feed every producer the same frames through a `RecordPipeline`; a producer
/// writes records only through the `RecordSink` it is given.
public protocol RecordProducer {
    /// A frame read from the device's ring. Audio chunks come whole (a producer keeps what lies
    /// within `sink`'s bounds); other frames only when measured within them. Faults are the
    /// pipeline's (one error record, whoever produces).
    mutating func add(_ frame: SensorFrame, to sink: inout RecordSink)
    /// Frames read from the ring in a row, in order, each one `add(_:to:)` would be given: measured
    /// within `sink`'s bounds, neither audio nor a fault. One call for the lot: a producer called
    /// through `any RecordProducer` pays the existential's projection and uniqueness check per
    /// call, not per frame. Stops at a failure in `sink.failure`. By default each frame in turn.
    mutating func add(run frames: UnsafeBufferPointer<SensorFrame>, to sink: inout RecordSink)
    /// The ring overwrote `count` frames before the one measured at `uptime` (the reader fell
    /// behind).
    mutating func ringLost(_ count: Int, before uptime: Double, to sink: inout RecordSink)
    /// The end of a drain: buffered output goes to storage, synced when due at `now`
    /// (CLOCK_MONOTONIC seconds); a failure goes to `sink.failure`.
    mutating func flush(to sink: inout RecordSink, now: Double)
    /// The recording ends: records of what is still held (a partial window).
    mutating func finish(to sink: inout RecordSink)
    /// Closes files of its own; returns the first error.
    mutating func close() -> StorageError?
    /// Adds what it knows to the file result of the recording's JSON-lines file.
    func describe(_ result: inout FileResult)
    /// Files of its own (a microphone's WAV), as results.
    var fileResults: [FileResult] { get }
    /// Stops writing files of its own (the recording stopped on a failure).
    mutating func abandon()
    /// True for an analysis: a live stream gives it every frame, not only those its rate keeps.
    var seesEveryFrame: Bool { get }
    /// A summary of the step at `path` from the frames read so far (`step.finish` answers with
    /// it while the step's last frames may still be in flight): an analysis's, a heart-rate
    /// recorder's.
    func summary(ofStep path: String) -> StepSummary?
    /// An analysis's summary of the step at `path` once nothing more can change it; nil before
    /// (and for recorders without one).
    func finalSummary(ofStep path: String) -> GaitStepSummary?
}

extension RecordProducer {
    public mutating func add(run frames: UnsafeBufferPointer<SensorFrame>, to sink: inout RecordSink) {
        for i in frames.indices {
            add(frames[i], to: &sink)
            if sink.failure != nil { return }
        }
    }
    public mutating func flush(to sink: inout RecordSink, now: Double) {}
    public mutating func finish(to sink: inout RecordSink) {}
    public mutating func close() -> StorageError? { nil }
    public func describe(_ result: inout FileResult) {}
    public var fileResults: [FileResult] { [] }
    public mutating func abandon() {}
    public var seesEveryFrame: Bool { false }
    public func summary(ofStep path: String) -> StepSummary? { nil }
    public func finalSummary(ofStep path: String) -> GaitStepSummary? { nil }
}
