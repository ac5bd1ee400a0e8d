import CLibIIO
import FoundationEssentials
import Glibc
import RecorderModel

/// One IIO device set up for streaming: its recorded channels with offset and scale, its
/// timestamp channel, its actual rate and timestamp clock; after `openBuffer`, it decodes refills
/// into motion frames.
final class IIOStream {
    /// A recorded axis: `value = (raw + offset) × scale` in the file unit.
    struct Axis {
        let channel: IIOChannel
        let format: iio_data_format
        let type: SensorType
        let axis: Int
        let scale: Double
        let offset: Double
        /// The storage format decoded in Swift (nil: through libiio).
        let sampleFormat: IIOSampleFormat?
        /// Index of this axis in a scan's 9 values (accelerometer, gyro, magnetometer × x, y, z).
        var slot: Int { IIOStream.slot(type) * 3 + axis }
    }

    let device: IIODevice
    let axes: [Axis]
    /// The driver's `mount_matrix` of each sensor type, where it gives one other than identity:
    /// vectors are delivered in the device's axes (`M · v`).
    let mounts: [SensorType: MountMatrix]
    let timestampChannel: IIOChannel?
    let sensorTypes: [SensorType]
    let rate: Double
    /// The rate the device itself runs at: `rate` when buffered; polled, its highest
    /// (`IIOSampleRate.forPolling`).
    let sensorRate: Double
    let availableRates: [Double]
    /// `current_timestamp_clock` after recorderd asked for `monotonic` (nil: the device has none).
    let clock: String?
    let capture: Capture
    private(set) var buffer: IIOBuffer?
    private(set) var timeline: IIOTimeline
    /// Device clock → CLOCK_MONOTONIC for a device on another machine: the smallest observed
    /// (refill completion − last timestamp).
    private var remoteOffset: Double?

    private init(device: IIODevice, axes: [Axis], mounts: [SensorType: MountMatrix], timestampChannel: IIOChannel?,
                 sensorTypes: [SensorType], rate: Double, sensorRate: Double, availableRates: [Double], clock: String?, capture: Capture) {
        self.device = device
        self.axes = axes
        self.mounts = mounts
        self.timestampChannel = timestampChannel
        self.sensorTypes = sensorTypes
        self.rate = rate
        self.sensorRate = sensorRate
        self.availableRates = availableRates
        self.clock = clock
        self.capture = capture
        timeline = IIOTimeline(rate: rate)
    }

    /// How a stream takes its samples.
    enum Capture: Equatable {
        /// Scans from the device's buffer, refilled.
        case buffered
        /// Each axis's `raw` value read at the rate (`IIOSampler+Polling`).
        case polled
    }

    /// The motion axes of `device` by type and axis: its scan elements (`buffered`), or its input
    /// channels with a `raw` value (`polled`).
    static func axisChannels(_ device: IIODevice, _ capture: Capture) -> [SensorType: [Int: IIOChannel]] {
        var byType: [SensorType: [Int: IIOChannel]] = [:]
        let candidates = capture == .buffered ? device.bufferedChannels : device.channels.filter { !$0.isOutput && $0.hasAttribute("raw") }
        for channel in candidates {
            if case .axis(let type, let axis)? = IIOChannelRole(channelID: channel.id) { byType[type, default: [:]][axis] = channel }
        }
        return byType
    }

    /// True when `device` has all three axes of some motion type captured as `capture`.
    static func hasAxes(_ device: IIODevice, _ capture: Capture) -> Bool {
        axisChannels(device, capture).values.contains { $0.count == 3 }
    }

