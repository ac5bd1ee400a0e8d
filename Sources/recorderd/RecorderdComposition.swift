import AudioSensors
import BLESensors
import GaitAnalysis
import GPSSensors
import IIOSensors
import MotionFusion
import RecorderDaemon
import ReplaySensors
import TimeServices

/// What recorderd is made of: the one place its backends and analyses are chosen (the daemon and
/// the configuration loader link none of them).
enum RecorderdComposition {
    /// Replay, gpsd, IIO, ALSA and Bluetooth LE heart-rate devices; fused device motion on every
    /// device; gait analysis; the clock's synchronisation from chronyd or systemd-timesyncd.
    static let components = DaemonComponents(
        backends: { retryInterval, logger in
            [ReplayBackend(), GPSDBackend(), IIOBackend(retryInterval: retryInterval, logger: logger),
             ALSABackend(retryInterval: retryInterval, logger: logger), HeartRateBackend(logger: logger)]
        },
        stageProviders: [DeviceMotionFusion()],
        analysisProviders: [GaitAnalysisProvider()],
        clockSynchronisation: { configuration, logger in TimeServiceProbe(configuration: configuration, logger: logger) })
}
