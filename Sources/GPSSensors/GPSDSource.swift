import CLibGPS
import Dispatch
import FoundationEssentials
import Glibc
import RecorderEngine
import RecorderModel
import RecorderRuntime
import Synchronization

/// Location fixes from gpsd, read through libgps on the source's own thread.
///
/// Connects lazily when sampling starts; while gpsd is absent or after it goes away, the source
/// delivers one fault (an error marker in recordings) and retries with back-off (0.5 s doubling
/// to 8 s); when fixes resume after a loss it delivers a gap with the estimated number of lost
/// fixes. `stop()` shuts the socket down, which wakes the blocked read at once.
public final class GPSDSource: SensorSource {
    public let configuration: GPSDConfiguration

    /// A gpsd device gives locations.
    public var configuredSensorTypes: [SensorType]? { [.location] }

    /// The shared state of one sampling thread and its controller.
    final class Control: Sendable {
        let wake = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let stopped = Atomic<Bool>(false)
        /// The connected socket, for `shutdown` from `stop()`.
        let socket = LockedValue<Int32?>(nil)
        let status = LockedValue<String>("not connected")
        let fixMode = LockedValue<String?>(nil)
        /// Receiver paths seen in TPV reports.
        let receivers = LockedValue<Set<String>>([])

        /// Sleeps up to `seconds`, or until stopped.
        func pause(_ seconds: Double) {
            _ = wake.wait(timeout: .now() + seconds)
        }

        func stop() {
            stopped.store(true, ordering: .releasing)
            socket.withLock { fd in if let fd { _ = shutdown(fd, Int32(SHUT_RDWR)) } }
            wake.signal()
        }
    }

    private let control = LockedValue<Control?>(nil)
    /// The connection state after the last sampling thread ended.
    final class LastStatus: Sendable {
        let value = LockedValue<String>("not connected")
    }

    private let lastStatus = LastStatus()

    public init(configuration: GPSDConfiguration) {
        self.configuration = configuration
    }

    public func open() throws -> DeviceCapabilities {
        let status = control.withLock { $0?.status.withLock { $0 } } ?? lastStatus.value.withLock { $0 }
        var details = ["host": configuration.host, "port": "\(configuration.port)", "connection": status]
        if let device = configuration.gpsDevice { details["gpsDevice"] = device }
        // Connection is lazy (when a recording or subscriber needs fixes): the device is usable
        // even while gpsd is down, and recordings then carry an error marker.
        return DeviceCapabilities(sensorTypes: [.location], rate: 1, details: details)
    }

    public var liveDetails: [String: String] {
        var details = ["connection": control.withLock { $0?.status.withLock { $0 } } ?? lastStatus.value.withLock { $0 }]
        if let mode = control.withLock({ $0?.fixMode.withLock { $0 } }) { details["fixMode"] = mode }
        if let receivers = control.withLock({ $0?.receivers.withLock { $0 } }), !receivers.isEmpty {
            details["receivers"] = receivers.sorted().joined(separator: ",")
        }
        return details
    }

    public func start(sink: any FrameSink) throws {
        let run = Control()
        control.withLock { $0 = run }
        let configuration = self.configuration
        ThreadName.start(ThreadName.sampling("gpsd", device: configuration.name)) { [lastStatus] in
            GPSDSource.sample(configuration: configuration, sink: sink, control: run)
            lastStatus.value.withLock { $0 = run.status.withLock { $0 } }
            run.done.signal()
        }
    }

    /// The longest back-off pause (8 s) plus a connection attempt.
    public var longestBlock: Double { 10 }

    public func stop() {
        guard let run = control.withLock({ c -> Control? in defer { c = nil }; return c }) else { return }
        run.stop()
        run.done.wait()
    }

    // MARK: The sampling thread

