import FoundationEssentials
import Glibc

/// Finds initial contacts (heel strikes: one per step) in the vertical acceleration of a
/// lower-back IMU as the samples arrive: the continuous-wavelet method of McCamley et al. (J.
/// McCamley, M. Donati, E. Grimpampi, C. Mazzà, "An enhanced estimate of initial contact and
/// final contact instants of time using lower trunk inertial sensor data", Gait & Posture 36(2),
/// 2012) in the form Paraschiv-Ionescu et al. use it (EMBC 2020: resampled to 40 Hz, integrated,
/// a Gaussian-derivative wavelet, contacts at the minima between zero crossings).
///
/// Integrating the acceleration and taking the wavelet of a Gaussian's second derivative is, up to
/// scale, the first derivative of the Gaussian-smoothed acceleration: this detector computes that
/// directly with a finite kernel, so that each output needs only `kernelHalfWidth` bins of
/// look-ahead — a contact is known about 0.4 s after the heel strike plus the rest of its
/// wavelet lobe. A contact is the lowest point of a negative lobe of that signal (the steepest
/// rise of the vertical acceleration) if the lobe is deep enough: at least `minimumDepth` (g/s),
/// and at least `relativeDepth` × the signal's RMS over the last `rmsWindow` seconds (so a
/// sway while standing after strong steps is not a step). And a contact needs walking around it:
/// the vertical acceleration's standard deviation over the `activityBefore` seconds before it
/// and the look-ahead after it must reach `minimumActivity` (g) — the activity threshold of
/// gait-sequence detectors (Iluz et al., "Automated detection of missteps during community
/// ambulation in patients with Parkinson's disease", J NeuroEng Rehabil 11:48, 2014, gate their
/// windows on the same standard deviation): quiet standing, whose sway the relative threshold
/// follows down once it has lasted longer than `rmsWindow`, and the shuffling and turning of daily
/// living have lobes but not the vertical bounce of steps.
///
/// Pure: no clock, no I/O. Feed samples in time order with `add`; a pause longer than one bin
/// (a gap) starts afresh.
public struct InitialContactDetector: Sendable {
    /// The analysis rate, Hz: samples are averaged into bins of 1/40 s.
    public static let rate = 40.0
    /// The lowest sampling rate the method works from, Hz.
    public static let minimumInputRate = 40.0

    public struct Settings: Sendable, Equatable {
        /// σ of the Gaussian, seconds.
        public var sigma = 0.12
        public var minimumDepth = 0.03
        public var relativeDepth = 0.3
        public var rmsWindow = 4.0
        /// The least standard deviation of vertical acceleration (g) around a contact, over
        /// `activityBefore` seconds before it and the look-ahead after it. Walking has 0.08–0.2 g;
        /// quiet standing 0.01 g or less. 0 turns the gate off.
        public var minimumActivity = 0.05
        public var activityBefore = 1.6
        /// Added to each contact's time: the steepest rise comes ~0.05 s before the heel strike
        /// the reference (INDIP, foot-worn) marks.
        public var delay = 0.05
        /// Seconds a lobe's lowest point waits for the lobe to end before it is reported anyway
        /// (a slow rise at gait initiation keeps a lobe open for a second or more): bounds the
        /// detector's latency at about `kernelHalfWidth` + this.
        public var longestWait = 0.5

        public init() {}
    }

    public let settings: Settings
    private let kernel: [Double]
    private var binStart: Int?
    private var binSum = 0.0
    private var binCount = 0
    /// The last 2h + 1 bin values (h: half the kernel), oldest first.
    private var window: [Double] = []
    private var windowStart = 0
    /// Squares of the last outputs, for the RMS.
    private var squares: [Double] = []
    private var squaresIndex = 0
    private var squaresSum = 0.0
    private var squaresFilled = 0
    private var previousOutput: Double?
    private var lobe: (minimum: Double, bin: Int, rms: Double, reported: Bool)?
    /// The last `history.count` bin values, by bin number modulo the count; bins from
    /// `historyFirst` on are real (the rest: before the signal began).
    private var history: [Double]
    private var historyFirst: Int?
    /// The last whole bin: its start (seconds) and mean value (for measures on the 40 Hz signal).
    public private(set) var lastBin: (time: Double, value: Double)?

    public init(settings: Settings = Settings()) {
        self.settings = settings
        let h = Self.kernelHalfWidth(settings)
        var taps: [Double] = []
        var normaliser = 0.0
        for k in -h...h {
            let t = Double(k) / Self.rate
            let gauss = exp(-t * t / (2 * settings.sigma * settings.sigma))
            normaliser += gauss
            taps.append(-t / (settings.sigma * settings.sigma) * gauss)
        }
        kernel = taps.map { $0 / normaliser }
        squares = [Double](repeating: 0, count: max(1, Int((settings.rmsWindow * Self.rate).rounded())))
        // Room for the activity window, the look-ahead and the longest wait.
        let reach = Int(((settings.activityBefore + settings.longestWait) * Self.rate).rounded(.up)) + 2 * (h + 1)
        history = [Double](repeating: 0, count: max(8, reach))
    }

    /// Bins on each side of the kernel's centre (3σ).
    public static func kernelHalfWidth(_ settings: Settings) -> Int { Int((3 * settings.sigma * rate).rounded(.up)) }

