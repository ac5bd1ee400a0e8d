import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel

/// The resources of one run's FHIR Bundle, gathered in order, then written as one JSON object.
struct FHIRBundleContents {
    let run: RunSource
    let subject: String?
    private(set) var entries: [(fullUrl: String, resource: FHIRJSON)] = []
    /// The full URL of each sensor device's Device, by name.
    private var devices: [String: String] = [:]
    private var deviceOrder: [String] = []
    private var deviceKinds: [String: Set<String>] = [:]
    /// recorderd's Device.
    let recorderdURL: String

    init(run: RunSource, subject: String?) {
        self.run = run
        self.subject = subject
        recorderdURL = Self.fullURL(run.result.taskRunUUID, index: 1)
    }

    /// `urn:uuid:` of the run's UUID with its first four bytes mixed with `index`: unique in the
    /// Bundle, the same for every export of the run.
    static func fullURL(_ uuid: UUID, index: UInt32) -> String {
        var bytes = uuid.uuid
        bytes.0 ^= UInt8(truncatingIfNeeded: index >> 24)
        bytes.1 ^= UInt8(truncatingIfNeeded: index >> 16)
        bytes.2 ^= UInt8(truncatingIfNeeded: index >> 8)
        bytes.3 ^= UInt8(truncatingIfNeeded: index)
        return "urn:uuid:" + UUID(uuid: bytes).uuidString.lowercased()
    }

    mutating func nextURL() -> String {
        Self.fullURL(run.result.taskRunUUID, index: UInt32(entries.count + devices.count + 2))
    }

    var subjectReference: FHIRJSON? { subject.map { .object([("reference", .string($0))]) } }

    var observationStatus: FHIRJSON { .string(run.result.status == .recording ? "preliminary" : "final") }

    /// The Device of sensor device `name`, made on first use.
    mutating func device(_ name: String, kind: String) -> String {
        deviceKinds[name, default: []].insert(kind)
        if let url = devices[name] { return url }
        let url = nextURL()
        devices[name] = url
        deviceOrder.append(name)
        return url
    }

    /// The wall-clock time of `uptime` in `file`'s recording.
    func date(_ uptime: Double, in file: FileResult) -> String {
        ISO8601Timestamp.string(from: file.startDate.addingTimeInterval(uptime - file.startUptime))
    }

    func period(_ file: FileResult) -> FHIRJSON {
        FHIRJSON.members([("start", .string(ISO8601Timestamp.string(from: file.startDate))),
                          ("end", file.endDate.map { .string(ISO8601Timestamp.string(from: $0)) })])
    }

    /// An Observation of this run: status, category `activity`, `code`, subject, period and
    /// device, then `rest`.
    func observation(code: FHIRJSON, period: FHIRJSON, device: String, _ rest: [(String, FHIRJSON?)]) -> FHIRJSON {
        FHIRJSON.members([
            ("resourceType", .string("Observation")),
            ("status", observationStatus),
            ("category", .array([FHIRCodes.concept(FHIRCodes.observationCategory, "activity", "Activity")])),
            ("code", code),
            ("subject", subjectReference),
            ("effectivePeriod", period),
            ("device", .object([("reference", .string(device))])),
        ] + rest)
    }

    /// A component of one SampledData series: origin 0 in `unit`, one point every `period` ms.
    static func sampledComponent(code: String, display: String, unit: String, ucum: String, period: Double, data: SampledDataSeries) -> FHIRJSON {
        .object([("code", FHIRCodes.concept(FHIRCodes.recorderd, code, display)),
                 ("valueSampledData", .object([
                    ("origin", FHIRCodes.quantity(0, unit: unit, code: ucum)),
                    ("period", .number(period)),
                    ("dimensions", .integer(1)),
                    ("data", .escaped(data.text)),
                 ]))])
    }

    // MARK: Recordings

