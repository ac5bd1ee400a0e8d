import FoundationEssentials
import Glibc
import RecorderEngine
import RecorderModel

/// One connection to the configured IIO device(s): a context and one stream per device (the
/// motion device and, when configured, a separate gyroscope device).
final class IIOSession {
    let context: IIOContext
    let streams: [IIOStream]

    private init(context: IIOContext, streams: [IIOStream]) {
        self.context = context
        self.streams = streams
    }

    /// Seconds of samples one refill holds (the latency of a live tail).
    static let refillSeconds = 0.02

    /// Opens the context and sets the device(s) up (rate, clock, channels); no buffer yet.
    static func open(_ configuration: IIOConfiguration) throws(IIOError) -> IIOSession {
        let context = try IIOContext.open(uri: configuration.uri)
        let primary: IIODevice
        if let name = configuration.device {
            guard let found = context.device(name) else {
                throw IIOError("no IIO device named \(name.debugDescription)", code: ENODEV, detail: Self.inventory(context))
            }
            primary = found
        } else {
            guard let found = context.devices.first(where: { d in
                d.bufferedChannels.contains { IIOChannelRole(channelID: $0.id) == .axis(.accelerometer, 0) }
            }) else {
                throw IIOError("no IIO device with buffered accelerometer channels", code: ENODEV, detail: Self.inventory(context))
            }
            primary = found
        }
        let wanted = configuration.sensorTypes.map(Set.init)
        var primaryTypes = wanted
        var streams: [IIOStream] = []
        if let gyroName = configuration.gyroDevice {
            guard let gyro = context.device(gyroName) else {
                throw IIOError("no IIO device named \(gyroName.debugDescription) (gyroDevice)", code: ENODEV, detail: Self.inventory(context))
            }
            primaryTypes = (wanted ?? Set(SensorType.motionTypes)).subtracting([.gyro])
            if wanted?.contains(.gyro) ?? true {
                streams.append(try IIOStream.configure(gyro, types: [.gyro], requestedRate: configuration.frequency))
            }
        }
        if primaryTypes?.isEmpty != true {
            streams.insert(try IIOStream.configure(primary, types: primaryTypes, requestedRate: configuration.frequency), at: 0)
        }
        return IIOSession(context: context, streams: streams)
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
            d[key("timestampClock")] = stream.clock ?? (stream.timestampChannel == nil ? "none (refill time)" : "realtime")
            if i > 0 { d["gyroRate"] = IIOSampleRate.attributeValue(stream.rate) }
        }
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
