import FakeIIO
import Foundation

/// Writes scans into a fake IIO device's FIFO in the kernel's layout, like an IMU's kfifo.
///
/// Each time a reader opens the FIFO and `buffer/enable` becomes 1, it reads the enabled channels,
/// `sampling_frequency`, the scales and `current_timestamp_clock` from sysfs and writes scans at
/// that rate (or as fast as the reader takes them with `--unthrottled`) until the buffer is
/// disabled or the reader goes away. Scans the reader cannot take in time are dropped, as a
/// kernel FIFO overrun does (the timestamps show the loss). Prints one line per stream to stdout.
///
///     FakeIIOGenerator --device-dir DIR --fifo PATH [--csv FILE] [--drop-every N --drop-count K]
///                      [--unthrottled] [--scans N]
///     FakeIIOGenerator --exec COMMAND…     (the namespace's init, with no signal blocked)
@main
struct FakeIIOGenerator {
    struct Options {
        var deviceDirectory = ""
        var fifo = ""
        var csv: String?
        var dropEvery = 0
        var dropCount = 0
        var unthrottled = false
        var scans: Int?
    }

    static func main() {
        if CommandLine.arguments.count > 2, CommandLine.arguments[1] == "--exec" { execUnblocked(Array(CommandLine.arguments.dropFirst(2))) }
        signal(SIGPIPE, SIG_IGN)
        let options = parse(Array(CommandLine.arguments.dropFirst()))
        let rows = options.csv.map { try! FakeIIOPattern.walkRowsSI(csv: $0) }
        while true {
            let fd = open(options.fifo, O_WRONLY)
            guard fd >= 0 else { fail("cannot open \(options.fifo): \(String(cString: strerror(errno)))") }
            if waitForEnable(options.deviceDirectory, true, seconds: 5) {
                stream(fd: fd, options: options, rows: rows)
            }
            close(fd)
            // The reader closes the FIFO after disabling the buffer; wait for that before reopening.
            _ = waitForEnable(options.deviceDirectory, false, seconds: 5)
        }
    }

    static func stream(fd: Int32, options: Options, rows: [(acc: [Double], gyr: [Double])]?) {
        let dir = options.deviceDirectory
        let rate = Double(read(dir + "/sampling_frequency") ?? "") ?? 100
        let clockName = read(dir + "/current_timestamp_clock") ?? "realtime"
        let layout = FakeIIOScanLayout(enabledChannels(dir))
        guard layout.scanSize > 0 else { return }
        let scales = Dictionary(uniqueKeysWithValues: layout.channels.map { c in
            (c.id, Double(read(dir + "/in_\(FakeIIODevice.type(of: c.id))_scale") ?? "") ?? 1)
        })
        let clockID = clockName == "monotonic" ? CLOCK_MONOTONIC : CLOCK_REALTIME
        let t0 = now(clockID)
        let start = now(CLOCK_MONOTONIC)
        say("enable t0=\(t0) rate=\(rate) clock=\(clockName) scan=\(layout.scanSize) channels=\(layout.channels.map(\.id).joined(separator: ","))")
        if !options.unthrottled { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }

        let chunk = max(1, 4096 / layout.scanSize)
        var buffer = [UInt8](repeating: 0, count: chunk * layout.scanSize)
        var next = 0, written = 0, dropped = 0, overrun = 0
        var lastEnableCheck = start
        streaming: while true {
            let nowNs = now(CLOCK_MONOTONIC)
            if nowNs - lastEnableCheck > 10_000_000 {
                lastEnableCheck = nowNs
                if read(dir + "/buffer/enable") != "1" { break }
            }
            var due = options.unthrottled ? next + chunk : Int(Double(nowNs - start) * 1e-9 * rate) + 1
            if let limit = options.scans { due = min(due, limit) }
            while next < due {
                let n = min(chunk, due - next)
                var bytes = 0
                buffer.withUnsafeMutableBytes { raw in
                    for i in next..<(next + n) {
                        if options.dropEvery > 0, i % options.dropEvery >= options.dropEvery - options.dropCount {
                            dropped += 1
                            continue
                        }
                        let scan = UnsafeMutableRawBufferPointer(rebasing: raw[bytes..<(bytes + layout.scanSize)])
                        for b in scan.indices { scan[b] = 0 }
                        for (k, c) in layout.channels.enumerated() {
                            layout.store(value(scan: i, channel: c, t0: t0, rate: rate, rows: rows, scale: scales[c.id]!), channel: k, into: scan)
                        }
                        bytes += layout.scanSize
                    }
                }
                let result = buffer.withUnsafeBytes { writeAll(fd, $0.baseAddress!, bytes, blocking: options.unthrottled) }
                switch result {
                case .written: written += (bytes / layout.scanSize)
                case .full: overrun += bytes / layout.scanSize
                case .closed: break streaming
                }
                next += n
            }
            if let limit = options.scans, next >= limit {
                _ = waitForEnable(dir, false, seconds: 3600)
                break
            }
            if !options.unthrottled {
                let wait = Double(start) * 1e-9 + Double(next) / rate - Double(now(CLOCK_MONOTONIC)) * 1e-9
                usleep(UInt32(max(200, min(2000, wait * 1e6))))
            }
        }
        say("disable scans=\(written) dropped=\(dropped) overrun=\(overrun)")
    }