    /// Reads one recorder's file: motion becomes an Observation per sensor type, a location its
    /// distance (and fixes when saved).
    mutating func addRecordings(of file: FileResult) throws(ExportError) -> RecordFileReader.Outcome {
        var motion: [MotionSeries] = []
        // Each sensor type's series, by its name in the records (the last one looked up kept:
        // records of one type come in runs).
        var index: [String: Int] = [:]
        var lastName = "", lastIndex = -1
        var fixes = LocationTrack()
        var beats = HeartRateTrack()
        let outcome = try run.reader(of: file).forEachPrefetched { (r) throws(ExportError) in
            guard let name = r.sensorType, r.isSample || r.isGap else { return }
            if name == lastName, lastIndex >= 0 {
                // The type of the previous record.
            } else if let i = index[name] {
                (lastName, lastIndex) = (name, i)
            } else {
                guard let type = SensorType(rawValue: name) else { return }
                if type == .heartRate {
                    guard r.isSample, let uptime = r.uptime, let rate = r.heartRate else { return }
                    try beats.append(uptime: uptime, rate: rate, contact: r.contact)
                    return
                }
                if type == .location {
                    guard r.isSample, let latitude = r.latitude, let longitude = r.longitude, let uptime = r.uptime else { return }
                    try fixes.append(uptime: uptime, latitude: latitude, longitude: longitude, accuracy: r.horizontalAccuracy)
                    return
                }
                guard type.isMotion else { return }
                motion.append(MotionSeries(type: type))
                index[name] = motion.count - 1
                (lastName, lastIndex) = (name, motion.count - 1)
            }
            if r.isGap {
                if let dropped = r.droppedSamples { try motion[lastIndex].appendGap(dropped) }
            } else {
                try motion[lastIndex].append(r, file: file.relativePath)
            }
        }
        let deviceName = file.device ?? file.identifier
        for series in motion {
            // The measured rate; else (a run recovered before its manifest was final) the rate the
            // samples show, gaps counted.
            guard let frequency = file.frequency ?? file.requestedFrequency ?? series.observedRate, frequency > 0, frequency.isFinite else {
                throw .badFile("\(file.relativePath): \(series.type.rawValue) has no sampling rate (one sample, and none in the manifest)")
            }
            addMotion(series, frequency: frequency, file: file, device: device(deviceName, kind: "motion"))
        }
        if file.totalDistance != nil || file.distanceByStep != nil || fixes.count > 0 {
            addLocation(file, track: fixes, device: device(deviceName, kind: "location"))
        }
        if beats.count > 0 || file.heartRateSummaries != nil {
            addHeartRate(file, track: beats, device: device(deviceName, kind: "heart rate"))
        }
        return outcome
    }

    mutating func addMotion(_ series: MotionSeries, frequency: Double, file: FileResult, device: String) {
        let type = series.type
        let unit = file.units[type.rawValue] ?? type.unit
        let components = zip(FHIRCodes.axes(type), series.axes).map { axis, data in
            Self.sampledComponent(code: "\(type.rawValue)-\(axis)", display: "\(type.rawValue) \(axis)", unit: unit, ucum: FHIRCodes.ucum(unit),
                                  period: 1000 / frequency, data: data)
        }
        let resource = observation(code: FHIRCodes.concept(FHIRCodes.recorderd, type.rawValue, "\(type.rawValue) recording (\(file.identifier))"),
                                   period: period(file), device: device, [("component", .array(components))])
        entries.append((nextURL(), resource))
    }

