import Logging
import RecorderModel
import Synchronization

/// Why a device cannot be used.
public enum DeviceError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknown(String)
    case unavailable(String, reason: String)
    case noDevice(AsyncActionType)
    case unsupportedSensor(String, SensorType)

    public var description: String {
        switch self {
        case .unknown(let name): return "no device named \(name.debugDescription) is configured"
        case .unavailable(let name, let reason): return "device \(name.debugDescription) is unavailable: \(reason)"
        case .noDevice(let type): return "no device for \(type.rawValue) recorders is configured"
        case .unsupportedSensor(let name, let type): return "device \(name.debugDescription) has no \(type.rawValue)"
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
    }

    public let configuration: DeviceConfiguration
    public var name: String { configuration.name }
    public var kind: String { configuration.kind }
    let source: any SensorSource
    let ringSeconds: Double
    let logger: Logger
    private let state = LockedValue(State())
    /// Serialises open/start/stop of the source (they may block briefly); never the cooperative pool.
    private let control = PThreadLock()

    public init(configuration: DeviceConfiguration, source: any SensorSource, ringSeconds: Double, logger: Logger) {
        self.configuration = configuration
        self.source = source
        self.ringSeconds = ringSeconds
        self.logger = logger
    }

    /// Most frames a ring holds (about 100 MB of motion frames), whatever the rate.
    public static let maximumRingCapacity = 1 << 20

    /// Frames for `seconds` at `rate`, at least 64 and at most `maximumRingCapacity`.
    public static func ringCapacity(rate: Double, seconds: Double) -> Int {
        Int(saturating: min(Double(maximumRingCapacity), max(64, (rate * seconds).rounded(.up))))
    }

    /// Opens the device if it is not open; returns whether it is usable.
    @discardableResult
    public func probe() -> Bool {
        control.withLock {
            if state.withLock({ $0.capabilities != nil }) { return true }
            do {
                let caps = try source.open()
                let capacity = Device.ringCapacity(rate: caps.rate, seconds: ringSeconds)
                state.withLock { s in
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

    /// Takes a lease: starts sampling if nothing else needed the device. Blocking for the source's
    /// start; call from a Dispatch queue.
    public func acquire() throws(DeviceError) -> DeviceLease {
        guard probe() else {
            throw .unavailable(name, reason: state.withLock { $0.lastError } ?? "not opened")
        }
        let failure: String? = control.withLock { () -> String? in
            let (ring, mustStart) = state.withLock { s -> (FrameRing?, Bool) in
                s.leases += 1
                return (s.ring, !s.sampling)
            }
            guard mustStart, let ring else { return nil }
            do {
                ring.heartbeat()
                try source.start(sink: ring)
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
        if let failure { throw .unavailable(name, reason: failure) }
        return DeviceLease(device: self)
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
                sensorTypes: s.capabilities?.sensorTypes ?? [],
                rate: s.capabilities?.rate, rates: s.capabilities?.availableRates,
                error: s.lastError, details: s.capabilities.map { $0.details.merging(live) { $1 } }, users: s.leases)
        }
    }
}

/// A hold on a sampling device; release it exactly once.
public final class DeviceLease: Sendable {
    public let device: Device
    private let released = Atomic<Bool>(false)

    init(device: Device) { self.device = device }

    /// Gives the lease back; the device stops sampling when no lease is left.
    public func release() {
        if !released.exchange(true, ordering: .acquiringAndReleasing) { device.release() }
    }

    deinit { release() }
}
