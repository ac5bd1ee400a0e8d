import RecorderConfiguration
import RecorderEngine
import RecorderModel

extension IIOBackend {
    /// Every IIO device of the configured devices' contexts (and of libiio's default context):
    /// name, id, buffered channels, available sampling frequencies, timestamp clock.
    public func discover(configurations: [DeviceConfiguration]) -> [HardwareDevice] {
        var uris: [String?] = [nil]
        for c in configurations {
            let uri = (try? c.json.decode(IIOConfiguration.self))?.uri
            if !uris.contains(uri) { uris.append(uri) }
        }
        return uris.flatMap { uri -> [HardwareDevice] in
            let source = uri ?? "default"
            let context: IIOContext
            do {
                context = try IIOContext.open(uri: uri)
            } catch {
                return [HardwareDevice(kind: kind, source: source, id: "", error: "\(error)")]
            }
            return context.devices.map { device in
                var details: [String: String] = [:]
                details["samplingFrequency"] = device.attribute("sampling_frequency")
                details["timestampClock"] = device.attribute("current_timestamp_clock")
                let available = device.attribute("sampling_frequency_available").map(IIOSampleRate.parseAvailable)
                return HardwareDevice(kind: kind, source: context.attribute("uri") ?? source, id: device.id, name: device.name,
                                      channels: device.bufferedChannels.map(\.id), rates: available, details: details)
            }
        }
    }
}