    /// Sets `device` up: sampling rate nearest to `requestedRate` (polled: the device's highest),
    /// timestamp clock `monotonic`
    /// where writable, channels of `types` (nil: every motion type with three axes) enabled.
    /// Polled (`capture`), the stream's rate is the requested rate (the device's own where none
    /// is asked) and there is no timestamp channel; `trigger` is a trigger with a rate of its own
    /// (hrtimer), set to the requested rate, which is then the stream's.
    static func configure(_ device: IIODevice, types wanted: Set<SensorType>?, requestedRate: Double?, capture: Capture = .buffered,
                          trigger: IIODevice? = nil) throws(IIOError) -> IIOStream {
        let channels = capture == .buffered ? device.bufferedChannels : device.channels.filter { !$0.isOutput }
        let byType = axisChannels(device, capture)
        let timestamp = capture == .buffered ? channels.first { IIOChannelRole(channelID: $0.id) == .timestamp } : nil
        let complete = SensorType.motionTypes.filter { byType[$0]?.count == 3 }
        let types = complete.filter { wanted?.contains($0) ?? true }
        guard !types.isEmpty else {
            let found = channels.map(\.id).joined(separator: ", ")
            let asked = (wanted.map { Array($0) } ?? SensorType.motionTypes).map(\.rawValue).sorted().joined(separator: ", ")
            let kind = capture == .buffered ? "buffered" : "raw"
            throw IIOError("\(device.label) has no \(kind) x/y/z channels for \(asked)", detail: "\(kind) channels: \(found.isEmpty ? "none" : found)")
        }
        var (rate, available) = try setRate(device, types: types, byType: byType, requested: requestedRate,
                                            choose: capture == .polled ? IIOSampleRate.forPolling : IIOSampleRate.nearest)
        let sensorRate = rate
        if let trigger, trigger.hasAttribute("sampling_frequency") {
            let wantedRate = requestedRate ?? rate
            try trigger.writeAttribute("sampling_frequency", IIOSampleRate.attributeValue(wantedRate))
            guard let text = trigger.attribute("sampling_frequency"), let triggerRate = Double(text), triggerRate > 0 else {
                throw IIOError("trigger \(trigger.label) reports no sampling_frequency")
            }
            rate = triggerRate
        } else if capture == .polled, let requestedRate {
            rate = requestedRate
        }

        var clock: String?
        if device.hasAttribute("current_timestamp_clock") {
            // Where writable, the kernel's in_timestamp is then directly CLOCK_MONOTONIC.
            if device.attribute("current_timestamp_clock") != "monotonic" {
                try? device.writeAttribute("current_timestamp_clock", "monotonic")
            }
            clock = device.attribute("current_timestamp_clock")
        }

        var axes: [Axis] = []
        var mounts: [SensorType: MountMatrix] = [:]
        if capture == .buffered { for channel in channels { channel.disable() } }
        for type in types {
            // `in_accel_mount_matrix` (a channel attribute shared by the type's channels, or a device
            // attribute, depending on how libiio reads the name) or the device's `mount_matrix`.
            let prefix = IIOStream.prefix(type)
            let text = byType[type]![0]!.attribute("mount_matrix") ?? device.attribute("in_\(prefix)_mount_matrix")
                ?? device.attribute("mount_matrix")
            if let mount = text.flatMap(MountMatrix.init(iioText:)), !mount.isIdentity { mounts[type] = mount }
            for axis in 0..<3 {
                let channel = byType[type]![axis]!
                if capture == .buffered { channel.enable() }
                let scale = channel.attribute("scale").flatMap(Double.init) ?? 1
                let offset = channel.attribute("offset").flatMap(Double.init) ?? 0
                let format = channel.format
                axes.append(Axis(channel: channel, format: format, type: type, axis: axis,
                                 scale: scale * IIOChannelRole.unitFactor(type), offset: offset,
                                 sampleFormat: IIOSampleFormat(format)))
            }
        }
        timestamp?.enable()
        return IIOStream(device: device, axes: axes, mounts: mounts, timestampChannel: timestamp, sensorTypes: types,
                         rate: rate, sensorRate: sensorRate, availableRates: available, clock: clock, capture: capture)
    }

