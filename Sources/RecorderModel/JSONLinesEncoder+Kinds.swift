extension JSONLinesEncoder {
    /// A record of a standard kind as a recorder writes it: the prefix (times to the nanosecond,
    /// shared with the record before when it is the same: `appendPrefix`), then the kind's other
    /// fields in its order, its fixed values (`"event":"gap"`) always, the others as `values`
    /// carries them.
    @inline(__always)
    mutating func append(_ kind: RecordKind.Standard, uptime: Double, timestamp: Double, stepPath: JSONString?, _ values: Record) {
        appendPrefix(uptime: uptime, timestamp: timestamp, stepPath: stepPath)
        let entries = RecordSchema.standard.layouts[kind.rawValue].entries
        var first = false
        var written = Record.Presence()
        appendFields(of: values, UnsafeBufferPointer(rebasing: entries[3...]), first: &first, written: &written, times: .nanoseconds, constants: true)
        appendStatic("}\n")
    }

    /// A marker line: written first in every file and at each step change (`RecordKind.marker`).
    public mutating func appendMarker(uptime: Double, timestamp: Double, timestampDate: String, stepPath: JSONString) {
        RecordScratch.with { w in
            w.putPrefix(uptime: uptime, timestamp: timestamp)
            w.flush(into: &bytes)
        }
        var values = Record()
        values.timestampDate = timestampDate
        let entries = RecordSchema.standard.layouts[RecordKind.Standard.marker.rawValue].entries
        var first = false
        var written = Record.Presence()
        // The marker's fields after its times; the step path is JSON text already.
        for i in 2..<entries.count {
            if entries[i].type == .string, entries[i].slot == RecordField.stepPath.slot {
                bytes.append(contentsOf: entries[i].key)
                bytes.append(contentsOf: stepPath.bytes)
            } else {
                appendFields(of: values, UnsafeBufferPointer(rebasing: entries[i..<(i + 1)]), first: &first, written: &written,
                             times: .nanoseconds, constants: true)
            }
        }
        appendStatic("}\n")
    }

    /// An attitude record (SageResearch's): the unit quaternion `x, y, z, w` taking device axes to
    /// the reference frame, the frame's name, and (with a magnetometer) the heading in degrees.
    /// Per sample while fusion runs: written in place by the attitude kind's keys (`MotionKeys`).
    public mutating func appendAttitude(uptime: Double, timestamp: Double, stepPath: JSONString?, attitude: Quaternion,
                                        referenceCoordinate: ReferenceCoordinate, heading: Double?) {
        appendRecord(uptime: uptime, timestamp: timestamp, stepPath: stepPath) { w in
            let keys = MotionKeys.standard.keys
            w.put(keys.pointee.head(.attitude))
            Self.putAxes(&w, attitude.x, attitude.y, attitude.z, keys: keys)
            w.put(keys.pointee.w)
            w.putNumber(attitude.w)
            w.put(keys.pointee.referenceCoordinate)
            w.put(referenceCoordinate.jsonString)
            if let heading, heading.isFinite {
                w.put(keys.pointee.heading)
                w.putNumber(heading)
            }
            w.put(keys.pointee.end)
        }
    }

    /// A calibrated magnetic-field record: the field in µT and its calibration accuracy
    /// (`eventAccuracy`: -1 uncalibrated, 0 low, 1 medium, 2 high, as CoreMotion's). Per sample
    /// while fusion runs with a magnetometer: written in place by the kind's keys.
    public mutating func appendMagneticField(uptime: Double, timestamp: Double, stepPath: JSONString?, field: Vector3, accuracy: Int) {
        appendRecord(uptime: uptime, timestamp: timestamp, stepPath: stepPath) { w in
            let keys = MotionKeys.standard.keys
            w.put(keys.pointee.head(.magneticField))
            Self.putAxes(&w, field.x, field.y, field.z, keys: keys)
            w.put(keys.pointee.eventAccuracy)
            w.putInteger(Int64(accuracy))
            w.put(keys.pointee.end)
        }
    }

    /// A gap record: `droppedSamples` samples of `sensorType` were lost before this point
    /// (audio: frames, with the lost `duration` in seconds).
    public mutating func appendGap(uptime: Double, timestamp: Double, stepPath: JSONString?, sensorType: SensorType, droppedSamples: Int,
                                   duration: Double? = nil) {
        append(.gap, uptime: uptime, timestamp: timestamp, stepPath: stepPath, Self.span(sensorType, droppedSamples, duration))
    }

    /// `count` samples of `sensorType` the device delivered ahead of the clock, left out before
    /// `uptime` (audio: frames, lasting `duration`): `"event": "discarded"`.
    public mutating func appendDiscarded(uptime: Double, timestamp: Double, stepPath: JSONString?, sensorType: SensorType, count: Int,
                                         duration: Double? = nil) {
        append(.discarded, uptime: uptime, timestamp: timestamp, stepPath: stepPath, Self.span(sensorType, count, duration))
    }

    /// A gap's or a discarded span's values.
    static func span(_ sensorType: SensorType, _ count: Int, _ duration: Double?) -> Record {
        var v = Record()
        v.sensorType = sensorType.rawValue
        v.droppedSamples = count
        v.duration = duration
        return v
    }

    /// A gait analysis's initial contact (a step) measured at `uptime`, with its foot when known.
    /// `strideLength`: of the stride that ends at this contact (m), when known.
    public mutating func appendStep(uptime: Double, timestamp: Double, stepPath: JSONString?, side: FootSide? = nil,
                                    strideLength: Double? = nil) {
        var v = Record()
        v.side = side?.rawValue
        v.strideLength = strideLength
        append(.step, uptime: uptime, timestamp: timestamp, stepPath: stepPath, v)
    }

    /// A walking bout that ended with its last step at `uptime`: its first step at `startUptime`,
    /// `steps` in all, `cadence` steps per minute; when the participant's height is known, the
    /// `spatial` measures (m, m/s, m).
    public mutating func appendBout(uptime: Double, timestamp: Double, stepPath: JSONString?, startUptime: Double, steps: Int,
                                    cadence: Double?, spatial: BoutSpatialMeasures? = nil) {
        var v = Record()
        v.startUptime = startUptime
        v.duration = uptime - startUptime
        v.steps = steps
        v.cadence = cadence
        v.distance = spatial?.distance
        v.walkingSpeed = spatial?.walkingSpeed
        v.strideLength = spatial?.strideLength
        append(.bout, uptime: uptime, timestamp: timestamp, stepPath: stepPath, v)
    }

    /// An error marker: the device failed at this point.
    public mutating func appendError(uptime: Double, timestamp: Double, stepPath: JSONString?, description: String) {
        var v = Record()
        v.errorDescription = description
        append(.error, uptime: uptime, timestamp: timestamp, stepPath: stepPath, v)
    }

    /// A location record (SageResearch field names); coordinates only when `saveCoordinates`.
    public mutating func appendLocation(_ fix: LocationFix, timestamp: Double, stepPath: JSONString?, timestampDate: String?,
                                        relativeDistance: Double?, totalDistance: Double?, saveCoordinates: Bool) {
        var v = Record()
        v.timestampDate = timestampDate
        if saveCoordinates {
            v.latitude = fix.latitude
            v.longitude = fix.longitude
        }
        v.horizontalAccuracy = fix.horizontalAccuracy
        v.verticalAccuracy = fix.verticalAccuracy
        v.altitude = fix.altitude
        v.course = fix.course
        v.speed = fix.speed
        v.relativeDistance = relativeDistance
        v.totalDistance = totalDistance
        v.mode = fix.mode >= 3 ? "3D" : fix.mode == 2 ? "2D" : "none"
        v.satellitesUsed = fix.satellitesUsed
        append(.location, uptime: fix.uptime, timestamp: timestamp, stepPath: stepPath, v)
    }

    /// A heart-rate record: the rate (count/min), then the sensor's contact, energy expended (kJ)
    /// and RR intervals (seconds, each an exact multiple of 1/1024, written in full) when sent.
    public mutating func appendHeartRate(_ measurement: HeartRateMeasurement, timestamp: Double, stepPath: JSONString?) {
        var v = Record()
        v.heartRate = measurement.heartRate
        v.contact = measurement.contact
        v.energyExpended = measurement.energyExpended
        v.rrIntervals = measurement.rrIntervals.isEmpty ? nil : measurement.rrIntervals
        append(.heartRate, uptime: measurement.uptime, timestamp: timestamp, stepPath: stepPath, v)
    }

    /// A sound-level record.
    public mutating func appendSoundLevel(_ level: SoundLevel, timestamp: Double, stepPath: JSONString?) {
        var v = Record()
        v.timeInterval = level.timeInterval
        v.average = level.average
        v.peak = level.peak
        append(.soundLevel, uptime: level.uptime, timestamp: timestamp, stepPath: stepPath, v)
    }
}
