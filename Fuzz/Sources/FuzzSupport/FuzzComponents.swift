import AudioSensors
import GaitAnalysis
import GPSSensors
import IIOSensors
import MotionFusion
import RecorderDaemon
import ReplaySensors

/// What the `recorderd` executable is made of, for the fuzzed daemon and the configuration checks
/// (every backend's decoder sees the fuzzed device entries).
enum FuzzComponents {
    static let recorderd = DaemonComponents(
        backends: { retry, logger in [ReplayBackend(), GPSDBackend(), IIOBackend(retryInterval: retry, logger: logger), ALSABackend(retryInterval: retry, logger: logger)] },
        stageProviders: [DeviceMotionFusion()], analysisProviders: [GaitAnalysisProvider()])
}
