import RecorderModel

/// One measure of a gait step summary, as the clinical exports carry it (FHIR Observations, MORK
/// field data): its key, value and UCUM unit.
struct GaitMeasure: Equatable {
    /// `stepCount`, `cadence`, `walkingDuration`, `stepTimeMean`, `distance`, `walkingSpeed`, `strideLength`, `swayRMSAP`, `swayRMSML`,
    /// `swayPathLength`; a walking test's `sixMinuteWalkDistance`, `timedWalkTime`, `timedWalkSpeed`, `timedUpAndGoTime`.
    var key: String
    var display: String
    var value: Double
    /// UCUM code and the unit's human form.
    var ucum: String
    var unit: String
    /// The step summarised.
    var summary: GaitStepSummary

    /// The measures of every gait file's step summaries, in the manifest's order.
    static func all(in result: TaskResult) -> [GaitMeasure] {
        result.asyncResults.compactMap(\.file).flatMap { $0.stepSummaries ?? [] }.flatMap(measures(of:))
    }

    static func measures(of s: GaitStepSummary) -> [GaitMeasure] {
        var list: [GaitMeasure] = []
        if let w = s.walking {
            list.append(GaitMeasure(key: "stepCount", display: "Number of steps", value: Double(w.stepCount), ucum: "{steps}", unit: "steps", summary: s))
            if let c = w.cadence { list.append(GaitMeasure(key: "cadence", display: "Cadence", value: c, ucum: "/min", unit: "steps/min", summary: s)) }
            list.append(GaitMeasure(key: "walkingDuration", display: "Walking duration", value: w.walkingDuration, ucum: "s", unit: "s", summary: s))
            if let t = w.stepTimeMean { list.append(GaitMeasure(key: "stepTimeMean", display: "Mean step time", value: t, ucum: "s", unit: "s", summary: s)) }
            if let d = w.distance { list.append(GaitMeasure(key: "distance", display: "Distance walked", value: d, ucum: "m", unit: "m", summary: s)) }
            if let v = w.walkingSpeed { list.append(GaitMeasure(key: "walkingSpeed", display: "Walking speed", value: v, ucum: "m/s", unit: "m/s", summary: s)) }
            if let l = w.strideLength { list.append(GaitMeasure(key: "strideLength", display: "Mean stride length", value: l, ucum: "m", unit: "m", summary: s)) }
        }
        if let sway = s.sway {
            list.append(GaitMeasure(key: "swayRMSAP", display: "Sway RMS acceleration, anterior-posterior", value: sway.rmsAP, ucum: "[g]", unit: "g", summary: s))
            list.append(GaitMeasure(key: "swayRMSML", display: "Sway RMS acceleration, medio-lateral", value: sway.rmsML, ucum: "[g]", unit: "g", summary: s))
            list.append(GaitMeasure(key: "swayPathLength", display: "Sway path length", value: sway.pathLength, ucum: "[g]", unit: "g", summary: s))
        }
        if let test = s.walkingTest { list += measures(of: test, in: s) }
        return list
    }

    /// A walking test's clinical outcome.
    static func measures(of test: WalkingTestOutcome, in s: GaitStepSummary) -> [GaitMeasure] {
        switch test.kind {
        case .sixMinuteWalk:
            return test.distance.map { [GaitMeasure(key: "sixMinuteWalkDistance", display: "Six-minute walk distance", value: $0, ucum: "m", unit: "m", summary: s)] } ?? []
        case .timedWalk:
            var list: [GaitMeasure] = []
            let over = test.distance.map { " over " + WalkingTestOutcome.metres($0) + " m" } ?? ""
            if let t = test.duration { list.append(GaitMeasure(key: "timedWalkTime", display: "Timed walk time" + over, value: t, ucum: "s", unit: "s", summary: s)) }
            if let v = test.walkingSpeed { list.append(GaitMeasure(key: "timedWalkSpeed", display: "Timed walk speed" + over, value: v, ucum: "m/s", unit: "m/s", summary: s)) }
            return list
        case .timedUpAndGo:
            return test.duration.map { [GaitMeasure(key: "timedUpAndGoTime", display: "Timed Up and Go time", value: $0, ucum: "s", unit: "s", summary: s)] } ?? []
        }
    }

    /// The step identifier the measure belongs to: the step path's last component.
    var stepIdentifier: String {
        String(StepPath.identifier(of: summary.stepPath))
    }
}
