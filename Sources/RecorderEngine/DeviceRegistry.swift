import Logging
import RecorderModel

/// The configured devices, made by their backends.
public final class DeviceRegistry: Sendable {
    public let devices: [Device]
    /// Devices whose configuration could not be used at all (bad keys): name and reason.
    public let invalid: [DeviceInfo]
    /// The action types each device kind serves, from the backends.
    let served: [String: Set<AsyncActionType>]
    let backends: [any SensorBackend]
    let configurations: [DeviceConfiguration]

    public init(configuration: DaemonConfiguration, backends: [any SensorBackend], baseDirectory: String, logger: Logger) {
        var devices: [Device] = []
        var invalid: [DeviceInfo] = []
        for (index, deviceConfiguration) in configuration.devices.enumerated() {
            guard let backend = backends.first(where: { $0.kind == deviceConfiguration.kind }) else {
                let kinds = backends.map(\.kind).joined(separator: ", ")
                let reason = "devices[\(index)].kind: unknown kind \(deviceConfiguration.kind.debugDescription): expected one of \(kinds)"
                logger.error("device not usable", metadata: ["device": "\(deviceConfiguration.name)", "error": "\(reason)"])
                invalid.append(DeviceInfo(name: deviceConfiguration.name, kind: deviceConfiguration.kind, state: .unavailable, sensorTypes: [], error: reason))
                continue
            }
            do {
                let source = try backend.makeSource(configuration: deviceConfiguration, baseDirectory: baseDirectory)
                devices.append(Device(configuration: deviceConfiguration, source: source, ringSeconds: configuration.ringSeconds, logger: logger))
            } catch {
                let reason = "devices[\(index)]: \(error.message)"
                logger.error("device not usable", metadata: ["device": "\(deviceConfiguration.name)", "error": "\(reason)"])
                invalid.append(DeviceInfo(name: deviceConfiguration.name, kind: deviceConfiguration.kind, state: .unavailable, sensorTypes: [], error: reason))
            }
        }
        self.devices = devices
        self.invalid = invalid
        self.backends = backends
        configurations = configuration.devices
        served = Dictionary(backends.map { ($0.kind, $0.servedActionTypes) }, uniquingKeysWith: { $0.union($1) })
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
        guard let device = devices.first(where: { served[$0.kind]?.contains(action.type) == true }) else { throw .noDevice(action.type) }
        return device
    }

    /// The hardware every backend finds (blocking: call off the cooperative pool).
    public func discoverHardware() -> [HardwareDevice] {
        backends.flatMap { backend in backend.discover(configurations: configurations.filter { $0.kind == backend.kind }) }
    }

    /// Sampling devices whose thread has not shown life for too long (see `Device.stall`).
    public func stalledDevices(now: Double, minimum: Double) -> [(name: String, silentSeconds: Double)] {
        devices.compactMap { d in d.stall(now: now, minimum: minimum).map { (d.name, $0) } }
    }

    /// Every device as `devices.list` shows it.
    public var infos: [DeviceInfo] { devices.map(\.info) + invalid }
}
