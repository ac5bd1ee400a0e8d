import Foundation
import RecorderClient
import RecorderExport
import RecorderModel
import RecorderTestSupport
import Testing

/// FHIR Questionnaires run through the real `recorderctl run` against a daemon, answers typed on
/// standard input (a pipe, and a real terminal under tmux): the steps shown, the steps skipped,
/// the answers in the manifest.
@Suite("Questionnaires through recorderctl run")
struct QuestionnaireRunTests {
    static let directory = Fixtures.root + "/questionnaires"

    /// Runs `recorderctl run` on a Questionnaire with `input` as its standard input; its status,
    /// what it printed, and the manifest of the run it made (nil when none).
    func run(_ name: String, input: String, socket: String, extra: [String] = ["--auto"]) async throws -> (Int32, String, TaskResult?) {
        let inputFile = try Fixtures.temporaryDirectory() + "/input.txt"
        try input.write(toFile: inputFile, atomically: true, encoding: .utf8)
        let p = try await ChildProcess(ChildProcess.executable("recorderctl"), ["run", "\(Self.directory)/\(name).json", "--socket", socket] + extra,
                                 standardInput: inputFile)
        let status = try await p.wait(timeout: 60)
        let printed = p.printed
        guard let line = printed.split(separator: "\n").first(where: { $0.hasPrefix("run directory: ") }) else { return (status, printed, nil) }
        let manifest = String(line.dropFirst("run directory: ".count)) + "/taskResult.json"
        return (status, printed, try TaskResult.makeDecoder().decode(TaskResult.self, from: Data(contentsOf: URL(fileURLWithPath: manifest))))
    }

    func answers(_ result: TaskResult) -> [String: String] {
        var all: [String: String] = [:]
        for step in result.stepHistory {
            for a in step.results ?? [] { all[a.identifier] = a.value.plainText }
        }
        return all
    }

