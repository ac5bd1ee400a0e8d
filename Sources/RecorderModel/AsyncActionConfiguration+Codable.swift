import RecorderJSON

extension AsyncActionConfiguration {
    /// The keys every async action reads.
    static let commonKeys: [CodingKeys] = [.identifier, .type, .startStepIdentifier, .stopStepIdentifier, .requiresBackgroundAudio, .device]

    /// The keys an async action of `type` reads besides the common ones.
    static func keys(of type: AsyncActionType) -> [CodingKeys] {
        switch type {
        case .motion: return [.recorderTypes, .frequency, .shouldDeletePrevious, .preRollSeconds]
        case .distance: return [.saveCoordinates, .motionStepIdentifier, .horizontalAccuracyThreshold]
        case .microphone: return [.saveAudioFile, .levelInterval, .sampleRate, .channels]
        case .gait: return [.sensorLocation, .bodyHeight, .sensorHeight, .walkingTest]
        case .heartRate: return []
        }
    }

    /// The keys of an array of async actions, by their `type`: SageResearch files carry keys
    /// recorderd does not read; these tell which ones (`recorderctl run --verbose`).
    public static var arrayKeys: ConfigurationKeys {
        .tagged(by: CodingKeys.type.stringValue, Dictionary(AsyncActionType.acceptedNames.compactMap { name in
            AsyncActionType(name: name).map { type in (name, ConfigurationKeys.keys((commonKeys + keys(of: type)).map(\.stringValue))) }
        }, uniquingKeysWith: { a, _ in a }))
    }
}