    /// Sets the device's sampling rate to the one `choose` picks for `requested` among those it
    /// offers (the nearest; polled, the highest) and returns the rate it reports and the rates it
    /// offers. A device with one rate has `sampling_frequency`; others (bmi160) have
    /// one per sensor type (`in_accel_sampling_frequency`, `in_anglvel_sampling_frequency`), each
    /// with its own list: each type then gets the rate chosen among those all of them offer, and the stream's
    /// rate is the first type's.
    static func setRate(_ device: IIODevice, types: [SensorType], byType: [SensorType: [Int: IIOChannel]], requested: Double?,
                        choose: (Double, [Double]) -> Double = IIOSampleRate.nearest) throws(IIOError) -> (rate: Double, available: [Double]) {
        if device.hasAttribute("sampling_frequency") {
            let available = device.attribute("sampling_frequency_available").map(IIOSampleRate.parseAvailable) ?? []
            if let requested {
                try device.writeAttribute("sampling_frequency", IIOSampleRate.attributeValue(choose(requested, available)))
            }
            guard let text = device.attribute("sampling_frequency"), let rate = Double(text), rate > 0 else {
                throw IIOError("\(device.label) reports no sampling_frequency")
            }
            return (rate, available)
        }
        var perType: [(channel: IIOChannel, available: [Double])] = []
        for type in types {
            let channel = byType[type]![0]!
            guard channel.hasAttribute("sampling_frequency") else { continue }
            let prefix = IIOStream.prefix(type)
            let list = channel.attribute("sampling_frequency_available") ?? device.attribute("in_\(prefix)_sampling_frequency_available")
            perType.append((channel, list.map(IIOSampleRate.parseAvailable) ?? []))
        }
        guard !perType.isEmpty else {
            throw IIOError("\(device.label) reports no sampling_frequency (neither sampling_frequency nor in_<type>_sampling_frequency)")
        }
        let lists = perType.map(\.available).filter { !$0.isEmpty }
        let common = lists.dropFirst().reduce(lists.first ?? []) { kept, next in kept.filter { rate in next.contains(rate) } }
        if let requested {
            for (channel, own) in perType {
                let chosen = choose(requested, common.isEmpty ? own : common)
                try channel.writeAttribute("sampling_frequency", IIOSampleRate.attributeValue(chosen))
            }
        }
        guard let text = perType[0].channel.attribute("sampling_frequency"), let rate = Double(text), rate > 0 else {
            throw IIOError("\(device.label) reports no in_\(prefix(types[0]))_sampling_frequency")
        }
        return (rate, common.isEmpty ? perType[0].available : common)
    }

    /// The IIO channel type of a sensor type (`accel`, `anglvel`, `magn`).
    static func prefix(_ type: SensorType) -> String {
        type == .accelerometer ? "accel" : type == .gyro ? "anglvel" : "magn"
    }

    /// One count of each axis in the file unit, per sensor type, as the device delivers them
    /// (after a mount matrix that only swaps or flips axes; a type whose mount matrix mixes axes
    /// has no whole counts and is absent).
    var quanta: [SensorType: Vector3] {
        var result: [SensorType: Vector3] = [:]
        for type in sensorTypes {
            let scales = axes.filter { $0.type == type }.sorted { $0.axis < $1.axis }.map(\.scale)
            guard scales.count == 3 else { continue }
            let sensor = Vector3(x: scales[0], y: scales[1], z: scales[2])
            if let mount = mounts[type] {
                if let device = mount.permutedQuanta(sensor) { result[type] = device }
            } else {
                result[type] = sensor
            }
        }
        return result
    }

    /// Scans per refill: about `seconds` of samples (at least one).
    static func bufferSamples(rate: Double, seconds: Double) -> Int {
        max(1, Int(saturating: (rate * seconds).rounded()))
    }

    /// Creates the buffer (enables the device's buffer).
    func openBuffer(samples: Int) throws(IIOError) -> IIOBuffer {
        let made = try device.makeBuffer(samples: samples)
        buffer = made
        return made
    }

