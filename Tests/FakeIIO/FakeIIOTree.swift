import Foundation

/// A fake IIO device tree for libiio's real local backend, and the private namespace that shows it
/// to a process (recorderd, iiod, iio_readdev) at the paths libiio hard-codes.
///
/// The tree lives in a temporary directory: `sysbus/iio/devices/<id>/…` (bind-mounted over
/// `/sys/bus` inside the namespace) and one FIFO per device (bound onto `/dev/<id>` in an overlay
/// of `/dev`). The namespace (`unshare --mount --net --pid --fork --mount-proc`: its own /proc, so
/// a process reading `/proc/<its tid>` finds itself) needs root; everything in it
/// dies with its first process and nothing is left mounted on the host. Generators run outside
/// the namespace and write scans into the FIFOs directly.
public final class FakeIIOTree: Sendable {
    public let root: String
    public let devices: [FakeIIODevice]

    public init(devices: [FakeIIODevice]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("recorderd-iio-\(UUID().uuidString)").path
        self.devices = devices
        try FileManager.default.createDirectory(atPath: root + "/sysbus/iio/devices", withIntermediateDirectories: true)
        try Self.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        for device in devices { try write(device) }
    }

    public var scriptPath: String { root + "/namespace.sh" }

    /// The device's sysfs directory (host path).
    public func directory(_ id: String) -> String { root + "/sysbus/iio/devices/" + id }

    /// The device's FIFO (host path); inside the namespace it is `/dev/<id>`.
    public func fifo(_ id: String) -> String { root + "/fifo-" + id }

