import FoundationEssentials
import Glibc
import RecorderEngine
import RecorderModel

/// One connection to the configured IIO device(s): a context and one stream per device (the
/// motion device and, when configured, a separate gyroscope device).
final class IIOSession {
    let context: IIOContext
    let streams: [IIOStream]
    /// How the streams take their samples and why (`IIOCapturePolicy`), for `devices.list`.
    let captureReason: String

    private init(context: IIOContext, streams: [IIOStream], captureReason: String) {
        self.context = context
        self.streams = streams
        self.captureReason = captureReason
    }

    /// Seconds of samples one refill holds (the latency of a live tail).
    static let refillSeconds = 0.02

    /// Where the kernel makes hrtimer triggers (configfs, `iio-trig-hrtimer`).
    static let hrtimerDirectory = "/sys/kernel/config/iio/triggers/hrtimer"

    /// Opens the context and sets the device(s) up (capture mode, trigger, rate, clock, channels);
    /// no buffer yet.
    static func open(_ configuration: IIOConfiguration) throws(IIOError) -> IIOSession {
        var madeHrtimer: String?
        while true {
            let context = try IIOContext.open(uri: configuration.uri)
            let (primary, gyro) = try devices(configuration, in: context)
            let request = IIOCapturePolicy.Request(configuration.trigger)
            let triggers = context.devices.filter(\.isTrigger).map { (id: $0.id, name: $0.name ?? $0.id) }
            let canMakeHrtimer = context.backendName == "local" && access(hrtimerDirectory, W_OK) == 0
            let hrtimerName = "recorderd-" + configuration.name
            let devices = [primary] + (gyro.map { [$0] } ?? [])
            let facts = devices.map { device in
                IIOCapturePolicy.Facts(device: device.label, hasBufferedAxes: IIOStream.hasAxes(device, .buffered),
                                       hasRawAxes: IIOStream.hasAxes(device, .polled), consumer: device.triggerConsumer,
                                       triggers: triggers, canMakeHrtimer: canMakeHrtimer, hrtimerName: hrtimerName)
            }
            let actions = facts.map { IIOCapturePolicy.decide(request, $0) }
            var triggerFor: [IIODevice?] = devices.map { _ in nil }
            var capture = IIOStream.Capture.buffered
            var reasons: [String] = []
            for (i, action) in actions.enumerated() {
                switch action {
                case .fail(let why): throw IIOError(why, code: ENODEV)
                case .makeHrtimer(let name):
                    // The trigger appears as a new device: look again (once).
                    guard madeHrtimer == nil else {
                        throw IIOError("the hrtimer trigger \(name) made in \(hrtimerDirectory) did not appear among the IIO devices", code: ENODEV)
                    }
                    if mkdir(hrtimerDirectory + "/" + name, 0o755) != 0, errno != EEXIST {
                        throw IIOError("cannot make the hrtimer trigger \(hrtimerDirectory)/\(name)", code: errno)
                    }
                    madeHrtimer = name
                    awaitTrigger(named: name)
                case .poll(let why):
                    capture = .polled
                    reasons.append(why)
                case .buffer(let why): reasons.append(why)
                case .assignTrigger(let name, let why):
                    guard let trigger = context.devices.first(where: { $0.isTrigger && ($0.name ?? $0.id) == name }) else {
                        throw IIOError("no IIO trigger named \(name.debugDescription)", code: ENODEV)
                    }
                    if devices[i].triggerConsumer != .set(name) { try devices[i].setTrigger(trigger) }
                    triggerFor[i] = trigger
                    reasons.append(why)
                }
            }
            if actions.contains(where: { if case .makeHrtimer = $0 { true } else { false } }) { continue }
            if capture == .polled {
                // One mode for the session: a device that could be buffered is polled with the other.
                if let unpollable = facts.first(where: { !$0.hasRawAxes }) {
                    throw IIOError("\(unpollable.device) has no raw motion channels to poll, and the session is \(reasons.first ?? "polled")", code: ENODEV)
                }
                triggerFor = devices.map { _ in nil }
                reasons = [reasons.first { $0.hasPrefix("polled") } ?? "polled"]
            }
            let wanted = configuration.sensorTypes.map(Set.init)
            var primaryTypes = wanted
            var streams: [IIOStream] = []
            if let gyro {
                primaryTypes = (wanted ?? Set(SensorType.motionTypes)).subtracting([.gyro])
                if wanted?.contains(.gyro) ?? true {
                    streams.append(try IIOStream.configure(gyro, types: [.gyro], requestedRate: configuration.frequency,
                                                           capture: capture, trigger: triggerFor[1]))
                }
            }
            if primaryTypes?.isEmpty != true {
                streams.insert(try IIOStream.configure(primary, types: primaryTypes, requestedRate: configuration.frequency,
                                                       capture: capture, trigger: triggerFor[0]), at: 0)
            }
            return IIOSession(context: context, streams: streams, captureReason: Array(Set(reasons)).sorted().joined(separator: "; "))
        }
    }

