import FoundationEssentials
import Glibc
import Logging
import RecorderConfiguration
import RecorderEngine
import RecorderModel
import RecorderRuntime
import RecorderSystemd

/// Asks the machine's time service how well the wall clock is synchronised: chronyd through
/// `chronyc -c tracking`, else systemd-timesyncd over D-Bus, else `unknown` with what was tried
/// (`ClockConfiguration.source` narrows it). Each question runs on a thread of `BlockingPool`,
/// never the cooperative pool, and is bounded by `timeout`. Keeps the latest answer for
/// `daemon.status` and logs each change of synchronised (never each answer).
public final class TimeServiceProbe: ClockSynchronisationSource {
    let configuration: ClockConfiguration
    /// Seconds each service may take to answer.
    let timeout: Double
    let logger: Logger
    private let latest = LockedValue<ClockSynchronisation?>(nil)
    private let refreshing = LockedValue(false)

    public init(configuration: ClockConfiguration, timeout: Double = 2, logger: Logger) {
        self.configuration = configuration
        self.timeout = timeout
        self.logger = logger
    }

    public func current() async -> ClockSynchronisation {
        await QueueHandOff.blocking { self.askNow() }
    }

    public func recent() -> ClockSynchronisation? {
        recent(maximumAge: 30)
    }

    /// The latest answer at once (nil before the first), and a new question in the background
    /// when that answer is older than `maximumAge` seconds: `daemon.status` never waits for it.
    public func recent(maximumAge: Double) -> ClockSynchronisation? {
        let last = latest.withLock { $0 }
        let stale = last.map { Date().timeIntervalSince($0.checked) >= maximumAge || $0.checked > Date() } ?? true
        if stale, refreshing.withLock({ r -> Bool in defer { r = true }; return !r }) {
            QueueHandOff.detach {
                _ = self.askNow()
                self.refreshing.withLock { $0 = false }
            }
        }
        return last
    }

    /// Asks now, blocking (a thread of its own).
    func askNow() -> ClockSynchronisation {
        var tried: [String] = []
        var state: ClockSynchronisation?
        if configuration.source == .auto || configuration.source == .chrony {
            switch askChrony() {
            case .success(let s): state = s
            case .failure(let error): tried.append("chrony: \(error)")
            }
        }
        if state == nil, configuration.source == .auto || configuration.source == .timesyncd {
            switch askTimesyncd() {
            case .success(let s): state = s
            case .failure(let error): tried.append("timesyncd: \(error)")
            }
        }
        let answer = state ?? .unknown(checked: Date(), error: tried.joined(separator: "; "))
        let previous = latest.withLock { l -> ClockSynchronisation? in defer { l = answer }; return l }
        if previous?.synchronised != answer.synchronised || previous?.source != answer.source {
            logger.info("clock synchronisation", metadata: ["state": "\(answer.summary)"])
        }
        return answer
    }

    func askChrony() -> Result<ClockSynchronisation, TimeServiceError> {
        guard access(configuration.chronyc, X_OK) == 0 else {
            return .failure(TimeServiceError("\(configuration.chronyc) is not installed (Debian's chrony)"))
        }
        let arguments = ["chronyc", "-h", configuration.chronyHost, "-p", "\(configuration.chronyPort)", "-n", "-c", "tracking"]
        switch CommandOutput.run(configuration.chronyc, arguments: arguments, timeout: timeout, limit: 4096) {
        case .failure(let error):
            return .failure(TimeServiceError("cannot run \(configuration.chronyc): \(error)"))
        case .success(let output) where output.timedOut:
            return .failure(TimeServiceError("chronyc gave no answer in \(timeout) s"))
        case .success(let output) where output.status != 0:
            let said = output.text.trimmingWhitespace()
            return .failure(TimeServiceError("chronyc -h \(configuration.chrony) failed: \(TimeServiceError.excerpt(said))"))
        case .success(let output):
            do throws(TimeServiceError) {
                return .success(try ChronyTracking.parse(output.text, checked: Date()))
            } catch {
                return .failure(error)
            }
        }
    }

    func askTimesyncd() -> Result<ClockSynchronisation, TimeServiceError> {
        let properties: [String: DBusValue]
        do throws(DBusError) {
            let bus = try DBusConnection.system(description: "recorderd-clock")
            let reply = try bus.call(destination: "org.freedesktop.timesync1", path: "/org/freedesktop/timesync1",
                                     interface: "org.freedesktop.DBus.Properties", member: "GetAll",
                                     [.string("org.freedesktop.timesync1.Manager")], timeout: timeout, autoStart: false)
            guard let map = reply.first?.map else { return .failure(TimeServiceError("GetAll answered no dictionary")) }
            properties = map
        } catch {
            return .failure(TimeServiceError("\(error)"))
        }
        // The kernel's flag; where adjtimex is denied (the service's ProtectClock= filters it even
        // to read), timesyncd's own mark of its last synchronisation.
        let synchronised = SystemCall.kernelClockSynchronised() ?? (access("/run/systemd/timesync/synchronized", F_OK) == 0)
        do throws(TimeServiceError) {
            return .success(try TimesyncdState.state(properties: properties, kernelSynchronised: synchronised, checked: Date()))
        } catch {
            return .failure(error)
        }
    }
}