    static func value(scan: Int, channel c: FakeIIOChannel, t0: Int64, rate: Double, rows: [(acc: [Double], gyr: [Double])]?, scale: Double) -> Int64 {
        if c.id == "timestamp" { return FakeIIOPattern.timestamp(scan: scan, t0: t0, rate: rate) }
        if let rows, let axis = ["x": 0, "y": 1, "z": 2][String(c.id.split(separator: "_").last ?? "")] {
            let row = rows[scan % rows.count]
            switch FakeIIODevice.type(of: c.id) {
            case "accel": return FakeIIOPattern.quantise(row.acc[axis], scale: scale, channel: c)
            case "anglvel": return FakeIIOPattern.quantise(row.gyr[axis], scale: scale, channel: c)
            default: break
            }
        }
        return FakeIIOPattern.counter(scan: scan, channel: c)
    }

    enum WriteResult { case written, full, closed }

    /// Writes whole scans: blocking (unthrottled) or all-or-nothing (a write of at most PIPE_BUF
    /// bytes to a non-blocking FIFO is atomic; a full FIFO drops the scans, like a kfifo overrun).
    static func writeAll(_ fd: Int32, _ base: UnsafeRawPointer, _ count: Int, blocking: Bool) -> WriteResult {
        var done = 0
        while done < count {
            let n = write(fd, base + done, count - done)
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN && !blocking { return .full }
                return .closed
            }
            done += n
        }
        return .written
    }

    /// The enabled scan elements of the device, from `scan_elements/in_<id>_{en,index,type}`.
    static func enabledChannels(_ dir: String) -> [FakeIIOChannel] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: dir + "/scan_elements")) ?? []
        return files.filter { $0.hasPrefix("in_") && $0.hasSuffix("_en") }.compactMap { file in
            let id = String(file.dropFirst(3).dropLast(3))
            guard read(dir + "/scan_elements/" + file) == "1",
                  let index = Int(read(dir + "/scan_elements/in_\(id)_index") ?? ""),
                  let type = read(dir + "/scan_elements/in_\(id)_type") else { return nil }
            return FakeIIOChannel.parse(id: id, index: index, type: type)
        }
    }

    static func waitForEnable(_ dir: String, _ enabled: Bool, seconds: Double) -> Bool {
        let deadline = now(CLOCK_MONOTONIC) + Int64(seconds * 1e9)
        while now(CLOCK_MONOTONIC) < deadline {
            if (read(dir + "/buffer/enable") == "1") == enabled { return true }
            usleep(1000)
        }
        return false
    }

    static func read(_ path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\0")))
    }

    static func now(_ clock: clockid_t) -> Int64 {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    static func parse(_ arguments: [String]) -> Options {
        var o = Options()
        var i = 0
        func value() -> String {
            i += 1
            guard i < arguments.count else { fail("missing value for \(arguments[i - 1])") }
            return arguments[i]
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--device-dir": o.deviceDirectory = value()
            case "--fifo": o.fifo = value()
            case "--csv": o.csv = value()
            case "--drop-every": o.dropEvery = Int(value()) ?? 0
            case "--drop-count": o.dropCount = Int(value()) ?? 0
            case "--unthrottled": o.unthrottled = true
            case "--scans": o.scans = Int(value())
            default: fail("unknown argument \(arguments[i])")
            }
            i += 1
        }
        if o.deviceDirectory.isEmpty || o.fifo.isEmpty { fail("usage: FakeIIOGenerator --device-dir DIR --fifo PATH [options]") }
        return o
    }

    /// `--exec COMMAND…`: clears the signal mask and execs the command. `unshare --fork` blocks
    /// SIGTERM and SIGINT in the child it forks; the namespace's init must be able to receive them.
    static func execUnblocked(_ command: [String]) -> Never {
        var empty = sigset_t()
        sigemptyset(&empty)
        sigprocmask(SIG_SETMASK, &empty, nil)
        let argv = command.map { strdup($0) } + [nil]
        execv(command[0], argv)
        fail("cannot run \(command[0]): \(String(cString: strerror(errno)))")
    }

    /// One unbuffered line on stdout (the tests read it while the generator runs).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(2)
    }
}
