import FoundationEssentials
import Glibc
import Logging
import RecorderConfiguration
import RecorderEngine
import RecorderModel
import RecorderSystemd
import ServiceLifecycle
import UnixSignals

/// Reloads the configuration on SIGHUP: added and removed devices take effect, devices whose
/// configuration is unchanged keep sampling (their recordings go on untouched). systemd hears
/// RELOADING=1 before and READY=1 after. A configuration that cannot be read is logged and the
/// running one kept.
struct ReloadService: Service {
    /// Reads the configuration file again (with the command line's overrides).
    let load: @Sendable () throws(ConfigurationError) -> (DaemonConfiguration, baseDirectory: String)
    let running: DaemonConfiguration
    let devices: DeviceRegistry
    let runs: TaskRunRegistry
    let notifier: SystemdNotifier
    /// True when a SIGHUP came before this service took the signal over (see CEarlySignals).
    let earlyReload: @Sendable () -> Bool
    /// Returns once the daemon has announced that it is ready (READY=1): reloads come after that.
    let ready: @Sendable () async -> Void
    let logger: Logger

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        // From here on SIGHUP reaches `signals`; one that came earlier was only noted. Reloads
        // wait until the daemon is ready (systemd hears READY=1 before any RELOADING=1).
        await ready()
        if earlyReload() { await reload() }
        await cancelWhenGracefulShutdown {
            for await _ in signals { await reload() }
        }
    }

    func reload() async {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        notifier.send("RELOADING=1\nMONOTONIC_USEC=\(UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000)")
        do {
            let (configuration, baseDirectory) = try load()
            let summary = devices.reload(configuration.devices, baseDirectory: baseDirectory)
            runs.descriptors.setOpenFileLimit(OpenFileLimit.soft, devices: configuration.devices.count)
            let available = await SupervisorService.onBlockingQueue { [devices] in devices.probeAll() }
            logger.notice("configuration reloaded", metadata: [
                "added": "\(summary.added.joined(separator: ","))", "removed": "\(summary.removed.joined(separator: ","))",
                "changed": "\(summary.changed.joined(separator: ","))", "unchanged": "\(summary.unchanged.joined(separator: ","))",
                "available": "\(available)",
            ])
            let fixed = Self.restartOnlyChanges(running, configuration)
            if !fixed.isEmpty {
                logger.warning("configuration keys changed that take effect on restart only", metadata: ["keys": "\(fixed.joined(separator: ","))"])
            }
        } catch {
            logger.error("configuration reload failed; keeping the running configuration", metadata: ["error": "\(error.message)"])
        }
        notifier.send("READY=1\nSTATUS=\(await SystemdService.summary(devices: devices, runs: runs))")
    }

    /// Keys that differ between `old` and `new` but only take effect on restart.
    static func restartOnlyChanges(_ old: DaemonConfiguration, _ new: DaemonConfiguration) -> [String] {
        var keys: [String] = []
        if old.socket != new.socket { keys.append("socket") }
        if old.socketMode != new.socketMode { keys.append("socketMode") }
        if old.dataDirectory != new.dataDirectory { keys.append("dataDirectory") }
        if old.ringSeconds != new.ringSeconds { keys.append("ringSeconds") }
        if old.orphanTimeout != new.orphanTimeout { keys.append("orphanTimeout") }
        if old.retryInterval != new.retryInterval { keys.append("retryInterval") }
        if old.stallTimeout != new.stallTimeout { keys.append("stallTimeout") }
        if old.http != new.http { keys.append("http") }
        if old.mqtt != new.mqtt { keys.append("mqtt") }
        return keys
    }
}
