import RecorderConfiguration
import RecorderJSON
import RecorderModel

extension DeviceKinds.Kind {
    /// The kind of `backend`'s devices, with the device-level stages every device may run
    /// (`stages`): its entries' keys are the backend's and the stages', and an entry's problems
    /// are those its backend finds making a source (nothing is opened) and each stage's.
    public init(backend: any SensorBackend, stages: [any FrameStageProvider]) {
        var stageKeys: [String: ConfigurationKeys] = [:]
        for stage in stages { stageKeys.merge(stage.configurationKeys) { first, _ in first } }
        self.init(name: backend.kind, keys: ConfigurationKeys.keys(backend.configurationKeys + ["kind"]).merging(stageKeys)) { entry, baseDirectory in
            var problems: [String] = []
            var sensorTypes: [SensorType]?
            do throws(ConfigurationError) {
                sensorTypes = try backend.makeSource(configuration: entry, baseDirectory: baseDirectory).configuredSensorTypes
            } catch {
                problems.append(error.message)
            }
            for stage in stages {
                do throws(ConfigurationError) {
                    try stage.validate(entry, sensorTypes: sensorTypes)
                } catch {
                    problems.append(error.message)
                }
            }
            return problems
        }
    }
}

extension DeviceKinds {
    /// The kinds of `backends`' devices, each with `stages`.
    public init(backends: [any SensorBackend], stages: [any FrameStageProvider]) {
        self.init(backends.map { Kind(backend: $0, stages: stages) })
    }
}