    /// Destroys the buffer and forgets the last timestamp (loss across a reconnect is estimated
    /// by the sampler).
    func closeBuffer() {
        buffer = nil
        timeline.reset()
        remoteOffset = nil
    }

    /// Decodes the buffer's last refill (completed at `completion`, CLOCK_MONOTONIC seconds) into
    /// motion frames and gap frames, appended to `frames`.
    func decode(completion: Double, sharesHostClocks: Bool, into frames: inout [SensorFrame]) {
        guard let buffer, let end = buffer.end, let first = axes.first.flatMap({ buffer.first($0.channel) }) else { return }
        let step = buffer.step
        guard step > 0 else { return }
        let count = (end - first) / step
        guard count > 0 else { return }
        let starts = axes.map { buffer.first($0.channel)! }
        let stamp: (channel: IIOChannel, format: iio_data_format, start: UnsafeRawPointer)? =
            timestampChannel.flatMap { c in buffer.first(c).map { (c, c.format, $0) } }
        let stampFormat = stamp.flatMap { IIOSampleFormat($0.format) }

        var offset = 0.0
        if let stamp {
            if sharesHostClocks {
                offset = IIOStream.clockOffset(clock)
            } else {
                let at = stamp.start + (count - 1) * step
                let last = stampFormat?.value(at: at) ?? stamp.channel.convert(at, format: stamp.format)
                let estimate = completion - Double(last) * 1e-9
                remoteOffset = min(remoteOffset ?? estimate, estimate)
                offset = remoteOffset!
            }
        }
        frames.reserveCapacity(frames.count + count + 4)
        let hasAccelerometer = sensorTypes.contains(.accelerometer)
        let hasGyro = sensorTypes.contains(.gyro)
        let hasMagnetometer = sensorTypes.contains(.magnetometer)
        let isMounted = !mounts.isEmpty
        // The timeline is a stored property of this class: read and written once per refill, not
        // per scan (each access to it is checked for exclusivity at run time).
        var timeline = self.timeline
        defer { self.timeline = timeline }
        // Where every value's format is decoded in Swift (all real drivers' formats): each axis as a
        // plain value (no channel reference to retain and release per value, no optional format).
        let lanes: [Lane]? = axes.indices.allSatisfy({ axes[$0].sampleFormat != nil }) ? axes.indices.map { i in
            Lane(start: starts[i], format: axes[i].sampleFormat!, isHostInt16: axes[i].sampleFormat!.isHostInt16, slot: axes[i].slot,
                 offset: axes[i].offset, scale: axes[i].scale)
        } : nil
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 9) { values in
            values.initialize(repeating: 0)
            axes.withUnsafeBufferPointer { axes in
                starts.withUnsafeBufferPointer { starts in
                    for k in 0..<count {
                        let uptime: Double
                        if let stamp {
                            let at = stamp.start + k * step
                            let ts = stampFormat?.value(at: at) ?? stamp.channel.convert(at, format: stamp.format)
                            let lost = timeline.lost(before: ts)
                            uptime = timeline.uptime(timestamp: ts, offset: offset)
                            if lost > 0 { frames.append(.gap(uptime: uptime, sensorTypes: sensorTypes, droppedSamples: lost)) }
                        } else {
                            uptime = timeline.uptime(index: k, of: count, completion: completion)
                        }
                        if let lanes {
                            lanes.withUnsafeBufferPointer { lanes in
                                for lane in lanes {
                                    let at = lane.start + k * step
                                    let raw = lane.isHostInt16 ? Int64(at.loadUnaligned(as: Int16.self)) : lane.format.value(at: at)
                                    values[lane.slot] = (Double(raw) + lane.offset) * lane.scale
                                }
                            }
                        } else {
                            for i in 0..<axes.count {
                                let a = axes[i]
                                let at = starts[i] + k * step
                                let raw = a.sampleFormat?.value(at: at) ?? a.channel.convert(at, format: a.format)
                                values[a.slot] = (Double(raw) + a.offset) * a.scale
                            }
                        }
                        var frame = MotionFrame(
                            uptime: uptime,
                            accelerometer: hasAccelerometer ? Vector3(x: values[0], y: values[1], z: values[2]) : nil,
                            gyro: hasGyro ? Vector3(x: values[3], y: values[4], z: values[5]) : nil,
                            magnetometer: hasMagnetometer ? Vector3(x: values[6], y: values[7], z: values[8]) : nil)
                        if isMounted {
                            frame.accelerometer = frame.accelerometer.map { mounts[.accelerometer]?.apply($0) ?? $0 }
                            frame.gyro = frame.gyro.map { mounts[.gyro]?.apply($0) ?? $0 }
                            frame.magnetometer = frame.magnetometer.map { mounts[.magnetometer]?.apply($0) ?? $0 }
                        }
                        frames.append(.motion(consume frame))
                    }
                }
            }
        }
    }

    /// One polled sample: each axis's `raw` value read once, offset, scaled and mounted, as the
    /// buffered path decodes a scan. `values` holds a scan's 9 slots (others' slots untouched).
    func readPolled(into values: UnsafeMutableBufferPointer<Double>) throws(IIOError) {
        for axis in axes {
            let raw = try axis.channel.readRaw()
            values[axis.slot] = (Double(raw) + axis.offset) * axis.scale
        }
    }

    /// A motion frame of the types `types` from a scan's 9 `values`, after the streams' mount
    /// matrices (`mounts` of every stream of a session).
    static func frame(uptime: Double, values: UnsafeMutableBufferPointer<Double>, types: [SensorType],
                      mounts: [SensorType: MountMatrix]) -> MotionFrame {
        func vector(_ type: SensorType) -> Vector3? {
            guard types.contains(type) else { return nil }
            let i = slot(type) * 3
            let v = Vector3(x: values[i], y: values[i + 1], z: values[i + 2])
            return mounts[type]?.apply(v) ?? v
        }
        return MotionFrame(uptime: uptime, accelerometer: vector(.accelerometer), gyro: vector(.gyro), magnetometer: vector(.magnetometer))
    }

    /// An axis decoded in Swift, for one refill: where its first value is, its format, its slot
    /// among a scan's 9 values and its offset and scale.
    struct Lane {
        let start: UnsafeRawPointer
        let format: IIOSampleFormat
        /// `format.value(at:)` is a plain s16 load.
        let isHostInt16: Bool
        let slot: Int
        let offset: Double
        let scale: Double
    }

    @inline(__always)
    static func slot(_ type: SensorType) -> Int {
        switch type {
        case .accelerometer: return 0
        case .gyro: return 1
        default: return 2
        }
    }

    /// CLOCK_MONOTONIC minus the device's timestamp clock, in seconds (0 for `monotonic`).
    static func clockOffset(_ clock: String?) -> Double {
        let id: clockid_t
        switch clock {
        case "realtime": id = CLOCK_REALTIME
        case "monotonic_raw": id = CLOCK_MONOTONIC_RAW
        case "realtime_coarse": id = CLOCK_REALTIME_COARSE
        case "monotonic_coarse": id = CLOCK_MONOTONIC_COARSE
        case "boottime": id = CLOCK_BOOTTIME
        case "tai": id = CLOCK_TAI
        case nil:
            // Kernels without the attribute stamp IIO samples with CLOCK_REALTIME.
            id = CLOCK_REALTIME
        default: return 0
        }
        var before = timespec(), device = timespec(), after = timespec()
        clock_gettime(CLOCK_MONOTONIC, &before)
        clock_gettime(id, &device)
        clock_gettime(CLOCK_MONOTONIC, &after)
        func seconds(_ t: timespec) -> Double { Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9 }
        return (seconds(before) + seconds(after)) / 2 - seconds(device)
    }
}