extension AsyncActionConfiguration: Codable {
    enum CodingKeys: String, CodingKey {
        case identifier, type, startStepIdentifier, stopStepIdentifier, requiresBackgroundAudio, device
        case recorderTypes, frequency, shouldDeletePrevious, preRollSeconds
        case saveCoordinates, motionStepIdentifier, horizontalAccuracyThreshold
        case saveAudioFile, levelInterval, sampleRate, channels
        case sensorLocation, bodyHeight, sensorHeight, walkingTest
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let identifier = try c.decode(String.self, forKey: .identifier)
        guard RecorderIdentifier.isValid(identifier) else {
            throw DecodingError.dataCorruptedError(
                forKey: .identifier, in: c,
                debugDescription: "invalid identifier \(identifier.debugDescription): expected \(RecorderIdentifier.expectation)")
        }
        let typeName = try c.decode(String.self, forKey: .type)
        guard let type = AsyncActionType(name: typeName) else {
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: c,
                debugDescription: "unknown type \(typeName.debugDescription): expected one of \(AsyncActionType.acceptedNames.joined(separator: ", "))")
        }
        self.identifier = identifier
        startStepIdentifier = try c.decodeIfPresent(String.self, forKey: .startStepIdentifier)
        stopStepIdentifier = try c.decodeIfPresent(String.self, forKey: .stopStepIdentifier)
        requiresBackgroundAudio = try c.decodeIfPresent(Bool.self, forKey: .requiresBackgroundAudio) ?? false
        device = try c.decodeIfPresent(String.self, forKey: .device)
        switch type {
        case .motion:
            var o = MotionOptions()
            if let names = try c.decodeIfPresent([String].self, forKey: .recorderTypes) {
                var types: [SensorType] = []
                for (index, name) in names.enumerated() {
                    guard let t = SensorType(rawValue: name), t.isMotion else {
                        var nested = try c.nestedUnkeyedContainer(forKey: .recorderTypes)
                        for _ in 0..<index { _ = try nested.decode(String.self) }
                        throw DecodingError.dataCorruptedError(
                            in: nested,
                            debugDescription: "unknown recorder type \(name.debugDescription): expected one of \(SensorType.motionRecorderTypes.map(\.rawValue).joined(separator: ", "))")
                    }
                    if !types.contains(t) { types.append(t) }
                }
                guard !types.isEmpty else {
                    throw DecodingError.dataCorruptedError(forKey: .recorderTypes, in: c, debugDescription: "expected at least one recorder type")
                }
                o.recorderTypes = types
            }
            if let f = try c.decodeIfPresent(Double.self, forKey: .frequency, in: MotionOptions.frequencyRange) { o.frequency = f }
            o.shouldDeletePrevious = try c.decodeIfPresent(Bool.self, forKey: .shouldDeletePrevious) ?? true
            if let p = try c.decodeIfPresent(Double.self, forKey: .preRollSeconds, in: MotionOptions.preRollRange) { o.preRollSeconds = p }
            options = .motion(o)
        case .distance:
            var o = DistanceOptions()
            o.saveCoordinates = try c.decodeIfPresent(Bool.self, forKey: .saveCoordinates) ?? false
            o.motionStepIdentifier = try c.decodeIfPresent(String.self, forKey: .motionStepIdentifier)
            if let t = try c.decodeIfPresent(Double.self, forKey: .horizontalAccuracyThreshold, in: DistanceOptions.accuracyThresholdRange) {
                o.horizontalAccuracyThreshold = t
            }
            options = .distance(o)
        case .microphone:
            var o = MicrophoneOptions()
            o.saveAudioFile = try c.decodeIfPresent(Bool.self, forKey: .saveAudioFile) ?? false
            if let l = try c.decodeIfPresent(Double.self, forKey: .levelInterval, in: MicrophoneOptions.levelIntervalRange) { o.levelInterval = l }
            o.sampleRate = try c.decodeIfPresent(Int.self, forKey: .sampleRate, in: 1000...768_000, "a sample rate in Hz")
            o.channels = try c.decodeIfPresent(Int.self, forKey: .channels, in: 1...32, "a number of channels")
            options = .microphone(o)
        case .gait:
            var o = GaitOptions()
            if let name = try c.decodeIfPresent(String.self, forKey: .sensorLocation) {
                guard let location = SensorLocation(rawValue: name) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .sensorLocation, in: c,
                        debugDescription: "unknown sensor location \(name.debugDescription): expected one of \(SensorLocation.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                o.sensorLocation = location
            }
            o.bodyHeight = try c.decodeIfPresent(Double.self, forKey: .bodyHeight, in: GaitOptions.bodyHeightRange)
            o.sensorHeight = try c.decodeIfPresent(Double.self, forKey: .sensorHeight, in: GaitOptions.sensorHeightRange)
            o.walkingTest = try c.decodeIfPresent(WalkingTest.self, forKey: .walkingTest)
            options = .gait(o)
        case .heartRate:
            options = .heartRate(HeartRateOptions())
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(identifier, forKey: .identifier)
        try c.encode(type.rawValue, forKey: .type)
        try c.encodeIfPresent(startStepIdentifier, forKey: .startStepIdentifier)
        try c.encodeIfPresent(stopStepIdentifier, forKey: .stopStepIdentifier)
        if requiresBackgroundAudio { try c.encode(true, forKey: .requiresBackgroundAudio) }
        try c.encodeIfPresent(device, forKey: .device)
        switch options {
        case .motion(let o):
            try c.encode(o.recorderTypes.map(\.rawValue), forKey: .recorderTypes)
            try c.encode(o.frequency, forKey: .frequency)
            try c.encode(o.shouldDeletePrevious, forKey: .shouldDeletePrevious)
            if o.preRollSeconds > 0 { try c.encode(o.preRollSeconds, forKey: .preRollSeconds) }
        case .distance(let o):
            try c.encode(o.saveCoordinates, forKey: .saveCoordinates)
            try c.encodeIfPresent(o.motionStepIdentifier, forKey: .motionStepIdentifier)
            try c.encode(o.horizontalAccuracyThreshold, forKey: .horizontalAccuracyThreshold)
        case .microphone(let o):
            try c.encode(o.saveAudioFile, forKey: .saveAudioFile)
            try c.encode(o.levelInterval, forKey: .levelInterval)
            try c.encodeIfPresent(o.sampleRate, forKey: .sampleRate)
            try c.encodeIfPresent(o.channels, forKey: .channels)
        case .gait(let o):
            try c.encode(o.sensorLocation.rawValue, forKey: .sensorLocation)
            try c.encodeIfPresent(o.bodyHeight, forKey: .bodyHeight)
            try c.encodeIfPresent(o.sensorHeight, forKey: .sensorHeight)
            try c.encodeIfPresent(o.walkingTest, forKey: .walkingTest)
        case .heartRate:
            break
        }
    }
}
