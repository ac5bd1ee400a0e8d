import Foundation
import RecorderExport
import RecorderModel
import RecorderTestSupport
import Testing

/// The clinical exports of real runs: a task with questions and a gait recorder walked by
/// `recorderctl run` (answers on standard input) against a daemon replaying a real walk, exported
/// by `recorderctl export --format fhir|mork`, checked by fhir.resources (R4B) and against MORK's
/// published example, the values against the run. The walking step lasts 13 s, longer than the
/// looped short walk (12.5 s), so that at whatever point of the loop it begins it holds at least
/// six of the walk's eleven steps in a row (a bout begins with three strides).
@Suite("FHIR and MORK exports of real runs")
struct ClinicalExportTests {
    static let task = """
    {"identifier": "walkq", "steps": [
      {"identifier": "meds", "title": "Did you take your medication today?", "question": {"answerType": "boolean"}},
      {"identifier": "walking.outbound", "title": "Walk", "duration": 13},
      {"identifier": "pain", "title": "Pain now", "question": {"answerType": "scale", "min": 0, "max": 10}}],
     "asyncActions": [
      {"identifier": "motion", "type": "motion", "recorderTypes": ["accelerometer", "gyro"], "startStepIdentifier": "walking.outbound", "stopStepIdentifier": "walking.outbound"},
      {"identifier": "gait", "type": "gait", "sensorLocation": "lowerBack", "startStepIdentifier": "walking.outbound", "stopStepIdentifier": "walking.outbound"}]}
    """

    func recorderctl(_ arguments: [String], input: String? = nil) async throws -> (Int32, String) {
        var stdin: String?
        if let input {
            stdin = try Fixtures.temporaryDirectory() + "/input.txt"
            try input.write(toFile: stdin!, atomically: true, encoding: .utf8)
        }
        let p = try await ChildProcess(ChildProcess.executable("recorderctl"), arguments, standardInput: stdin)
        let status = try await p.wait(timeout: 90)
        return (status, p.printed)
    }

    func runDirectory(_ printed: String) throws -> String {
        let line = try #require(printed.split(separator: "\n").first { $0.hasPrefix("run directory: ") })
        return String(line.dropFirst("run directory: ".count))
    }

