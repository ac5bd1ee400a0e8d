import Dispatch
import Logging
import RecorderEngine
import RecorderModel
import RecorderRuntime
import ServiceLifecycle

/// Keeps the daemon healthy: retries unavailable devices, finishes abandoned task runs, and on
/// shutdown closes every run as `interrupted` (files flushed and fsynced).
struct SupervisorService: Service {
    let devices: DeviceRegistry
    let runs: TaskRunRegistry
    let retryInterval: Double
    let orphanTimeout: Double
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                _ = await Self.onBlockingQueue { devices.probeAll() }
                await runs.sweepOrphans(timeout: orphanTimeout)
                try? await Task.sleep(for: .seconds(retryInterval))
            }
        }
        await runs.interruptAll()
        logger.info("recordings closed")
    }

    /// Runs a blocking call (device open) off the cooperative pool.
    static func onBlockingQueue<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await QueueHandOff.blocking(body)
    }
}
