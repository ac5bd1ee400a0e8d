import Logging
import RecorderConfiguration
import RecorderModel
import RecorderRuntime
import Synchronization

/// The configured devices, made by their backends. A configuration reload replaces the set:
/// unchanged devices keep their `Device` (and whatever is sampling from it).
public final class DeviceRegistry: Sendable {
    struct State {
        var devices: [Device]
        /// Devices whose configuration could not be used at all (bad keys): name and reason.
        var invalid: [DeviceInfo]
        var configurations: [DeviceConfiguration]
    }

    /// What a reload changed, by device name.
    public struct ReloadSummary: Sendable, Equatable {
        public var added: [String] = []
        public var removed: [String] = []
        public var changed: [String] = []
        public var unchanged: [String] = []
    }

    private let state: LockedValue<State>
    /// The action types each device kind serves, from the backends.
    let served: [String: Set<AsyncActionType>]
    let backends: [any SensorBackend]
    /// A `devices.scan` is under way.
    private let scanning = Atomic<Bool>(false)
    /// Device-level stages (fused motion) every device may run.
    let stageProviders: [any FrameStageProvider]
    /// Analyses with action types of their own (gait), run on the devices' frames.
    let analysisProviders: [any AnalysisProvider]
    let ringSeconds: Double
    let baseDirectory: String
    let logger: Logger

    public init(configuration: DaemonConfiguration, backends: [any SensorBackend], stageProviders: [any FrameStageProvider] = [],
                analysisProviders: [any AnalysisProvider] = [], baseDirectory: String, logger: Logger) {
        self.backends = backends
        self.stageProviders = stageProviders
        self.analysisProviders = analysisProviders
        ringSeconds = configuration.ringSeconds
        self.baseDirectory = baseDirectory
        self.logger = logger
        served = Dictionary(backends.map { ($0.kind, $0.servedActionTypes) }, uniquingKeysWith: { $0.union($1) })
        state = LockedValue(State(devices: [], invalid: [], configurations: []))
        _ = reload(configuration.devices, baseDirectory: baseDirectory)
    }

    /// The devices now configured.
    public var devices: [Device] { state.withLock { $0.devices } }

    /// Devices whose configuration could not be used (name and reason).
    public var invalid: [DeviceInfo] { state.withLock { $0.invalid } }

    /// Replaces the configured devices. A device whose configuration is the same keeps its
    /// `Device`, so its recordings and subscribers go on untouched; a removed or changed device
    /// leaves the list at once and stops sampling when its last recording or subscriber ends.
    @discardableResult
    public func reload(_ configurations: [DeviceConfiguration], baseDirectory: String? = nil) -> ReloadSummary {
        let base = baseDirectory ?? self.baseDirectory
        let current = state.withLock { s in Dictionary(uniqueKeysWithValues: s.devices.map { ($0.name, $0) }) }
        let previous = state.withLock { s in Dictionary(s.configurations.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a }) }
        var summary = ReloadSummary()
        var devices: [Device] = []
        var invalid: [DeviceInfo] = []
        for (index, deviceConfiguration) in configurations.enumerated() {
            let name = deviceConfiguration.name
            if let existing = current[name], existing.configuration == deviceConfiguration {
                devices.append(existing)
                summary.unchanged.append(name)
                continue
            }
            if previous[name] == nil { summary.added.append(name) } else { summary.changed.append(name) }
            guard let backend = backends.first(where: { $0.kind == deviceConfiguration.kind }) else {
                let kinds = backends.map(\.kind).joined(separator: ", ")
                let reason = "devices[\(index)].kind: unknown kind \(deviceConfiguration.kind.debugDescription): expected one of \(kinds)"
                logger.error("device not usable", metadata: ["device": "\(name)", "error": "\(reason)"])
                invalid.append(DeviceInfo(name: name, kind: deviceConfiguration.kind, state: .unavailable, sensorTypes: [], error: reason))
                continue
            }
            do {
                let source = try backend.makeSource(configuration: deviceConfiguration, baseDirectory: base)
                for provider in stageProviders { try provider.validate(deviceConfiguration, sensorTypes: source.configuredSensorTypes) }
                devices.append(Device(configuration: deviceConfiguration, source: source, ringSeconds: ringSeconds,
                                      stageProviders: stageProviders, analysisProviders: analysisProviders, logger: logger))
            } catch {
                let reason = "devices[\(index)]: \(error.message)"
                logger.error("device not usable", metadata: ["device": "\(name)", "error": "\(reason)"])
                invalid.append(DeviceInfo(name: name, kind: deviceConfiguration.kind, state: .unavailable, sensorTypes: [], error: reason))
            }
        }
        let names = Set(configurations.map(\.name))
        summary.removed = previous.keys.filter { !names.contains($0) }.sorted()
        state.withLock { s in
            s.devices = devices
            s.invalid = invalid
            s.configurations = configurations
        }
        return summary
    }

    /// Opens every device that is not open; returns the number available.
    @discardableResult
    public func probeAll() -> Int {
        devices.filter { $0.probe() }.count
    }

    /// The device named `name`.
    public func device(named name: String) throws(DeviceError) -> Device {
        guard let device = devices.first(where: { $0.name == name }) else { throw .unknown(name) }
        return device
    }

    /// The device for an async action: the one it names, else the first configured device of a
    /// kind that serves the action (open or not: an unavailable one gives a clear error).
    public func device(for action: AsyncActionConfiguration) throws(DeviceError) -> Device {
        if let name = action.device { return try device(named: name) }
        let type = action.type.deviceActionType
        guard let device = devices.first(where: { served[$0.kind]?.contains(type) == true }) else { throw .noDevice(type) }
        return device
    }

    /// The analysis serving `type` (gait), if the daemon has one.
    func analysis(for type: AsyncActionType) -> (any AnalysisProvider)? {
        analysisProviders.first { $0.actionType == type }
    }

    /// The hardware every backend finds (blocking: call off the cooperative pool).
    public func discoverHardware() -> [HardwareDevice] {
        let configurations = state.withLock { $0.configurations }
        return backends.flatMap { backend in backend.discover(configurations: configurations.filter { $0.kind == backend.kind }) }
    }

    /// Scans for devices of `kind` (blocking: call off the cooperative pool). One scan at a time.
    public func scan(kind: String, seconds: Double, adapter: String?) -> Result<[HardwareDevice], DeviceScanFailure> {
        guard let backend = backends.first(where: { $0.kind == kind }) else {
            return .failure(DeviceScanFailure("unknown kind \(kind.debugDescription): expected one of " + backends.map(\.kind).joined(separator: ", "),
                                              unsupported: true))
        }
        guard scanning.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return .failure(DeviceScanFailure("a scan is under way; try again when it ends"))
        }
        defer { scanning.store(false, ordering: .releasing) }
        return backend.scan(seconds: seconds, adapter: adapter)
    }

    /// Sampling devices whose thread has not shown life for too long (see `Device.stall`).
    public func stalledDevices(now: Double, minimum: Double) -> [(name: String, silentSeconds: Double)] {
        devices.compactMap { d in d.stall(now: now, minimum: minimum).map { (d.name, $0) } }
    }

    /// Every device as `devices.list` shows it.
    public var infos: [DeviceInfo] { devices.map(\.info) + invalid }
}