    @Test(.timeLimit(.minutes(3)), .ownThread)
    func aWalkWithQuestionsExportsToFHIRAndMORK() async throws {
        let d = try await TestDaemon.inProcess()
        defer { try? FileManager.default.removeItem(atPath: d.directory) }
        let taskFile = d.directory + "/walkq.json"
        try Self.task.write(toFile: taskFile, atomically: true, encoding: .utf8)
        let (status, printed) = try await recorderctl(["run", taskFile, "--auto", "--socket", d.socket], input: "yes\n4\n")
        #expect(status == 0, "\(printed)")
        let run = try runDirectory(printed)
        try await d.stop()
        let result = try TaskResult.makeDecoder().decode(TaskResult.self, from: Data(contentsOf: URL(fileURLWithPath: run + "/taskResult.json")))
        let motion = try #require(result.asyncResults.compactMap(\.file).first { $0.identifier == "motion" })
        let summary = try #require(result.asyncResults.compactMap(\.file).first { $0.identifier == "gait" }?.stepSummaries?.first)
        let steps = try #require(summary.walking?.stepCount)

        // FHIR through the command line; the same bytes as the exporter in-process.
        let bundle = d.directory + "/walk.fhir.json"
        let (fhirStatus, fhirText) = try await recorderctl(["export", run, "--format", "fhir", "--subject", "Patient/p1", "-o", bundle])
        #expect(fhirStatus == 0, "\(fhirText)")
        let again = d.directory + "/again.fhir.json"
        _ = try FHIRExporter(subject: "Patient/p1").export(try RunSource(directory: run), to: again)
        #expect(try Data(contentsOf: URL(fileURLWithPath: bundle)) == Data(contentsOf: URL(fileURLWithPath: again)))
        let check = try await FHIRCheck.run(bundle, run: run)
        #expect(check.answers.map(\.path) == [["meds"], ["pain"]] && check.answers.map(\.type) == ["valueBoolean", "valueInteger"])
        #expect(check.answers.map(\.value.description) == ["true", "4"])
        #expect(check.sampled["motion/accelerometer"]! + check.sampled["motion/gyro"]! == motion.sampleCount)
        let stepObservation = try #require(check.observations.first { $0.code == "55423-8" })
        #expect(stepObservation.value == Double(steps) && stepObservation.device == "imu0")
        #expect(check.subjects == ["Patient/p1"] && check.questionnaire == [nil] && check.responseStatus == ["completed"])
        // Bad subjects are usage errors.
        let (badSubject, badSubjectText) = try await recorderctl(["export", run, "--format", "fhir", "--subject", "Patient 1", "-o", d.directory + "/x.json"])
        #expect(badSubject == 64 && badSubjectText.contains("--subject: a reference has no spaces"), "\(badSubjectText)")

        // MORK: identifiers from a mapping file, one overridden on the command line.
        let mapping = d.directory + "/mapping.json"
        try """
        {"subject_name": "aabb99", "study_uuid": "a2c0da8c-4dfd-4ffd-b3d5-94c762086c2f", "folder_oid": "SUBJECT", "form_oid": "WALK",
         "site_oid": "Site", "log_line": 2, "items": {"meds": "MEDS_TAKEN", "walking.outbound/stepCount": "WALK_STEPS"}, "boolean": {"true": "Y", "false": "N"}}
        """.write(toFile: mapping, atomically: true, encoding: .utf8)
        let payload = d.directory + "/walk.mork.json"
        let (morkStatus, morkText) = try await recorderctl(["export", run, "--format", "mork", "--mapping", mapping, "--form-oid", "GAIT", "-o", payload])
        #expect(morkStatus == 0, "\(morkText)")
        let fields = try await MORKCheck.run(payload)
        #expect(Array(fields.map(\.item).prefix(4)) == ["MEDS_TAKEN", "pain", "WALK_STEPS", "WALKING_OUTBOUND_CADENCE"], "\(fields)")
        #expect(Array(fields.map(\.value).prefix(3)) == ["Y", "4", "\(steps)"])
        let form = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: payload))) as? [String: [String: Any]])["form_data"]
        #expect(form?["form_oid"] as? String == "GAIT" && form?["log_line"] as? Int == 2)
        // Missing identifiers and broken mapping files: usage errors naming what is wrong; no file.
        let (missing, missingText) = try await recorderctl(["export", run, "--format", "mork", "--subject-name", "aabb99", "-o", d.directory + "/m.json"])
        #expect(missing == 64 && missingText.contains("MORK needs study_uuid, folder_oid, form_oid, site_oid"), "\(missingText)")
        #expect(!FileManager.default.fileExists(atPath: d.directory + "/m.json"))
        try #"{"subject_name": "a", "log_line": "one", "itmes": {}}"#.write(toFile: mapping, atomically: true, encoding: .utf8)
        let (broken, brokenText) = try await recorderctl(["export", run, "--format", "mork", "--mapping", mapping, "-o", d.directory + "/m.json"])
        #expect(broken == 64 && brokenText.contains("--mapping: \(mapping): log_line: expected an integer"), "\(brokenText)")
        try #"{"subject_name": "a", "itmes": {}}"#.write(toFile: mapping, atomically: true, encoding: .utf8)
        let (typo, typoText) = try await recorderctl(["export", run, "--format", "mork", "--mapping", mapping, "-o", d.directory + "/m.json"])
        #expect(typo == 64 && typoText.contains("itmes: unknown key"), "\(typoText)")
        let (wrongFormat, wrongText) = try await recorderctl(["export", run, "--format", "csv", "--form-oid", "X", "-o", d.directory + "/c"])
        #expect(wrongFormat == 64 && wrongText.contains("options of --format mork"), "\(wrongText)")
    }

    @Test(.timeLimit(.minutes(3)), .ownThread)
    func aQuestionnaireRunAnswersItsQuestionnaire() async throws {
        let d = try await TestDaemon.inProcess()
        defer { try? FileManager.default.removeItem(atPath: d.directory) }
        let (status, printed) = try await recorderctl(["run", Fixtures.root + "/questionnaires/gait-walk.json", "--auto", "--step-seconds", "1", "--socket", d.socket],
                                                      input: "3\n7\n")
        #expect(status == 0, "\(printed)")
        let run = try runDirectory(printed)
        try await d.stop()
        let bundle = d.directory + "/q.fhir.json"
        let (exportStatus, exportText) = try await recorderctl(["export", run, "--format", "fhir", "-o", bundle])
        #expect(exportStatus == 0, "\(exportText)")
        let check = try await FHIRCheck.run(bundle, run: run)
        #expect(check.questionnaire == ["http://recorderd.example/fhir/Questionnaire/gait-walk"])
        #expect(check.answers.map(\.path) == [["aid"], ["effort"]] && check.answers.map(\.value.description) == ["walker", "7"])
        #expect(check.answers.map(\.type) == ["valueString", "valueInteger"] && check.subjects.isEmpty)
        #expect(check.sampled["motion/accelerometer"] ?? 0 > 50)
    }
}