    mutating func addLocation(_ file: FileResult, track: LocationTrack, device: String) {
        var components: [FHIRJSON] = []
        for (step, metres) in (file.distanceByStep ?? [:]).sorted(by: { $0.key < $1.key }) {
            components.append(.object([("code", .object([("coding", .array([.object([("system", .string(FHIRCodes.recorderd)), ("code", .string("distance-walked")),
                                                                                    ("display", .string("Distance walked"))])])),
                                                          ("text", .string("Distance walked in \(step)"))])),
                                       ("valueQuantity", FHIRCodes.quantity(metres, unit: "m", code: "m"))]))
        }
        let distance = observation(code: FHIRCodes.concept(FHIRCodes.recorderd, "distance-walked", "Distance walked"), period: period(file), device: device, [
            ("valueQuantity", file.totalDistance.map { FHIRCodes.quantity($0, unit: "m", code: "m") }),
            ("component", components.isEmpty ? nil : .array(components)),
        ])
        entries.append((nextURL(), distance))
        guard track.count > 0 else { return }
        // Fixes come when the receiver has one: their times are a component of their own
        // (seconds from the recording's start), so none is placed on a grid it was not on.
        let series: [(String, String, String, SampledDataSeries)] = [
            ("time-offset", "s", "s", track.offsets), ("latitude", "deg", "deg", track.latitudes),
            ("longitude", "deg", "deg", track.longitudes), ("horizontal-accuracy", "m", "m", track.accuracies),
        ]
        let fixComponents = series.map { code, unit, ucum, data in
            Self.sampledComponent(code: "location-\(code)", display: "location \(code)", unit: unit, ucum: ucum,
                                  period: track.medianIntervalMilliseconds, data: data)
        }
        let fixes = observation(code: FHIRCodes.concept(FHIRCodes.recorderd, "location", "location fixes (\(file.identifier))"), period: period(file),
                                device: device, [("component", .array(fixComponents))])
        entries.append((nextURL(), fixes))
    }

    /// Heart rate (LOINC 8867-4, UCUM /min): the notifications as SampledData — each one's time
    /// from the first and its rate, `E` without skin contact — and each step's mean as an
    /// Observation of its own, with its range and recovery as components.
    mutating func addHeartRate(_ file: FileResult, track: HeartRateTrack, device: String) {
        let heartRate = FHIRCodes.concept(FHIRCodes.loinc, "8867-4", "Heart rate")
        if track.count > 0 {
            let interval = track.medianIntervalMilliseconds
            let components: [FHIRJSON] = [
                Self.sampledComponent(code: "time-offset", display: "time offset", unit: "s", ucum: "s", period: interval, data: track.offsets),
                .object([("code", heartRate),
                         ("valueSampledData", .object([
                            ("origin", FHIRCodes.quantity(0, unit: "/min", code: "/min")),
                            ("period", .number(interval)),
                            ("dimensions", .integer(1)),
                            ("data", .escaped(track.rates.text)),
                         ]))]),
            ]
            entries.append((nextURL(), observation(code: heartRate, period: period(file), device: device, [("component", .array(components))])))
        }
        for step in file.heartRateSummaries ?? [] {
            guard let mean = step.mean else { continue }
            func component(_ code: String, _ display: String, _ value: Int?) -> FHIRJSON? {
                value.map { .object([("code", FHIRCodes.concept(FHIRCodes.recorderd, code, display)),
                                     ("valueQuantity", FHIRCodes.quantity(Double($0), unit: "/min", code: "/min"))]) }
            }
            let components = [component("heart-rate-minimum", "Minimum heart rate", step.minimum),
                              component("heart-rate-maximum", "Maximum heart rate", step.maximum),
                              component("heart-rate-recovery-60s", "Heart rate recovery over the first 60 s", step.recovery)].compactMap { $0 }
            let span = FHIRJSON.object([("start", .string(date(step.startUptime, in: file))), ("end", .string(date(step.endUptime, in: file)))])
            entries.append((nextURL(), observation(code: heartRate, period: span, device: device, [
                ("valueQuantity", FHIRCodes.quantity(mean, unit: "/min", code: "/min")),
                ("note", .array([.object([("text", .string("step \(step.stepPath): mean of \(step.count) readings"))])])),
                ("component", components.isEmpty ? nil : .array(components)),
            ])))
        }
    }

    // MARK: Answers and measures