    /// The configured device (and gyroscope device): by name or id, else the first sensor with
    /// accelerometer axes (buffered, else raw).
    static func devices(_ configuration: IIOConfiguration, in context: IIOContext) throws(IIOError) -> (IIODevice, IIODevice?) {
        let primary: IIODevice
        if let name = configuration.device {
            guard let found = context.device(name) else {
                throw IIOError("no IIO device named \(name.debugDescription)", code: ENODEV, detail: Self.inventory(context))
            }
            primary = found
        } else {
            func hasAccelerometer(_ d: IIODevice, _ capture: IIOStream.Capture) -> Bool {
                !d.isTrigger && IIOStream.axisChannels(d, capture)[.accelerometer]?.count == 3
            }
            guard let found = context.devices.first(where: { hasAccelerometer($0, .buffered) })
                ?? context.devices.first(where: { hasAccelerometer($0, .polled) }) else {
                throw IIOError("no IIO device with accelerometer channels", code: ENODEV, detail: Self.inventory(context))
            }
            primary = found
        }
        guard let gyroName = configuration.gyroDevice else { return (primary, nil) }
        guard let gyro = context.device(gyroName) else {
            throw IIOError("no IIO device named \(gyroName.debugDescription) (gyroDevice)", code: ENODEV, detail: Self.inventory(context))
        }
        return (primary, gyro)
    }

    /// Waits (at most a second) until sysfs lists a trigger named `name`: the kernel registers
    /// an hrtimer trigger during the mkdir, so the first look normally finds it.
    static func awaitTrigger(named name: String) {
        for _ in 0..<50 {
            if let entries = try? FileManager.default.contentsOfDirectory(atPath: "/sys/bus/iio/devices"),
               entries.contains(where: { entry in
                   entry.hasPrefix("trigger")
                       && (try? String(contentsOfFile: "/sys/bus/iio/devices/\(entry)/name", encoding: .utf8))?.trimmingWhitespace() == name
               }) {
                return
            }
            usleep(20_000)
        }
    }

    /// `id name` of every device, for errors.
    static func inventory(_ context: IIOContext) -> String {
        let devices = context.devices.map(\.label)
        return "devices: " + (devices.isEmpty ? "none" : devices.joined(separator: ", "))
    }

    /// One count of each axis of the streams' sensor types (`IIOStream.quanta`).
    var quanta: [SensorType: Vector3] {
        streams.reduce(into: [:]) { all, stream in all.merge(stream.quanta) { first, _ in first } }
    }

    /// The sensor types of all streams, in record order.
    var sensorTypes: [SensorType] {
        SensorType.motionTypes.filter { t in streams.contains { $0.sensorTypes.contains(t) } }
    }

    /// The rate of the first stream (recordings' `frequency`).
    var rate: Double { streams[0].rate }

    /// What `devices.list` shows of a configured device.
    var details: [String: String] {
        var d: [String: String] = ["uri": context.attribute("uri") ?? context.uri ?? "default", "backend": context.backendName]
        for (i, stream) in streams.enumerated() {
            // The motion device's keys are plain; a separate gyroscope device's are prefixed.
            func key(_ name: String) -> String { i == 0 ? name : "gyro" + name.prefix(1).uppercased() + name.dropFirst() }
            d[key("device")] = stream.device.label
            d[key("channels")] = (stream.axes.map { $0.channel.id } + (stream.timestampChannel.map { [$0.id] } ?? [])).joined(separator: ",")
            d[key("timestampClock")] = stream.capture == .polled ? "monotonic (read time)"
                : stream.clock ?? (stream.timestampChannel == nil ? "none (refill time)" : "realtime")
            if i > 0 { d["gyroRate"] = IIOSampleRate.attributeValue(stream.rate) }
            // Polled, the device runs at its highest rate, whatever the polling rate.
            if stream.capture == .polled { d[key("sensorFrequency")] = IIOSampleRate.attributeValue(stream.sensorRate) }
        }
        d["capture"] = captureReason
        return d
    }

    /// Sets the refill timeout from the slowest stream: four refills' worth, at least 1 s, at most
    /// 60 s; returns it in seconds.
    @discardableResult
    func setTimeout(bufferSamples: [Int]) throws(IIOError) -> Double {
        let seconds = zip(streams, bufferSamples).map { Double($1) / $0.rate }.max() ?? 0
        let milliseconds = min(60_000, max(1000, (4 * seconds * 1000).rounded(.up)))
        try context.setTimeout(milliseconds: UInt32(milliseconds))
        return milliseconds / 1000
    }
}
