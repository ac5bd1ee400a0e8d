import RecorderRuntime

/// Where captured audio lies on CLOCK_MONOTONIC, whatever clock the source keeps: a card whose
/// crystal drifts, a plugin that delivers as fast as it is read (ALSA's `file`), a reader that
/// stalled. Frames are stamped by count from an anchor (so a recording's WAV is continuous), and
/// the count is checked against each read's observed time, to within `tolerance` (one period):
/// - audio behind the clock (frames missing: a slow card, a stall that lost frames) is a gap of
///   the missing frames (silence in the WAV), and the count re-anchors;
/// - audio ahead of the clock by a measured time (a card faster than CLOCK_MONOTONIC, its
///   hardware timestamp says so) loses its excess frames from the chunk's start, counted in a
///   `discarded` record;
/// - a source ahead of the clock by more than a quarter period before a read (it delivered frames
///   not yet due: an unpaced plugin) is read later, when they are due (`waitBeforeRead`): paced,
///   nothing is lost.
///
/// Pure: the clock readings and observations are passed in (`AudioTimelineTests`).
public struct AudioTimeline: Sendable, Equatable {
    /// Frames per second.
    public let rate: Double
    /// How far the count may stray from the observed time before it is corrected (seconds).
    public let tolerance: Double
    /// The uptime of the next frame on the timeline (nil before the first chunk).
    public private(set) var next: Double?
    /// False at the start and after `interrupt()`: the next chunk anchors the count.
    public private(set) var isAnchored = false

    /// Where a chunk goes.
    public struct Placement: Sendable, Equatable {
        /// The uptime of the chunk's first frame kept.
        public var uptime: Double
        /// Frames missing before it (a gap ending at `uptime`), 0 when none.
        public var missing: Int
        /// Frames left out from the chunk's start (ahead of the clock), 0 when none.
        public var discarded: Int
    }

    public init(rate: Double, tolerance: Double) {
        precondition(rate > 0 && tolerance > 0)
        self.rate = rate
        self.tolerance = tolerance
    }

    /// Seconds to wait before reading, so that no frame is read before it is due (0: read now).
    public func waitBeforeRead(now: Double) -> Double {
        guard isAnchored, let next else { return 0 }
        let ahead = next - now
        return ahead > tolerance / 4 ? ahead : 0
    }

    /// The capture was interrupted (an overrun, a reopened device): the next chunk anchors the
    /// count anew, and the frames lost meanwhile are measured from where the count stopped.
    public mutating func interrupt() {
        isAnchored = false
    }

    /// Places a chunk of `frames` frames whose first frame was captured at `observed`
    /// (`measured`: from the device's own timestamp; otherwise an estimate from the read's
    /// completion, which cannot tell a fast source from a buffered one, so nothing is discarded
    /// on it).
    public mutating func place(frames: Int, observed: Double, measured: Bool) -> Placement {
        let duration = Double(frames) / rate
        guard isAnchored, let expected = next else {
            var first = observed
            var missing = 0
            if let expected = next {
                missing = max(0, Int(saturating: ((observed - expected) * rate).rounded()))
                first = max(observed, expected)
            }
            isAnchored = true
            next = first + duration
            return Placement(uptime: first, missing: missing, discarded: 0)
        }
        let offset = observed - expected
        if offset > tolerance {
            next = observed + duration
            return Placement(uptime: observed, missing: Int(saturating: (offset * rate).rounded()), discarded: 0)
        }
        if offset < -tolerance, measured {
            let discarded = min(frames, Int(saturating: (-offset * rate).rounded()))
            next = expected + Double(frames - discarded) / rate
            return Placement(uptime: expected, missing: 0, discarded: discarded)
        }
        next = expected + duration
        return Placement(uptime: expected, missing: 0, discarded: 0)
    }
}