    mutating func addAnswers() {
        let answered = run.result.stepHistory.filter { !($0.results ?? []).isEmpty }
        guard !answered.isEmpty || run.result.questionnaire != nil else { return }
        var root = QuestionnaireResponseItems()
        for step in answered {
            let results = step.results ?? []
            var groups = step.stepPath.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
            if results.count == 1, groups.last == results[0].identifier { groups.removeLast() }
            for answer in results { root.insert(answer, under: groups) }
        }
        let status: String
        switch run.result.status {
        case .finished: status = "completed"
        case .recording: status = "in-progress"
        default: status = "stopped"
        }
        let authored = run.result.endDate ?? answered.last?.endDate ?? run.result.startDate
        let resource = FHIRJSON.members([
            ("resourceType", .string("QuestionnaireResponse")),
            ("questionnaire", run.result.questionnaire.map { .string($0) }),
            ("status", .string(status)),
            ("subject", subjectReference),
            ("authored", .string(ISO8601Timestamp.string(from: authored))),
            ("author", .object([("reference", .string(recorderdURL))])),
            ("item", root.nodes.isEmpty ? nil : root.json),
        ])
        entries.append((nextURL(), resource))
    }

    mutating func addGaitMeasures() {
        for file in run.result.asyncResults.compactMap(\.file) where !(file.stepSummaries ?? []).isEmpty {
            let deviceURL = device(file.device ?? file.identifier, kind: "gait")
            for measure in (file.stepSummaries ?? []).flatMap(GaitMeasure.measures(of:)) {
                let code: FHIRJSON = measure.key == "stepCount"
                    ? FHIRCodes.concept(FHIRCodes.loinc, "55423-8", "Number of steps in unspecified time Pedometer")
                    : FHIRCodes.concept(FHIRCodes.recorderd, measure.key, measure.display)
                let span = FHIRJSON.object([("start", .string(date(measure.summary.startUptime, in: file))),
                                            ("end", .string(date(measure.summary.endUptime, in: file)))])
                let resource = observation(code: code, period: span, device: deviceURL, [
                    ("valueQuantity", FHIRCodes.quantity(measure.value, unit: measure.unit, code: measure.ucum)),
                    ("note", .array([.object([("text", .string("step \(measure.summary.stepPath)"))])])),
                ])
                entries.append((nextURL(), resource))
            }
        }
    }

    // MARK: Writing

    func write(to encoder: inout JSONLinesEncoder) {
        var all: [(String, FHIRJSON)] = [(recorderdURL, FHIRJSON.members([
            ("resourceType", .string("Device")),
            ("status", .string("active")),
            ("deviceName", .array([.object([("name", .string("recorderd")), ("type", .string("model-name"))])])),
            ("type", .object([("text", .string("sensor recorder"))])),
            ("version", .array([.object([("value", .string(RecorderVersion.string))])])),
            ("patient", subjectReference),
        ]))]
        for name in deviceOrder {
            let kinds = deviceKinds[name, default: []].sorted().joined(separator: ", ")
            all.append((devices[name]!, FHIRJSON.members([
                ("resourceType", .string("Device")),
                ("identifier", .array([.object([("system", .string(FHIRCodes.deviceIdentifier)), ("value", .string(name))])])),
                ("status", .string("active")),
                ("deviceName", .array([.object([("name", .string(name)), ("type", .string("user-friendly-name"))])])),
                ("type", .object([("text", .string(kinds))])),
                ("patient", subjectReference),
                ("parent", .object([("reference", .string(recorderdURL))])),
            ])))
        }
        all += entries.map { ($0.fullUrl, $0.resource) }
        let bundle = FHIRJSON.members([
            ("resourceType", .string("Bundle")),
            ("id", .string(run.result.taskRunUUID.uuidString.lowercased())),
            ("type", .string("collection")),
            ("timestamp", .string(ISO8601Timestamp.string(from: run.result.endDate ?? run.result.startDate))),
            ("entry", .array(all.map { .object([("fullUrl", .string($0.0)), ("resource", $0.1)]) })),
        ])
        bundle.write(to: &encoder)
    }
}

extension SensorType {
    /// Motion sensor types: three (attitude four) axes a sample.
    var isMotion: Bool {
        switch self {
        case .accelerometer, .gyro, .magnetometer, .attitude, .gravity, .userAcceleration, .rotationRate, .magneticField: return true
        case .location, .soundLevel, .step, .heartRate: return false
        }
    }
}
