import Logging
import RecorderConfiguration
import RecorderModel
import RecorderRuntime
import Synchronization

/// Why a device cannot be used.
public enum DeviceError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknown(String)
    case unavailable(String, reason: String)
    case noDevice(AsyncActionType)
    case unsupportedSensor(String, SensorType)
    /// The device cannot feed an analysis (`gait`): why.
    case analysisRefused(String, AsyncActionType, reason: String)

    public var description: String {
        switch self {
        case .unknown(let name): return "no device named \(name.debugDescription) is configured"
        case .unavailable(let name, let reason): return "device \(name.debugDescription) is unavailable: \(reason)"
        case .noDevice(let type): return "no device for \(type.rawValue) recorders is configured"
        case .unsupportedSensor(let name, let type) where type.isFused:
            return "device \(name.debugDescription) has no \(type.rawValue): fused device motion needs an accelerometer and a gyroscope"
        case .unsupportedSensor(let name, let type): return "device \(name.debugDescription) has no \(type.rawValue)"
        case .analysisRefused(let name, let type, let reason):
            return "device \(name.debugDescription) cannot feed a \(type.rawValue) analysis: \(reason)"
        }
    }
}

/// A configured device: its source, its ring, and who needs it. It samples only while at least
/// one lease is held (a recording, an armed pre-roll, a live subscriber).
public final class Device: Sendable {
    struct State {
        var capabilities: DeviceCapabilities?
        var lastError: String?
        var ring: FrameRing?
        var leases = 0
        var sampling = false
        /// Its stages (fused motion), made when it first opens and kept: their state is
        /// continuous across recordings and restarts.
        var slots: [StageSlot]?
    }

    public let configuration: DeviceConfiguration
    public var name: String { configuration.name }
    public var kind: String { configuration.kind }
    let source: any SensorSource
    let ringSeconds: Double
    let stageProviders: [any FrameStageProvider]
    /// Analyses live subscribers may ask for by their streamed type.
    let analysisProviders: [any AnalysisProvider]
    let logger: Logger
    private let state = LockedValue(State())
    /// Serialises open/start/stop of the source (they may block briefly); never the cooperative pool.
    private let control = PThreadLock()

    /// `stageProviders`: the device-level stages it may run (their configuration was validated).
    public init(configuration: DeviceConfiguration, source: any SensorSource, ringSeconds: Double,
                stageProviders: [any FrameStageProvider] = [], analysisProviders: [any AnalysisProvider] = [], logger: Logger) {
        self.configuration = configuration
        self.source = source
        self.ringSeconds = ringSeconds
        self.stageProviders = stageProviders
        self.analysisProviders = analysisProviders
        self.logger = logger
    }

    /// The analysis whose events a live subscriber asking for `type` receives.
    func analysis(streaming type: SensorType) -> (any AnalysisProvider)? {
        analysisProviders.first { $0.streamedType == type }
    }

    /// Most frames a ring holds (about 100 MB of motion frames), whatever the rate.
    public static let maximumRingCapacity = 1 << 20

    /// Frames for `seconds` at `rate`, at least 64 and at most `maximumRingCapacity`.
    public static func ringCapacity(rate: Double, seconds: Double) -> Int {
        Int(saturating: min(Double(maximumRingCapacity), max(64, (rate * seconds).rounded(.up))))
    }

    /// The stages for the device as opened. A stage its configuration asks for that the device's
    /// sensors cannot feed (fusion on an IIO device without a gyroscope: its configuration did not
    /// say) is left out with a warning; the raw sensors still record.
    private func makeSlots(_ caps: DeviceCapabilities) -> [StageSlot] {
        stageProviders.compactMap { provider in
            do throws(ConfigurationError) {
                try provider.validate(configuration, sensorTypes: caps.sensorTypes)
            } catch {
                logger.warning("device cannot do what its configuration asks", metadata: ["device": "\(name)", "error": "\(error.message)"])
            }
            return provider.makeStage(configuration: configuration, capabilities: caps).map(StageSlot.init)
        }
    }

    /// Opens the device if it is not open; returns whether it is usable.
    @discardableResult
    public func probe() -> Bool {
        control.withLock {
            if state.withLock({ $0.capabilities != nil }) { return true }
            do {
                var caps = try source.open()
                let capacity = Device.ringCapacity(rate: caps.rate, seconds: ringSeconds)
                let slots = state.withLock { $0.slots } ?? makeSlots(caps)
                for slot in slots {
                    caps.sensorTypes += slot.stage.addedTypes.filter { !caps.sensorTypes.contains($0) }
                }
                state.withLock { s in
                    s.slots = slots
                    s.capabilities = caps
                    s.lastError = nil
                    if s.ring == nil || s.ring!.capacity != capacity { s.ring = FrameRing(capacity: capacity) }
                }
                logger.info("device opened", metadata: ["device": "\(name)", "rate": "\(caps.rate)"])
                return true
            } catch {
                let changed = state.withLock { s -> Bool in
                    let message = "\(error)"
                    defer { s.lastError = message }
                    return s.lastError != message
                }
                if changed { logger.warning("device unavailable", metadata: ["device": "\(name)", "error": "\(error)"]) }
                return false
            }
        }
    }

