import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel
import RecorderProtocol

/// The JSON text of a WebSocket message to the page (task screens, live plots), one encoder for
/// all but the live points (`LivePoints`, written digit by digit).
enum WebMessage {
    static func text(_ members: [String: JSONValue]) -> String {
        (try? JSONTextEncoder().encode(JSONValue.object(members))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// `{"type":"error","message":…}`: the page shows the sentence.
    static func error(_ message: String) -> String {
        text(["type": .string("error"), "message": .string(message)])
    }

    /// `{"type":"state","state":…,"error"?:…}`: a device's state for its live plot.
    static func state(_ device: DeviceInfo) -> String {
        var members: [String: JSONValue] = ["type": .string("state"), "state": .string(device.state.rawValue)]
        if let error = device.error { members["error"] = .string(error) }
        return text(members)
    }
}
