import AudioSensors
import Testing

/// `AudioTimeline` without a sound card: simulated clocks (a card's crystal against
/// CLOCK_MONOTONIC, a plugin that delivers as fast as it is read), checked against the clock
/// itself: every chunk's stamp within one period of when its frames were captured.
struct AudioTimelineTests {
    static let rate = 48_000.0
    static let chunk = 960
    static let period = Double(chunk) / rate

    /// A card whose clock runs `ppm` fast (positive) or slow, read for `seconds` with hardware
    /// timestamps: the placements, and each chunk's true capture time of its first frame.
    static func card(ppm: Double, seconds: Double) -> (placements: [AudioTimeline.Placement], truth: [Double]) {
        var timeline = AudioTimeline(rate: rate, tolerance: period)
        let framePeriod = 1 / (rate * (1 + ppm * 1e-6))
        var placements: [AudioTimeline.Placement] = []
        var truth: [Double] = []
        var frame = 0
        let start = 1_000.0
        while Double(frame) * framePeriod < seconds {
            let captured = start + Double(frame) * framePeriod
            placements.append(timeline.place(frames: chunk, observed: captured, measured: true))
            truth.append(captured)
            frame += chunk
        }
        return (placements, truth)
    }

    @Test func aCardOnTimeIsStampedByCountWithNothingMissingOrDiscarded() {
        let (placements, truth) = Self.card(ppm: 0, seconds: 60)
        #expect(placements.allSatisfy { $0.missing == 0 && $0.discarded == 0 })
        for (k, p) in placements.enumerated() {
            #expect(abs(p.uptime - (truth[0] + Double(k) * Self.period)) < 1e-9, "chunk \(k): contiguous by count")
        }
    }

    /// An hour of a card 200 ppm fast (0.72 s more audio than time): the excess is discarded a
    /// period at a time, every stamp stays within one period of the truth, and the frames kept
    /// are an hour's worth.
    @Test func aFastCardLosesItsExcessAndStaysWithinOnePeriodOfTheClock() {
        let (placements, truth) = Self.card(ppm: 200, seconds: 3_600)
        let discarded = placements.map(\.discarded).reduce(0, +)
        // The frames read, less those their true duration holds at the nominal rate.
        let read = Double(placements.count * Self.chunk)
        let excess = read - read / 1.0002
        #expect(placements.allSatisfy { $0.missing == 0 })
        #expect(abs(Double(discarded) - excess) <= Double(Self.chunk), "discarded \(discarded) frames, the excess \(excess)")
        for (k, p) in placements.enumerated() {
            // The first frame kept was captured at truth + discarded frames.
            let kept = truth[k] + Double(p.discarded) / (Self.rate * 1.0002)
            #expect(abs(p.uptime - kept) <= Self.period, "chunk \(k): \(p.uptime) vs \(kept)")
        }
    }

    /// An hour of a card 200 ppm slow: the missing frames are gaps, every stamp within one period.
    @Test func aSlowCardGetsGapsOfTheMissingFramesAndStaysWithinOnePeriodOfTheClock() {
        let (placements, truth) = Self.card(ppm: -200, seconds: 3_600)
        let missing = placements.map(\.missing).reduce(0, +)
        #expect(placements.allSatisfy { $0.discarded == 0 })
        #expect(abs(Double(missing) - 3_600 * Self.rate * 200e-6) <= Double(Self.chunk), "missing \(missing) frames")
        for (k, p) in placements.enumerated() {
            #expect(abs(p.uptime - truth[k]) <= Self.period, "chunk \(k)")
        }
    }

    /// A plugin that hands over any number of frames at once (ALSA's `file`): read only when its
    /// frames are due, so two seconds of reading give two seconds of audio, every chunk's end
    /// within one period of the clock, nothing lost or discarded. (Its observed time is an
    /// estimate from a full buffer, not measured.)
    @Test func anUnpacedPluginIsReadWhenItsFramesAreDue() {
        var timeline = AudioTimeline(rate: Self.rate, tolerance: Self.period)
        var now = 500.0
        let end = now + 2
        var frames = 0
        var reads = 0
        while now < end {
            let wait = timeline.waitBeforeRead(now: now)
            if wait > 0 {
                #expect(wait <= Self.period + 1e-9, "never more than a chunk ahead")
                now += wait
                continue
            }
            // The estimate from a full buffer lies half a second back; the capture stamps the
            // first chunk from its start instead (ALSACapture: more than a period before it).
            let p = timeline.place(frames: Self.chunk, observed: reads == 0 ? now : now - 0.5, measured: false)
            #expect(p.missing == 0 && p.discarded == 0)
            #expect(p.uptime + Self.period - now <= Self.period + 1e-9, "read \(reads): the chunk ends at most a period after the clock")
            frames += Self.chunk
            reads += 1
            now += 0.000_05 // reading costs almost nothing
        }
        // The last chunk read before the end ends at most a period after it.
        #expect(Double(frames) / Self.rate - 2 <= Self.period + 1e-9 && Double(frames) / Self.rate > 2 - Self.period, "\(frames) frames in 2 s")
    }

    /// After an overrun the next chunk anchors anew: the frames lost meanwhile (from where the
    /// count stopped) are one gap, and the count never goes back.
    @Test func anInterruptionIsMeasuredFromWhereTheCountStopped() {
        var timeline = AudioTimeline(rate: Self.rate, tolerance: Self.period)
        _ = timeline.place(frames: Self.chunk, observed: 10, measured: true)
        timeline.interrupt()
        let p = timeline.place(frames: Self.chunk, observed: 10.52, measured: true)
        #expect(p.missing == 24_000 && p.uptime == 10.52)
        timeline.interrupt()
        let q = timeline.place(frames: Self.chunk, observed: 10.5, measured: true)
        #expect(q.missing == 0 && abs(q.uptime - 10.54) < 1e-9, "an earlier observation does not move the count back")
        // Within the tolerance, the count wins over the observation.
        let r = timeline.place(frames: Self.chunk, observed: 10.56 + 0.015, measured: true)
        #expect(abs(r.uptime - 10.56) < 1e-9 && r.missing == 0 && r.discarded == 0)
    }
}
