import Logging
import RecorderConfiguration
import RecorderEngine
import RecorderRuntime
import RecorderTestSupport
import ReplaySensors

/// The engine without the daemon: a device registry with the replayed walk (`imu0`) at `speed`,
/// probed, and a task-run registry recording into `data`.
func replayRegistries(data: String, limits: DaemonLimits = DaemonLimits(), descriptors: DescriptorBudget = DescriptorBudget(),
                      clock: any RecorderClock = SystemClock(), speed: Double = 4,
                      logger: Logger = Fixtures.logger) -> (DeviceRegistry, TaskRunRegistry) {
    var configuration = DaemonConfiguration()
    configuration.devices = [Fixtures.replayDevice(speed: speed)]
    let devices = DeviceRegistry(configuration: configuration, backends: [ReplayBackend()], baseDirectory: "/", logger: Fixtures.logger)
    devices.probeAll()
    return (devices, TaskRunRegistry(dataDirectory: data, devices: devices, ringSeconds: 30, limits: limits, descriptors: descriptors,
                                     clock: clock, logger: logger))
}
