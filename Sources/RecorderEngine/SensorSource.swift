import RecorderConfiguration
import RecorderModel

/// What a device can measure, learnt when it is opened.
public struct DeviceCapabilities: Sendable, Equatable {
    public var sensorTypes: [SensorType]
    /// The actual sampling rate in Hz (frames per second).
    public var rate: Double
    /// Rates the device can be set to, when known.
    public var availableRates: [Double]?
    /// The unit each sensor type is delivered in (always the file units).
    public var details: [String: String]
    /// One count of each axis in the file unit, for the sensor types whose values are whole
    /// counts of the device (an IIO channel's scale): their records are written as the shortest
    /// decimal that gives the count back (`QuantizedDecimal`). Others are written in full.
    public var quanta: [SensorType: Vector3]

    public init(sensorTypes: [SensorType], rate: Double, availableRates: [Double]? = nil, details: [String: String] = [:],
                quanta: [SensorType: Vector3] = [:]) {
        self.sensorTypes = sensorTypes
        self.rate = rate
        self.availableRates = availableRates
        self.details = details
        self.quanta = quanta
    }
}

/// Where a sensor source delivers its frames: the device's ring.
public protocol FrameSink: AnyObject, Sendable {
    /// Appends frames measured in time order. Never blocks on readers. Counts as a heartbeat.
    func deliver(_ frames: consuming [SensorFrame])
    /// The sampling thread is alive (waiting, retrying or sampling): sources call it at least once
    /// per `SensorSource.longestBlock` seconds, so a wedged thread can be told from an idle one.
    func heartbeat()
}

extension FrameSink {
    public func heartbeat() {}
}

/// A sensor backend's device: the one type each backend (replay, libiio, gpsd, ALSA) implements.
///
/// `open()` probes the device; `start(sink:)` begins sampling on the source's own thread or
/// Dispatch queue (never the cooperative pool) and delivers frames in file units with
/// CLOCK_MONOTONIC `uptime`s; `stop()` cancels the blocking call explicitly and returns after the
/// last delivery. Losses are delivered as `.gap` frames and failures as `.fault` frames; a source
/// that loses its device keeps retrying until `stop()`.
public protocol SensorSource: AnyObject, Sendable {
    /// Opens or probes the device. Throws when the device cannot be used now; called again on retry.
    func open() throws -> DeviceCapabilities
    /// Starts sampling; frames go to `sink` until `stop()`.
    func start(sink: any FrameSink) throws
    /// Stops sampling; returns after the last delivery.
    func stop()
    /// State that changes while sampling (connection, fix mode…), shown by `devices.list`.
    var liveDetails: [String: String] { get }
    /// The longest the sampling thread may legitimately go without a heartbeat (a blocking read
    /// with its timeout), in seconds.
    var longestBlock: Double { get }
    /// The sensor types its configuration alone fixes, before the device is opened (a replay
    /// file's columns, an IIO device's `sensorTypes`); nil when only opening the device tells.
    var configuredSensorTypes: [SensorType]? { get }
}

extension SensorSource {
    /// Known only once opened, by default.
    public var configuredSensorTypes: [SensorType]? { nil }
    /// No live details by default.
    public var liveDetails: [String: String] { [:] }
    /// One second by default.
    public var longestBlock: Double { 1 }
}

/// Makes sensor sources of one device kind from their configuration.
public protocol SensorBackend: Sendable {
    /// The device `kind` this backend serves (`replay`, `iio`, `gpsd`, `alsa`).
    var kind: String { get }
    /// The async-action types its devices serve (a motion recorder takes the first device whose
    /// backend serves `.motion`, unless the action names a device).
    var servedActionTypes: Set<AsyncActionType> { get }
    /// The keys of its device entries (besides `kind`), to warn about unknown ones.
    var configurationKeys: [String] { get }
    /// Decodes `configuration` and makes its source. Relative paths resolve against `baseDirectory`.
    func makeSource(configuration: DeviceConfiguration, baseDirectory: String) throws(ConfigurationError) -> any SensorSource
    /// The devices of this kind found on the machine, configured or not (`configurations`: the
    /// configured devices of this kind, e.g. for their URIs). Blocking; call off the cooperative pool.
    func discover(configurations: [DeviceConfiguration]) -> [HardwareDevice]
    /// Looks for devices of this kind nearby for `seconds` through `adapter` (a Bluetooth LE
    /// scan): what it found, or why it could not look. Blocking; call off the cooperative pool.
    /// Backends that cannot scan say so.
    func scan(seconds: Double, adapter: String?) -> Result<[HardwareDevice], DeviceScanFailure>
}

/// Why a `devices.scan` found nothing to list: the backend cannot scan, or its scan failed.
public struct DeviceScanFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    /// True when the kind cannot scan at all (an invalid request, not a failure of the machine).
    public var unsupported: Bool

    public init(_ description: String, unsupported: Bool = false) {
        self.description = description
        self.unsupported = unsupported
    }
}

extension SensorBackend {
    /// Nothing to discover by default.
    public func discover(configurations: [DeviceConfiguration]) -> [HardwareDevice] { [] }
    /// No scanning by default.
    public func scan(seconds: Double, adapter: String?) -> Result<[HardwareDevice], DeviceScanFailure> {
        .failure(DeviceScanFailure("\(kind) devices are not scanned for", unsupported: true))
    }
}