    /// Creates the device's sysfs files (every value ends in a newline: libiio drops the last
    /// byte it reads) and its FIFO.
    public func write(_ device: FakeIIODevice) throws {
        let dir = directory(device.id)
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        if device.hasBuffer {
            try fm.createDirectory(atPath: dir + "/scan_elements", withIntermediateDirectories: true)
            try fm.createDirectory(atPath: dir + "/buffer", withIntermediateDirectories: true)
        }
        func put(_ path: String, _ value: String) throws {
            try (value + "\n").write(toFile: dir + "/" + path, atomically: false, encoding: .utf8)
        }
        try put("name", device.name)
        if let perType = device.typeFrequencies {
            for (type, rates) in perType {
                try put("in_\(type)_sampling_frequency", Self.number(rates.current))
                try put("in_\(type)_sampling_frequency_available", rates.available.map(Self.number).joined(separator: " "))
            }
        } else {
            try put("sampling_frequency", Self.number(device.samplingFrequency))
            if let available = device.availableFrequencies {
                try put("sampling_frequency_available", available.map(Self.number).joined(separator: " "))
            }
        }
        if let clock = device.timestampClock { try put("current_timestamp_clock", clock) }
        for (type, scale) in device.scales where device.channels.contains(where: { FakeIIODevice.type(of: $0.id) == type }) {
            try put("in_\(type)_scale", String(format: "%.9f", scale))
        }
        for (type, offset) in device.offsets { try put("in_\(type)_offset", Self.number(offset)) }
        for (type, matrix) in device.mountMatrices { try put("in_\(type)_mount_matrix", matrix) }
        if let raw = device.rawValues {
            for c in device.channels where c.id != "timestamp" { try put("in_\(c.id)_raw", String(raw[c.id] ?? 0)) }
        }
        if let trigger = device.currentTrigger {
            try fm.createDirectory(atPath: dir + "/trigger", withIntermediateDirectories: true)
            // As the kernel shows it: no trigger reads as zero bytes, not a newline.
            try (trigger.isEmpty ? "" : trigger + "\n").write(toFile: dir + "/trigger/current_trigger", atomically: false, encoding: .utf8)
        }
        if device.hasBuffer {
            for c in device.channels {
                try put("scan_elements/in_\(c.id)_en", "0")
                try put("scan_elements/in_\(c.id)_index", "\(c.index)")
                try put("scan_elements/in_\(c.id)_type", c.typeText)
            }
            try put("buffer/enable", "0")
            try put("buffer/length", "0")
            try put("buffer/watermark", "1")
        }
        if !fm.fileExists(atPath: fifo(device.id)) {
            guard mkfifo(fifo(device.id), 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
        }
    }

    /// Sets a channel's `raw` value, as a register the driver reads changing (host path; the
    /// file is rewritten in place, as sysfs shows a new value).
    public func setRaw(_ id: String, _ channel: String, _ value: Int64) throws {
        try "\(value)\n".write(toFile: directory(id) + "/in_\(channel)_raw", atomically: false, encoding: .utf8)
    }

    /// Adds a trigger device (`triggerN/name`, and `sampling_frequency` for a timer trigger).
    public func addTrigger(id: String, name: String, samplingFrequency: Double? = nil) throws {
        let dir = root + "/sysbus/iio/devices/" + id
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        if let samplingFrequency {
            try (Self.number(samplingFrequency) + "\n").write(toFile: dir + "/sampling_frequency", atomically: false, encoding: .utf8)
        }
        // The name last: a reader that sees it sees the whole trigger.
        try (name + "\n").write(toFile: dir + "/name", atomically: true, encoding: .utf8)
    }

    /// configfs as the namespace shows it at `/sys/kernel/config` (host path), when made by
    /// `FakeHrtimerKernel`.
    public var configfs: String { root + "/configfs" }

    /// Makes the device vanish from sysfs (as on unplug); `restore` brings it back.
    public func remove(_ id: String) throws {
        try FileManager.default.moveItem(atPath: directory(id), toPath: root + "/removed-" + id)
    }

    public func restore(_ id: String) throws {
        try FileManager.default.moveItem(atPath: root + "/removed-" + id, toPath: directory(id))
    }

    /// The current text of a device attribute (host path), without the newline.
    public func attribute(_ id: String, _ path: String) -> String? {
        (try? String(contentsOfFile: directory(id) + "/" + path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\0")))
    }

    /// The command that runs `payload` in the private namespace: `iiod` starts iiod there first
    /// (on the namespace's own loopback, port 30431); `readOnly` device attributes (paths relative
    /// to a device directory, e.g. `iio:device0/current_timestamp_clock`) are made unwritable.
    /// `generator` is the FakeIIOGenerator executable: its `--exec` mode clears the signal mask
    /// that `unshare --fork` leaves (SIGTERM blocked) before the script runs.
    public func namespaceCommand(_ payload: [String], generator: String, iiod: Bool = false, readOnly: [String] = []) -> [String] {
        ["/usr/bin/unshare", "--mount", "--propagation", "private", "--net", "--pid", "--fork", "--mount-proc", "--kill-child",
         generator, "--exec", "/bin/bash", scriptPath, root, iiod ? "iiod" : "-", readOnly.isEmpty ? "-" : readOnly.joined(separator: ",")] + payload
    }

    /// The host PID of the namespace's first process (the script), child of the `unshare` process
    /// `unsharePID`: send it SIGTERM to stop the payload gracefully.
    public static func initPID(unsharePID: Int32) -> Int32? {
        let text = try? String(contentsOfFile: "/proc/\(unsharePID)/task/\(unsharePID)/children", encoding: .utf8)
        return text?.split(separator: " ").first.flatMap { Int32($0) }
    }

    /// Removes the tree (after every process of the namespace is gone).
    public func remove() {
        try? FileManager.default.removeItem(atPath: root)
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int64(value)) : String(value)
    }

    /// Runs inside the namespace: mounts the tree, starts iiod if asked, then runs the payload.
    static let script = #"""
    #!/bin/bash
    # Shows a fake IIO device tree to the payload at the paths libiio hard-codes.
    set -eu
    root=$1; iiod=$2; readonly_attrs=$3; shift 3
    mount --bind "$root/sysbus" /sys/bus
    mkdir -p "$root/devfs"
    mount -t tmpfs tmpfs "$root/devfs"
    mkdir "$root/devfs/upper" "$root/devfs/work"
    mount -t overlay overlay -o "lowerdir=/dev,upperdir=$root/devfs/upper,workdir=$root/devfs/work" /dev
    for fifo in "$root"/fifo-*; do
      [ -p "$fifo" ] || continue
      dev="/dev/${fifo##*/fifo-}"
      touch "$dev"
      mount --bind "$fifo" "$dev"
    done
    if [ "$readonly_attrs" != "-" ]; then
      IFS=, read -ra attrs <<< "$readonly_attrs"
      for a in "${attrs[@]}"; do
        mount --bind "/sys/bus/iio/devices/$a" "/sys/bus/iio/devices/$a"
        mount -o remount,bind,ro "/sys/bus/iio/devices/$a"
      done
    fi
    if [ -d "$root/configfs" ]; then
      # configfs for hrtimer triggers (FakeHrtimerKernel): /sys/kernel is a tmpfs in here.
      mount -t tmpfs tmpfs /sys/kernel
      mkdir -p /sys/kernel/config
      mount --bind "$root/configfs" /sys/kernel/config
    fi
    ip link set lo up
    if [ "$iiod" = "iiod" ]; then
      iiod >"$root/iiod.log" 2>&1 &
      for _ in $(seq 200); do
        (exec 3<>/dev/tcp/127.0.0.1/30431) 2>/dev/null && break
        sleep 0.025
      done
    fi
    # bash stays PID 1: the kernel delivers a signal to a namespace's init only when it has a
    # handler, so a payload that ignores SIGTERM and reads it otherwise (Dispatch) would never
    # see it. unshare blocks SIGTERM: signal this bash (FakeIIOTree.initPID); the trap passes it on.
    "$@" &
    child=$!
    trap 'kill -TERM "$child" 2>/dev/null' TERM INT
    # A trapped signal interrupts wait (status 128+n): wait again until the child is gone, then
    # once more for its own exit status (bash keeps it).
    while kill -0 "$child" 2>/dev/null; do wait "$child" || true; done
    wait "$child"
    """#
}
