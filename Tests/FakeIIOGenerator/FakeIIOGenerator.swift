import FakeIIO
import Foundation

/// Writes scans into a fake IIO device's FIFO in the kernel's layout, like an IMU's kfifo.
///
/// Each time a reader opens the FIFO and `buffer/enable` becomes 1, it reads the enabled channels,
/// `sampling_frequency`, the scales and `current_timestamp_clock` from sysfs and writes scans at
/// that rate (or as fast as the reader takes them with `--unthrottled`) until the buffer is
/// disabled or the reader goes away. Like a kfifo it holds `buffer/length` scans, wakes the reader
/// once `buffer/watermark` scans are in, and drops the newest scans when full (the timestamps
/// show the loss). `--eager` writes every ~1 ms instead, waking the reader far more often than a
/// kfifo would. Prints one line per stream to stdout.
///
/// `--csv` plays a walking recording's accelerometer and gyroscope (looped); `--motion physics`
/// (or `standard`, `sway`) plays a `RigidIMUTrajectory` at the device's rate, holding its last sample.
///
///     FakeIIOGenerator --device-dir DIR --fifo PATH [--csv FILE | --motion NAME]
///                      [--drop-every N --drop-count K] [--unthrottled | --eager] [--scans N]
///     FakeIIOGenerator --exec COMMAND…     (the namespace's init, with no signal blocked)
@main
struct FakeIIOGenerator {
    struct Options {
        var deviceDirectory = ""
        var fifo = ""
        var csv: String?
        var motion: String?
        var dropEvery = 0
        var dropCount = 0
        var unthrottled = false
        var scans: Int?
        /// Write whatever is due every ~1 ms instead of waiting for the watermark.
        var eager = false
    }

    static func main() {
        if CommandLine.arguments.count > 2, CommandLine.arguments[1] == "--exec" { execUnblocked(Array(CommandLine.arguments.dropFirst(2))) }
        signal(SIGPIPE, SIG_IGN)
        let options = parse(Array(CommandLine.arguments.dropFirst()))
        let walk = options.csv.map { try! FakeIIOPattern.walkRowsSI(csv: $0) }
        while true {
            let fd = open(options.fifo, O_WRONLY)
            guard fd >= 0 else { fail("cannot open \(options.fifo): \(String(cString: strerror(errno)))") }
            if waitForEnable(options.deviceDirectory, true, seconds: 5) {
                stream(fd: fd, options: options, walk: walk)
            }
            close(fd)
            // The reader closes the FIFO after disabling the buffer; wait for that before reopening.
            _ = waitForEnable(options.deviceDirectory, false, seconds: 5)
        }
    }