    static func sample(configuration: GPSDConfiguration, sink: any FrameSink, control: Control) {
        var backoff = 0.5
        var faulted = false
        var lastFixUptime: Double?
        var interval = 1.0
        let message = UnsafeMutablePointer<CChar>.allocate(capacity: 8192)
        defer { message.deallocate() }
        while !control.stopped.load(ordering: .acquiring) {
            sink.heartbeat()
            var data = gps_data_t()
            /// Not connected: the status says why, the first failure is a fault record, and the next
            /// attempt waits (doubling up to 8 s).
            func notConnected(status: String, fault: String) {
                control.status.withLock { $0 = "not connected: \(status)" }
                if !faulted {
                    sink.deliver([.fault(uptime: SystemClock.monotonicUptime(), description: fault)])
                    faulted = true
                }
                control.pause(backoff)
                backoff = min(backoff * 2, 8)
            }
            guard gps_open(configuration.host, "\(configuration.port)", &data) == 0 else {
                let reason = String(cString: gps_errstr(errno))
                notConnected(status: reason, fault: "gpsd not reachable at \(configuration.host):\(configuration.port): \(reason)")
                continue
            }
            // libgps waits with select(), whose fd_set holds descriptors below FD_SETSIZE only
            // (glibc aborts the process on a larger one): with more than 1,024 files open (many
            // connections) the socket is moved to a free descriptor below it, or the attempt is a
            // fault and is retried.
            // libgps types the descriptor `int` up to gpsd 3.24 (bookworm) and `gps_fd_t` after
            // (trixie): `numericCast` reads and writes it as either.
            let descriptor: Int32 = numericCast(data.gps_fd)
            if descriptor >= FD_SETSIZE {
                let low = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
                if low >= 0 && low < FD_SETSIZE {
                    close(descriptor)
                    data.gps_fd = numericCast(low)
                } else {
                    if low >= 0 { close(low) }
                    _ = gps_close(&data)
                    notConnected(status: "no descriptor below \(FD_SETSIZE) for libgps",
                                 fault: "gpsd connection needs a descriptor below \(FD_SETSIZE) (libgps uses select); \(FD_SETSIZE) are in use")
                    continue
                }
            }
            control.socket.withLock { $0 = numericCast(data.gps_fd) }
            var flags = UInt32(WATCH_ENABLE | WATCH_JSON)
            if configuration.gpsDevice != nil { flags |= UInt32(WATCH_DEVICE) }
            if let device = configuration.gpsDevice {
                _ = device.withCString { gps_stream(&data, flags, UnsafeMutableRawPointer(mutating: $0)) }
            } else {
                _ = gps_stream(&data, flags, nil)
            }
            control.status.withLock { $0 = "connected" }
            backoff = 0.5
            while !control.stopped.load(ordering: .acquiring) {
                sink.heartbeat()
                guard gps_waiting(&data, 500_000) else { continue }
                let n = gps_read(&data, message, 8192)
                if n < 0 { break }
                guard n > 0, strstr(message, "\"class\":\"TPV\"") != nil else { continue }
                let uptime = SystemClock.monotonicUptime()
                let path = withUnsafeBytes(of: data.dev.path) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if !path.isEmpty { _ = control.receivers.withLock { $0.insert(path) } }
                var frames: [SensorFrame] = []
                if faulted, let last = lastFixUptime {
                    let lost = Int(saturating: ((uptime - last) / interval).rounded()) &- 1
                    if lost > 0 { frames.append(.gap(uptime: uptime, sensorTypes: [.location], droppedSamples: lost)) }
                }
                faulted = false
                if let fix = Self.fix(from: data, uptime: uptime) {
                    control.fixMode.withLock { $0 = fix.mode >= 3 ? "3D" : fix.mode == 2 ? "2D" : "no fix" }
                    if let last = lastFixUptime, fix.mode >= 2, uptime - last > 0.05 { interval = min(interval, uptime - last) }
                    frames.append(.location(fix))
                    if fix.mode >= 2 { lastFixUptime = uptime }
                }
                sink.deliver(frames)
            }
            control.socket.withLock { $0 = nil }
            gps_close(&data)
            if !control.stopped.load(ordering: .acquiring) {
                control.status.withLock { $0 = "connection lost; reconnecting" }
                sink.deliver([.fault(uptime: SystemClock.monotonicUptime(), description: "gpsd connection lost")])
                faulted = true
                control.pause(backoff)
            }
        }
        control.status.withLock { $0 = "not connected" }
    }

    /// The fix of the last TPV report; unset values stay nil (never NaN).
    static func fix(from data: gps_data_t, uptime: Double) -> LocationFix? {
        func value(_ x: Double) -> Double? { x.isFinite ? x : nil }
        let f = data.fix
        let mode = Int(f.mode)
        var fix = LocationFix(uptime: uptime, mode: mode)
        if f.time.tv_sec > 0 { fix.fixTime = Double(f.time.tv_sec) + Double(f.time.tv_nsec) * 1e-9 }
        if mode >= 2 {
            fix.latitude = value(f.latitude)
            fix.longitude = value(f.longitude)
        }
        fix.horizontalAccuracy = value(f.eph)
        fix.verticalAccuracy = value(f.epv)
        fix.altitude = mode >= 3 ? value(f.altMSL) : nil
        fix.course = value(f.track)
        fix.speed = value(f.speed)
        if data.satellites_used > 0 { fix.satellitesUsed = Int(data.satellites_used) }
        return fix
    }
}
