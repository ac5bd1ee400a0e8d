import AudioSensors
import GaitAnalysis
import GPSSensors
import IIOSensors
import MotionFusion
import RecorderDaemon
import ReplaySensors

extension DaemonComponents {
    /// What the `recorderd` executable is made of (its `RecorderdComposition`), for daemons the
    /// tests and benchmarks run in-process.
    public static let recorderd = DaemonComponents(
        backends: { retry, logger in [ReplayBackend(), GPSDBackend(), IIOBackend(retryInterval: retry, logger: logger), ALSABackend(retryInterval: retry, logger: logger)] },
        stageProviders: [DeviceMotionFusion()], analysisProviders: [GaitAnalysisProvider()])
}