    static func stream(fd: Int32, options: Options, walk: [FakeIIOPattern.Row]?) {
        let dir = options.deviceDirectory
        let rate = Double(read(dir + "/sampling_frequency") ?? "") ?? 100
        var rows = walk.map { Rows(rows: $0, holdsLast: false) }
        if let name = options.motion {
            guard let trajectory = ["physics": RigidIMUTrajectory.physics, "standard": RigidIMUTrajectory.standard, "sway": RigidIMUTrajectory.sway][name] else {
                fail("unknown --motion \(name)")
            }
            rows = Rows(rows: FakeIIOPattern.rows(trajectory, rate: rate), holdsLast: true)
        }
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
        // Like a kfifo: capacity `buffer/length` scans, the reader woken once `buffer/watermark`
        // scans are in, the newest scans dropped when it is full (the timestamps show the loss).
        let watermark = max(1, Int(read(dir + "/buffer/watermark") ?? "") ?? 1)
        if let length = Int(read(dir + "/buffer/length") ?? ""), length > 0 {
            _ = fcntl(fd, Self.setPipeSize, Int32(max(4096, length * layout.scanSize)))
        }
        let capacity = Int(fcntl(fd, Self.getPipeSize))
        if !options.unthrottled { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }

        let eagerGroup = max(1, Int((rate / 1000).rounded(.up)))
        let group = options.unthrottled ? max(1, 65536 / layout.scanSize) : options.eager ? min(watermark, eagerGroup) : watermark
        var buffer = [UInt8](repeating: 0, count: group * layout.scanSize)
        var next = 0, written = 0, dropped = 0, overrun = 0
        var lastEnableCheck = start
        streaming: while true {
            let nowNs = now(CLOCK_MONOTONIC)
            if nowNs - lastEnableCheck > 10_000_000 {
                lastEnableCheck = nowNs
                if read(dir + "/buffer/enable") != "1" { break }
            }
            var due = options.unthrottled ? next + group : Int(Double(nowNs - start) * 1e-9 * rate) + 1
            if let limit = options.scans { due = min(due, limit) }
            let finishing = options.scans.map { due >= $0 } ?? false
            if !options.unthrottled, due - next < group, !finishing {
                // Not yet a watermark's worth: sleep until it is (at most 10 ms, to see a disable).
                let wait = Double(start) * 1e-9 + Double(next + group - 1) / rate - Double(now(CLOCK_MONOTONIC)) * 1e-9
                usleep(UInt32(max(100, min(10_000, wait * 1e6))))
                continue
            }
            while next < due {
                let n = min(group, due - next)
                var count = 0
                buffer.withUnsafeMutableBytes { raw in
                    for i in next..<(next + n) {
                        if options.dropEvery > 0, i % options.dropEvery >= options.dropEvery - options.dropCount {
                            dropped += 1
                            continue
                        }
                        let scan = UnsafeMutableRawBufferPointer(rebasing: raw[(count * layout.scanSize)..<((count + 1) * layout.scanSize)])
                        for b in scan.indices { scan[b] = 0 }
                        for (k, c) in layout.channels.enumerated() {
                            layout.store(value(scan: i, channel: c, t0: t0, rate: rate, rows: rows, scale: scales[c.id]!), channel: k, into: scan)
                        }
                        count += 1
                    }
                }
                var fit = count
                if !options.unthrottled {
                    var queued: Int32 = 0
                    _ = ioctl(fd, UInt(FIONREAD), &queued)
                    fit = min(count, max(0, capacity - Int(queued)) / layout.scanSize)
                }
                if fit > 0 {
                    let ok = buffer.withUnsafeBytes { writeAll(fd, $0.baseAddress!, fit * layout.scanSize) }
                    guard ok else { break streaming }
                }
                written += fit
                overrun += count - fit
                next += n
            }
            if let limit = options.scans, next >= limit {
                _ = waitForEnable(dir, false, seconds: 3600)
                break
            }
        }
        say("disable scans=\(written) dropped=\(dropped) overrun=\(overrun)")
    }

    /// Measurements to play: looped, or held at the last once played.
    struct Rows {
        var rows: [FakeIIOPattern.Row]
        var holdsLast: Bool

        func row(scan: Int) -> FakeIIOPattern.Row { rows[holdsLast ? min(scan, rows.count - 1) : scan % rows.count] }
    }

    static func value(scan: Int, channel c: FakeIIOChannel, t0: Int64, rate: Double, rows: Rows?, scale: Double) -> Int64 {
        if c.id == "timestamp" { return FakeIIOPattern.timestamp(scan: scan, t0: t0, rate: rate) }
        if let rows, let axis = ["x": 0, "y": 1, "z": 2][String(c.id.split(separator: "_").last ?? "")] {
            let row = rows.row(scan: scan)
            switch FakeIIODevice.type(of: c.id) {
            case "accel": return FakeIIOPattern.quantise(row.acc[axis], scale: scale, channel: c)
            case "anglvel": return FakeIIOPattern.quantise(row.gyr[axis], scale: scale, channel: c)
            case "magn": if let magn = row.magn { return FakeIIOPattern.quantise(magn[axis], scale: scale, channel: c) }
            default: break
            }
        }
        return FakeIIOPattern.counter(scan: scan, channel: c)
    }

    /// Linux's F_SETPIPE_SZ / F_GETPIPE_SZ (not exported to Swift without _GNU_SOURCE).
    static let setPipeSize: Int32 = 1031
    static let getPipeSize: Int32 = 1032

    /// Writes all bytes (the caller made sure they fit when the FIFO is non-blocking); false when
    /// the reader went away.
    static func writeAll(_ fd: Int32, _ base: UnsafeRawPointer, _ count: Int) -> Bool {
        var done = 0
        while done < count {
            let n = write(fd, base + done, count - done)
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return false
            }
            done += n
        }
        return true
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
            case "--motion": o.motion = value()
            case "--drop-every": o.dropEvery = Int(value()) ?? 0
            case "--drop-count": o.dropCount = Int(value()) ?? 0
            case "--unthrottled": o.unthrottled = true
            case "--scans": o.scans = Int(value())
            case "--eager": o.eager = true
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