    /// True when opened.
    public var isAvailable: Bool { state.withLock { $0.capabilities != nil } }

    /// The capabilities, once opened.
    public var capabilities: DeviceCapabilities? { state.withLock { $0.capabilities } }

    /// The ring, once opened.
    public var ring: FrameRing? { state.withLock { $0.ring } }

    /// Takes a lease for readers of `types`: starts sampling if nothing else needed the device, and
    /// runs the stages that add any of `types` while the lease is held. Blocking for the source's
    /// start; call from a Dispatch queue.
    public func acquire(for types: [SensorType] = []) throws(DeviceError) -> DeviceLease {
        guard probe() else {
            throw .unavailable(name, reason: state.withLock { $0.lastError } ?? "not opened")
        }
        let slots = (state.withLock { $0.slots } ?? []).filter { slot in slot.stage.addedTypes.contains(where: types.contains) }
        for slot in slots { slot.demand.add(1, ordering: .relaxed) }
        let failure: String? = control.withLock { () -> String? in
            let (ring, mustStart, allSlots) = state.withLock { s -> (FrameRing?, Bool, [StageSlot]) in
                s.leases += 1
                return (s.ring, !s.sampling, s.slots ?? [])
            }
            guard mustStart, let ring else { return nil }
            do {
                ring.heartbeat()
                try source.start(sink: allSlots.isEmpty ? ring : StagedFrameSink(ring: ring, slots: allSlots))
                state.withLock { $0.sampling = true }
                logger.debug("device sampling", metadata: ["device": "\(name)"])
                return nil
            } catch {
                state.withLock { s in
                    s.leases -= 1
                    s.lastError = "\(error)"
                    s.capabilities = nil
                }
                return "\(error)"
            }
        }
        if let failure {
            for slot in slots { slot.demand.subtract(1, ordering: .relaxed) }
            throw .unavailable(name, reason: failure)
        }
        return DeviceLease(device: self, slots: slots)
    }

    func release() {
        control.withLock {
            let mustStop = state.withLock { s -> Bool in
                s.leases -= 1
                if s.leases == 0 && s.sampling {
                    s.sampling = false
                    return true
                }
                return false
            }
            if mustStop {
                source.stop()
                logger.debug("device idle", metadata: ["device": "\(name)"])
            }
        }
    }

    /// Seconds since the sampling thread last showed life, when it is sampling and overdue by
    /// more than `max(minimum, 2 × longestBlock)`: a wedged recorder. nil when healthy or idle.
    public func stall(now: Double, minimum: Double) -> Double? {
        guard let ring = state.withLock({ $0.sampling ? $0.ring : nil }) else { return nil }
        let silent = now - ring.lastHeartbeatUptime
        return silent > max(minimum, 2 * source.longestBlock) ? silent : nil
    }

    /// The device as `devices.list` shows it.
    public var info: DeviceInfo {
        let live = source.liveDetails
        return state.withLock { s in
            DeviceInfo(
                name: name, kind: kind,
                state: s.capabilities == nil ? .unavailable : (s.sampling ? .sampling : .available),
                sensorTypes: s.capabilities?.sensorTypes.filter { !$0.isFused } ?? [],
                fusedTypes: s.capabilities.map { $0.sensorTypes.filter(\.isFused) }.flatMap { $0.isEmpty ? nil : $0 },
                rate: s.capabilities?.rate, rates: s.capabilities?.availableRates,
                error: s.lastError, details: s.capabilities.map { $0.details.merging(live) { $1 } }, users: s.leases)
        }
    }
}

/// A hold on a sampling device; release it exactly once.
public final class DeviceLease: Sendable {
    public let device: Device
    /// The stages this lease asked for.
    let slots: [StageSlot]
    private let released = Atomic<Bool>(false)

    init(device: Device, slots: [StageSlot]) {
        self.device = device
        self.slots = slots
    }

    /// Gives the lease back; the device stops sampling when no lease is left.
    public func release() {
        if !released.exchange(true, ordering: .acquiringAndReleasing) {
            for slot in slots { slot.demand.subtract(1, ordering: .relaxed) }
            device.release()
        }
    }

    deinit { release() }
}