    /// One sample of vertical acceleration (g, up positive, gravity removed) at `uptime`
    /// seconds; returns the contacts (uptimes) it confirmed.
    public mutating func add(uptime: Double, verticalAcceleration value: Double) -> [Double] {
        let bin = Int((uptime * Self.rate).rounded(.down))
        guard let current = binStart else {
            binStart = bin
            binSum = value
            binCount = 1
            return []
        }
        if bin == current {
            binSum += value
            binCount += 1
            return []
        }
        var contacts: [Double] = []
        let mean = binSum / Double(binCount)
        lastBin = (Double(current) / Self.rate, mean)
        if let contact = push(mean, bin: current) { contacts.append(contact) }
        if bin != current + 1 { reset() }
        binStart = bin
        binSum = value
        binCount = 1
        return contacts
    }

    /// The end of the signal (a step ends, a recording stops): the bin being filled and `h` bins of
    /// zero after it (the signal is taken as still beyond its end, as before its start), so that
    /// contacts of the last `h` bins are found too. Returns them; the detector starts afresh.
    public mutating func finish() -> [Double] {
        guard let current = binStart else { return [] }
        var contacts: [Double] = []
        let mean = binSum / Double(binCount)
        lastBin = (Double(current) / Self.rate, mean)
        if let contact = push(mean, bin: current) { contacts.append(contact) }
        for k in 1...(kernel.count / 2 + 1) {
            if let contact = push(0, bin: current + k) { contacts.append(contact) }
        }
        binStart = nil
        reset()
        return contacts
    }

    /// Forgets the signal (after a gap), keeping the settings.
    public mutating func reset() {
        window.removeAll(keepingCapacity: true)
        for i in squares.indices { squares[i] = 0 }
        squaresSum = 0
        squaresIndex = 0
        squaresFilled = 0
        previousOutput = nil
        lobe = nil
        historyFirst = nil
    }

    /// One bin's mean: the wavelet output for the bin `h` earlier, and a contact if a lobe ended.
    private mutating func push(_ value: Double, bin: Int) -> Double? {
        if window.isEmpty {
            // The signal is taken as still (zero) before its start, so that contacts of its
            // first `h` bins are found too.
            windowStart = bin - kernel.count / 2
            window.append(contentsOf: repeatElement(0, count: kernel.count / 2))
        }
        window.append(value)
        if bin >= 0 {
            if historyFirst == nil { historyFirst = bin }
            history[bin % history.count] = value
        }
        guard window.count == kernel.count else { return nil }
        var output = 0.0
        for (x, g) in zip(window, kernel) { output += x * g }
        let outputBin = bin - kernel.count / 2
        window.removeFirst()
        squaresSum += output * output - squares[squaresIndex]
        squares[squaresIndex] = output * output
        squaresIndex = (squaresIndex + 1) % squares.count
        squaresFilled = min(squaresFilled + 1, squares.count)
        defer { previousOutput = output }
        guard let previous = previousOutput else { return nil }
        if previous >= 0, output < 0 {
            lobe = (output, outputBin, rms, false)
        } else if let current = lobe {
            if output < 0 {
                if current.reported { return nil }
                if output < current.minimum {
                    lobe = (output, outputBin, rms, false)
                } else if Double(outputBin - current.bin) >= settings.longestWait * Self.rate, qualifies(current) {
                    // The lowest point has stood long enough: reported now, the lobe's rest ignored.
                    lobe!.reported = true
                    return isActive(around: current.bin, newest: bin) ? Double(current.bin) / Self.rate + settings.delay : nil
                }
            } else {
                lobe = nil
                if !current.reported, qualifies(current), isActive(around: current.bin, newest: bin) {
                    return Double(current.bin) / Self.rate + settings.delay
                }
            }
        }
        return nil
    }

    /// True when a lobe is deep enough to be a contact.
    private func qualifies(_ lobe: (minimum: Double, bin: Int, rms: Double, reported: Bool)) -> Bool {
        let depth = -lobe.minimum
        return depth >= settings.minimumDepth && depth >= settings.relativeDepth * lobe.rms
    }

    /// True when the vertical acceleration from `activityBefore` seconds before `bin` up to the
    /// `newest` bin varies by at least `minimumActivity` (standard deviation), and at least half of
    /// that window is signal.
    private func isActive(around bin: Int, newest: Int) -> Bool {
        guard settings.minimumActivity > 0 else { return true }
        // Half the window of real signal at least: not the first moments of a recording, while the
        // fusion's gravity settles.
        guard let first = historyFirst, bin - first >= Int((settings.activityBefore * Self.rate / 2).rounded()) else { return false }
        let from = max(first, bin - Int((settings.activityBefore * Self.rate).rounded()), newest - history.count + 1)
        guard newest > from else { return false }
        var sum = 0.0, squares = 0.0
        for b in from...newest {
            let x = history[b % history.count]
            sum += x
            squares += x * x
        }
        let n = Double(newest - from + 1)
        let variance = max(0, squares / n - (sum / n) * (sum / n))
        return variance >= settings.minimumActivity * settings.minimumActivity
    }

    /// RMS of the outputs in the window (of those so far, before it is full).
    private var rms: Double { (max(0, squaresSum) / Double(max(1, squaresFilled))).squareRoot() }
}
