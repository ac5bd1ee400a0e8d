import Foundation
import RecorderClient
import RecorderExport
import RecorderModel
import RecorderTestSupport
import Testing

/// `sage` exports of a real recorded run, opened by Python's zipfile (every entry's CRC), each
/// file checked against SageResearch's format and its values against the run's JSON lines.
@Suite("SageResearch export", .timeLimit(.minutes(2)))
struct SageExportTests {
    /// SageResearch's MotionRecord fields, and recorderd's gap and error records' own.
    static let motionKeys: Set<String> = ["uptime", "timestamp", "stepPath", "timestampDate", "sensorType", "eventAccuracy", "referenceCoordinate",
                                          "heading", "x", "y", "z", "w", "event", "droppedSamples", "duration", "errorDescription"]
    static let metadataKeys: Set<String> = ["deviceInfo", "deviceTypeIdentifier", "appName", "appVersion", "rsdFrameworkVersion", "taskIdentifier",
                                            "taskRunUUID", "startDate", "endDate", "files"]

    @Test(.ownThread) func theArchiveHoldsEachRecorderAsAJSONArrayWithItsMetadata() async throws {
        let (d, result, directory) = try await CSVExportTests.recordedRun()
        defer { try? FileManager.default.removeItem(atPath: d.directory) }
        try await d.stop()
        let before = try CSVExportTests.fingerprint(directory)
        let archive = d.directory + "/walk.zip"
        let report = try SageExporter().export(try RunSource(directory: directory), to: archive)
        #expect(try CSVExportTests.fingerprint(directory) == before, "the run's files changed")
        #expect(report.files == [archive] && report.warnings.isEmpty)

        let check = try await SageCheck.run(archive)
        #expect(Set(check.entries) == ["info.json", "metadata.json", "taskResult.json", "motion.json"])
        #expect(check.compression == [8], "deflated")
        let motion = try #require(check.arrays["motion.json"])
        #expect(motion.markerFirst && Set(motion.keys).isSubset(of: Self.motionKeys), "\(motion.keys)")
        // The values: the JSON array decodes (Foundation) to the same records as the JSON lines.
        let array = try JSONDecoder().decode([Record].self, from: Data(contentsOf: URL(fileURLWithPath: check.directory + "/motion.json")))
        #expect(array == (try Fixtures.records(directory + "/motion.jsonl")) && motion.count == array.count)

        // metadata.json: RSDTaskMetadata's fields; its files are the archive's other entries.
        let metadata = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: check.directory + "/metadata.json"))) as? [String: Any])
        #expect(Set(metadata.keys) == Self.metadataKeys, "\(metadata.keys)")
        #expect(metadata["taskIdentifier"] as? String == "walk" && metadata["taskRunUUID"] as? String == result.taskRunUUID.uuidString)
        let files = try #require(metadata["files"] as? [[String: Any]])
        #expect(Set(files.compactMap { $0["filename"] as? String }) == Set(check.entries).subtracting(["metadata.json", "info.json"]))
        let motionManifest = try #require(files.first { $0["filename"] as? String == "motion.json" })
        #expect(motionManifest["contentType"] as? String == "application/json" && motionManifest["identifier"] as? String == "motion")
        #expect(motionManifest["stepPath"] as? String == array.first?.stepPath)
        let info = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: check.directory + "/info.json"))) as? [String: Any])
        #expect(Set(((info["files"] as? [[String: Any]]) ?? []).compactMap { $0["filename"] as? String }) == Set(files.compactMap { $0["filename"] as? String }))
        // taskResult.json: the run's manifest, its file result pointing at the archive's file.
        let archived = try TaskResult.makeDecoder().decode(TaskResult.self, from: Data(contentsOf: URL(fileURLWithPath: check.directory + "/taskResult.json")))
        let file = try #require(archived.asyncResults.first?.file)
        #expect(file.relativePath == "motion.json" && file.contentType == "application/json" && file.sampleCount == result.asyncResults.first?.file?.sampleCount)
        #expect(archived.taskRunUUID == result.taskRunUUID && archived.stepHistory == result.stepHistory)

        // Never over an existing file, never into the run; a failed export leaves no archive.
        #expect(throws: ExportError.self) { try SageExporter().export(try RunSource(directory: directory), to: archive) }
        #expect(throws: ExportError.self) { try SageExporter().export(try RunSource(directory: directory), to: directory + "/x.zip") }
        #expect(!FileManager.default.fileExists(atPath: directory + "/x.zip"))
        #expect(try CSVExportTests.fingerprint(directory) == before)
    }
}
