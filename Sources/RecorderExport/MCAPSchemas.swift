import RecorderModel

/// The JSON schemas of the MCAP export's channels and the messages that are not records as
/// recorded (step boundaries, `foxglove.LocationFix`).
enum MCAPSchemas {
    struct Schema {
        var name: String
        var json: String
    }

    private static func object(_ title: String, _ properties: [(String, String)], required: [String] = []) -> String {
        let props = properties.map { "\"\($0.0)\":{\"type\":\"\($0.1)\"}" }.joined(separator: ",")
        let req = required.isEmpty ? "" : ",\"required\":[" + required.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        return "{\"title\":\"\(title)\",\"type\":\"object\",\"properties\":{\(props)}\(req)}"
    }

    /// The JSON schema properties of `kinds`' fields, each once, in the kinds' order.
    static func properties(of kinds: [RecordKind]) -> [(String, String)] {
        var seen = Set<String>()
        return kinds.flatMap(\.fields).filter { seen.insert($0.key).inserted }.map { ($0.key, $0.type.jsonSchemaType) }
    }

    /// The record of a sensor type, as recorded: the fields of the kinds that record it (any
    /// record's own, `sensorType`, where no kind does).
    static func record(_ sensorType: String, schema: RecordSchema = .standard) -> Schema {
        var kinds = schema.kinds(recording: sensorType)
        if kinds.isEmpty { kinds = [RecordKind.motion] }
        return Schema(name: "recorderd.\(sensorType)", json: object("recorderd \(sensorType) record", properties(of: kinds), required: ["uptime"]))
    }

    /// What happens to a recording rather than in it — gaps, discarded spans, errors — on a
    /// recorder's events channel.
    static func event(_ schema: RecordSchema = .standard) -> Schema {
        Schema(name: "recorderd.event", json: object("recorderd gap or error", properties(of: schema.eventKinds), required: ["uptime", "event"]))
    }

    static let step = Schema(name: "recorderd.stepBoundary", json: object("task step boundary", [("stepPath", "string"), ("event", "string"), ("uptime", "number")],
                                                                  required: ["stepPath", "event"]))

    /// Foxglove's LocationFix (https://docs.foxglove.dev/docs/visualization/message-schemas/location-fix).
    static let locationFix = Schema(name: "foxglove.LocationFix", json: """
        {"title":"foxglove.LocationFix","type":"object","properties":{\
        "timestamp":{"type":"object","properties":{"sec":{"type":"integer","minimum":0},"nsec":{"type":"integer","minimum":0,"maximum":999999999}}},\
        "frame_id":{"type":"string"},"latitude":{"type":"number"},"longitude":{"type":"number"},"altitude":{"type":"number"},\
        "position_covariance":{"type":"array","items":{"type":"number"},"minItems":9,"maxItems":9},\
        "position_covariance_type":{"type":"integer","enum":[0,1,2,3]}}}
        """)

    static func stepMessage(_ stepPath: String, event: String, uptime: Double) -> [UInt8] {
        var e = JSONLinesEncoder(reservingCapacity: 256)
        e.appendStatic("{\"stepPath\":")
        e.appendString(stepPath)
        e.appendStatic(",\"event\":")
        e.appendString(event)
        e.appendStatic(",\"uptime\":")
        e.appendNumber(uptime)
        e.appendStatic("}")
        return e.bytes
    }

    /// A location record with coordinates as `foxglove.LocationFix`: the horizontal and vertical
    /// accuracies (m, 1 σ) as a diagonal covariance — type 2 ("diagonal known") with both, type 1
    /// ("approximated": the vertical taken as the horizontal) with only the horizontal one, type 0
    /// without. A fix without an altitude has altitude 0.
    static func locationFix(_ r: Record, nanoseconds: UInt64, frame: String) -> [UInt8] {
        var e = JSONLinesEncoder(reservingCapacity: 512)
        e.appendStatic("{\"timestamp\":{\"sec\":")
        e.appendNumber(Double(nanoseconds / 1_000_000_000))
        e.appendStatic(",\"nsec\":")
        e.appendNumber(Double(nanoseconds % 1_000_000_000))
        e.appendStatic("},\"frame_id\":")
        e.appendString(frame)
        e.appendStatic(",\"latitude\":")
        e.appendNumber(r.latitude ?? .nan)
        e.appendStatic(",\"longitude\":")
        e.appendNumber(r.longitude ?? .nan)
        e.appendStatic(",\"altitude\":")
        e.appendNumber(r.altitude ?? 0)
        let h = r.horizontalAccuracy.map { $0 * $0 }, measuredV = r.verticalAccuracy.map { $0 * $0 }
        let v = measuredV ?? h
        e.appendStatic(",\"position_covariance\":[")
        let diagonal: [Double] = [h ?? 0, 0, 0, 0, h ?? 0, 0, 0, 0, v ?? 0]
        for (i, c) in diagonal.enumerated() {
            if i > 0 { e.appendStatic(",") }
            e.appendNumber(c)
        }
        e.appendStatic("],\"position_covariance_type\":")
        e.appendNumber(h == nil ? 0 : measuredV == nil ? 1 : 2)
        e.appendStatic("}")
        return e.bytes
    }
}
