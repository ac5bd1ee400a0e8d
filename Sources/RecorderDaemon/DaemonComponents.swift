import Logging
import RecorderConfiguration
import RecorderEngine

/// What a recording daemon is made of: its sensor backends, the device-level stages every device
/// may run, and the analyses with action types of their own. The executable chooses them (its
/// composition root); the daemon links none of them.
public struct DaemonComponents: Sendable {
    /// The backends, made for the configuration's `retryInterval` with the daemon's logger.
    public var backends: @Sendable (_ retryInterval: Double, _ logger: Logger) -> [any SensorBackend]
    /// The device-level stages (fused device motion).
    public var stageProviders: [any FrameStageProvider]
    /// The analyses (gait).
    public var analysisProviders: [any AnalysisProvider]
    /// Where the clock's synchronisation is asked, made for the configuration's `clock` (not
    /// called when its source is `none`); nil: task results record none.
    public var clockSynchronisation: @Sendable (_ configuration: ClockConfiguration, _ logger: Logger) -> (any ClockSynchronisationSource)?

    public init(backends: @escaping @Sendable (_ retryInterval: Double, _ logger: Logger) -> [any SensorBackend],
                stageProviders: [any FrameStageProvider] = [], analysisProviders: [any AnalysisProvider] = [],
                clockSynchronisation: @escaping @Sendable (_ configuration: ClockConfiguration, _ logger: Logger) -> (any ClockSynchronisationSource)? = { _, _ in nil }) {
        self.backends = backends
        self.stageProviders = stageProviders
        self.analysisProviders = analysisProviders
        self.clockSynchronisation = clockSynchronisation
    }

    /// The device kinds a configuration is checked with: each backend's, with the stages' keys
    /// and checks.
    public var deviceKinds: DeviceKinds {
        DeviceKinds(backends: backends(1, Logger(label: "recorderd.check")), stages: stageProviders)
    }
}