    @Test(.timeLimit(.minutes(3)), .ownThread)
    func questionnairesAskSkipAndKeepTheAnswers() async throws {
        let d = try await TestDaemon.inProcess(speed: 2)
        // PHQ-2: a wrong input is asked again; the follow-up is shown (an answer is not "Not at all").
        let (status, printed, phq) = try await run("phq-2", input: "2\nseven\n3\nmaybe\nyes\n", socket: d.socket)
        #expect(status == 0, "\(printed)")
        let phq2 = try #require(phq)
        #expect(phq2.questionnaire == "http://recorderd.example/fhir/Questionnaire/phq-2|1.0.0")
        #expect(phq2.stepHistory.map(\.stepPath) == ["phq-2/intro", "phq-2/interest", "phq-2/down", "phq-2/talk"])
        #expect(answers(phq2) == ["interest": "LA6569-3", "down": "LA6570-1", "talk": "true"])
        #expect(phq2.stepHistory[1].results?.first?.system == "http://loinc.org" && phq2.stepHistory[1].results?.first?.display == "Several days")
        #expect(printed.contains("expected the number of a choice (1 to 4); try again") && printed.contains("expected yes or no; try again"), "\(printed)")
        // PHQ-2 with both "Not at all": the follow-up is skipped.
        let (_, skippedText, calm) = try await run("phq-2", input: "1\n1\n", socket: d.socket)
        #expect(try #require(calm).stepHistory.map(\.stepPath) == ["phq-2/intro", "phq-2/interest", "phq-2/down"], "\(skippedText)")

        // Nested groups and an enableWhen chain: low pain skips the details group entirely.
        let (lowStatus, lowText, low) = try await run("medication-pain", input: "no\n3\n12000\n", socket: d.socket)
        #expect(lowStatus == 0, "\(lowText)")
        #expect(try #require(low).stepHistory.map(\.stepPath)
                == ["medication-pain/before", "medication-pain/before/medication", "medication-pain/before/pain", "medication-pain/steps-today"])
        #expect(answers(try #require(low)) == ["medication": "false", "pain": "3", "steps-today": "12000"])
        // High pain: the group is shown; an old dose opens since-date; an answered "where" skips steps-today.
        let (highStatus, highText, high) = try await run("medication-pain", input: "y\n2026-02-30\n2025-06-01\n11\n7\nleft knee\n2025-05-20\n36.6\n", socket: d.socket)
        #expect(highStatus == 0, "\(highText)")
        let highResult = try #require(high)
        #expect(highResult.stepHistory.map(\.stepPath).map { $0.replacingOccurrences(of: "medication-pain/", with: "") }
                == ["before", "before/medication", "before/dose-date", "before/pain", "details/where", "details/since",
                    "details/since/since-date", "details/since/temperature"])
        #expect(answers(highResult) == ["medication": "true", "dose-date": "2025-06-01", "pain": "7", "where": "left knee",
                                        "since-date": "2025-05-20", "temperature": "36.6"])
        let temperature = highResult.stepHistory.last?.results?.first
        #expect(temperature?.unit == "Cel" && temperature?.answerType == .decimal && highResult.stepHistory[3].results?.first?.answerType == .scale)
        // Its QuestionnaireResponse nests the answers in the Questionnaire's groups (fhir.resources validates it).
        let highDirectory = try #require(highText.split(separator: "\n").first { $0.hasPrefix("run directory: ") }).dropFirst("run directory: ".count)
        let bundle = d.directory + "/high.fhir.json"
        _ = try FHIRExporter().export(try RunSource(directory: String(highDirectory)), to: bundle)
        let check = try await FHIRCheck.run(bundle, run: String(highDirectory))
        #expect(check.answers.map(\.path) == [["before", "medication"], ["before", "dose-date"], ["before", "pain"], ["details", "where"],
                                              ["details", "since", "since-date"], ["details", "since", "temperature"]])
        #expect(check.answers.map(\.type) == ["valueBoolean", "valueDate", "valueInteger", "valueString", "valueDate", "valueDecimal"])
        #expect(check.questionnaire == ["http://clinic.example/fhir/Questionnaire/medication-pain"] && check.responseStatus == ["completed"])

        // Input ends before a required answer: the run is cancelled with its files kept, exit != 0.
        let (endedStatus, endedText, _) = try await run("phq-2", input: "2\n", socket: d.socket)
        #expect(endedStatus != 0 && endedText.contains(#"no answer to the required question "down": the input ended"#), "\(endedText)")

        // An unsupported item: a data error naming the linkId, no run.
        let (badStatus, badText, bad) = try await run("unsupported-attachment", input: "", socket: d.socket)
        #expect(badStatus == 65 && bad == nil && badText.contains(#"item "photo": type "attachment" is not supported"#), "\(badText)")
        try await d.stop()
    }

    @Test(.timeLimit(.minutes(3)), .ownThread)
    func aGaitQuestionnaireRecordsDuringItsWalk() async throws {
        let d = try await TestDaemon.inProcess()
        let (status, printed, result) = try await run("gait-walk", input: "walker\n4\n", socket: d.socket, extra: ["--auto", "--step-seconds", "1"])
        #expect(status == 0, "\(printed)")
        let walk = try #require(result)
        #expect(answers(walk) == ["aid": "walker", "effort": "4"])
        let motion = try #require(walk.asyncResults.first?.file)
        let step = try #require(walk.stepHistory.first { $0.stepPath == "gait-walk/walk" })
        // Recorded during the walk step only: about a second at 100 Hz of two sensor types.
        #expect(motion.startUptime >= step.startUptime && (motion.endUptime ?? .infinity) <= (step.endUptime ?? 0) + 0.5)
        #expect(motion.sampleCount > 100, "\(motion)")
        try await d.stop()
    }

    /// tmux: a real terminal (echo, line editing by the tty driver), keys sent as a person types.
    @Test(.timeLimit(.minutes(3)), .ownThread)
    func aParticipantAnswersInARealTerminal() async throws {
        let d = try await TestDaemon.inProcess()
        let tmux = try Fixtures.temporaryDirectory() + "/tmux.sock"
        func tmuxCommand(_ arguments: [String]) async throws -> String {
            let p = try await ChildProcess("/usr/bin/tmux", ["-S", tmux] + arguments)
            _ = try await p.wait(timeout: 20)
            return p.printed
        }
        let recorderctl = ChildProcess.executable("recorderctl")
        _ = try await tmuxCommand(["new-session", "-d", "-x", "100", "-y", "60", "-s", "task",
                                   "\(recorderctl) run \(Self.directory)/phq-2.json --socket \(d.socket); echo EXIT=$?; sleep 600"])
        let serverPID = Int32(try await tmuxCommand(["display-message", "-p", "-t", "task", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        defer { if serverPID > 0 { kill(serverPID, SIGTERM) } }
        /// Waits until the screen shows `text` `count` times (the screen is the only signal a
        /// person has; tmux drops trailing spaces).
        func screen(showing text: String, count: Int = 1) async throws -> String {
            let deadline = Deadline(seconds: 30)
            var last = ""
            while !deadline.hasPassed {
                last = try await tmuxCommand(["capture-pane", "-p", "-t", "task", "-S", "-100"])
                if last.components(separatedBy: text).count - 1 >= count { return last }
                try await Task.sleep(for: .milliseconds(50))
            }
            Issue.record("the screen never showed \(text.debugDescription) \(count) times:\n\(last)")
            return last
        }
        func type(_ keys: String) async throws { _ = try await tmuxCommand(["send-keys", "-t", "task", keys, "Enter"]) }
        _ = try await screen(showing: "press Enter to continue")
        try await type("")
        _ = try await screen(showing: "(1 to 4) >")
        try await type("Nearly every day")
        _ = try await screen(showing: "(1 to 4) >", count: 2)
        try await type("0")
        _ = try await screen(showing: "try again")
        try await type("1")
        _ = try await screen(showing: "(yes/no, Enter to skip) >")
        try await type("")
        let final = try await screen(showing: "EXIT=")
        #expect(final.contains("EXIT=0"), "\(final)")
        // What was typed is on the screen once (echoed by the terminal, not again by recorderctl):
        // twice in the choice lists, once typed, once in the summary.
        #expect(final.components(separatedBy: "Nearly every day").count - 1 == 4, "\(final)")
        #expect(final.contains("answer interest: Nearly every day") && final.contains("answer down: Not at all") && !final.contains("answer talk"), "\(final)")
        _ = try? await tmuxCommand(["kill-server"])
        try await d.stop()
    }
}
