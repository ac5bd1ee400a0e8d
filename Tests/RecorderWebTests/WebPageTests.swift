import Foundation
import RecorderJSON
import RecorderClient
import RecorderConfiguration
import RecorderModel
import RecorderTestSupport
import Testing

/// recorderd's web page in a real headless Chromium (selenium), against the real recorderd with a
/// replay device: live plots, a task walked from its screen and compared with `recorderctl run`
/// of the same task, the run history, plots and downloads compared with `recorderctl export`,
/// error pages; the token, CSRF and cross-site refusals; a live plot while recorderd stops.
@Suite("The web page in a real browser", .serialized)
struct WebPageTests {
    static let shots = ProcessInfo.processInfo.environment["RECORDERD_WEB_SHOTS"] ?? ""

    @Test(.enabled { await Browser.testsEnabled("WebPageTests") }, .timeLimit(.minutes(6)), .ownThread)
    func aTaskRunFromThePageEqualsRecorderctlRunAndItsExportsDownload() async throws {
        let web = try await WebHarness.start()
        let downloads = web.directory + "/downloads"
        try FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
        let found = try await web.check(["browse", web.base, "gait-short", downloads, Self.shots])

        // Devices: a live plot whose drawn points and time move on.
        let live = try #require(found["live"] as? [String: Any])
        let first = try #require(live["first"] as? [Double]), second = try #require(live["second"] as? [Double])
        #expect(second[0] > first[0] && second[1] >= first[1] + 1, "\(live)")
        #expect(live["status"] as? String == "live")
        #expect((found["toggled"] as? String)?.split(separator: ",").contains("gravity") == true, "\(found["toggled"] ?? "")")
        #expect((found["unknownDevice"] as? String)?.contains("no device named \"nosuch\"") == true, "\(found["unknownDevice"] ?? "")")
        // Tasks: both files listed; the broken one says why.
        #expect(found["tasks"] as? [String] == ["broken", "gait-short"])
        #expect((found["brokenTasks"] as? [String])?.first?.contains("does not parse") == true)

        // The task walked from its screen: every step, the question answered, the gait summaries.
        let run = try #require(found["run"] as? [String: Any])
        #expect(run["steps"] as? [String] == ["instruction", "pain", "countdown", "walking.outbound", "walking.return", "walking.rest", "conclusion"])
        #expect(run["answered"] as? [String] == ["pain"])
        #expect((run["outcome"] as? String)?.hasPrefix("Saved (finished)") == true, "\(run)")
        let summaries = try #require(run["summaries"] as? [String])
        #expect(summaries.count == 3 && summaries.allSatisfy { $0.hasPrefix("gait: gait-balance/walking.") }, "\(summaries)")
        let uuid = try #require(run["run"] as? String)
        #expect((found["listed"] as? [String])?.first == uuid)
        #expect((found["plotWidth"] as? Int ?? 0) > 0)
        #expect(found["runStatus"] as? String == "finished")
        #expect(found["consoleErrors"] as? [String] == [], "\(found["consoleErrors"] ?? "")")

        // The same task through recorderctl run: the same recorders, step paths, answers and files.
        let client = try await RecorderClient.connect(socketPath: web.socket)
        defer { client.close() }
        let webRun = try await client.run(uuid)
        let input = web.directory + "/answers.txt"
        try "4\n".write(toFile: input, atomically: true, encoding: .utf8)
        let ctl = try await ChildProcess(ChildProcess.executable("recorderctl"),
                                   ["run", web.directory + "/tasks/gait-short.json", "--socket", web.socket, "--auto"], standardInput: input)
        #expect(try await ctl.wait(timeout: 90) == 0, "\(ctl.printed)")
        let line = try #require(ctl.printed.split(separator: "\n").first { $0.hasPrefix("task gait-balance finished: ") })
        let ctlRun = try await client.run(String(line.split(separator: " ").last!))
        let (a, b) = (webRun.taskResult, ctlRun.taskResult)
        #expect(a.stepHistory.map(\.stepPath) == b.stepHistory.map(\.stepPath))
        #expect(a.stepHistory.map { $0.results?.map(\.value) } == b.stepHistory.map { $0.results?.map(\.value) })
        let identifiers = { (r: TaskResult) in r.asyncResults.map { $0.file?.identifier ?? $0.error?.identifier ?? "" } }
        #expect(identifiers(a) == identifiers(b))
        #expect(a.asyncResults.map { $0.file?.relativePath } == b.asyncResults.map { $0.file?.relativePath })
        for (x, y) in zip(a.asyncResults.compactMap(\.file), b.asyncResults.compactMap(\.file)) {
            // The timed steps bound the recordings (9 s at 100 Hz): counts agree within the step timing.
            #expect(abs(x.sampleCount - y.sampleCount) <= max(30, y.sampleCount / 20), "\(x.identifier): \(x.sampleCount) vs \(y.sampleCount)")
            #expect(x.stepSummaries?.map(\.stepPath) == y.stepSummaries?.map(\.stepPath))
        }
        let files = { (d: String) in try FileManager.default.contentsOfDirectory(atPath: d).sorted() }
        let webFiles = try files(webRun.summary.runDirectory), ctlFiles = try files(ctlRun.summary.runDirectory)
        #expect(webFiles == ctlFiles)

        // The browser's downloads are the bytes recorderctl export writes.
        #expect(found["downloads"] as? [String] == ["gait-balance-\(uuid.prefix(8)).fhir.json", "gait-balance-\(uuid.prefix(8)).mcap"])
        for format in ["mcap", "fhir"] {
            let name = "gait-balance-\(uuid.prefix(8)).\(format == "fhir" ? "fhir.json" : format)"
            let output = web.directory + "/ctl-" + name
            let export = try await ChildProcess(ChildProcess.executable("recorderctl"), ["export", uuid, "--format", format, "-o", output, "--socket", web.socket])
            #expect(try await export.wait(timeout: 60) == 0, "\(export.printed)")
            let downloaded = try Data(contentsOf: URL(fileURLWithPath: downloads + "/" + name))
            let exported = try Data(contentsOf: URL(fileURLWithPath: output))
            #expect(downloaded.count > 1000 && downloaded == exported, "\(format)")
        }

        // Bad input gets a page that says what is wrong, with a 4xx status, never a 500.
        let pages = try #require(found["errorPages"] as? [String: String])
        let statuses = try #require(found["statuses"] as? [String: Int])
        #expect(pages["/runs/ffffffff"] == "no run ffffffff in the data directory" && statuses["/runs/ffffffff"] == 404)
        #expect(pages["/runs/..%2F..%2Fetc%2Fpasswd"]?.contains("task-run UUID") == true && statuses["/runs/..%2F..%2Fetc%2Fpasswd"] == 400)
        #expect(pages["/tasks/broken"]?.hasPrefix("the task file does not parse:") == true && statuses["/tasks/broken"] == 422)
        #expect(pages["/tasks/nope"] == "no task \"nope\" in the task folder" && statuses["/tasks/nope"] == 404)
        #expect(statuses.values.allSatisfy { (400..<500).contains($0) }, "\(statuses)")
        #expect(try await web.stop() == 0, "\(web.daemon.printed)")
    }

    @Test(.enabled { await Browser.testsEnabled("WebPageTests") }, .timeLimit(.minutes(4)), .ownThread)
    func beyondLoopbackEveryRequestNeedsTheTokenAndCrossSiteRequestsAreRefused() async throws {
        let token = "test-token-" + UUID().uuidString.prefix(12)
        // 0.0.0.0 is not loopback: the token is required (the test reaches it through 127.0.0.1).
        let web = try await WebHarness.start(host: "0.0.0.0", token: String(token))
        let found = try await web.check(["security", web.base, String(token), String(LoopbackTCP.freePort())])
        for label in ["anonymous", "wrongToken"] {
            let answers = try #require(found[label] as? [String: [Any]])
            for (path, answer) in answers {
                let status = try #require(answer.first as? Int)
                if path.hasPrefix("/"), !path.hasPrefix("/api/") {
                    // A page: to the login form, nothing served.
                    #expect(status == 302 && (answer.last as? String)?.hasPrefix("/login?next=") == true, "\(label) \(path): \(answer)")
                } else {
                    #expect((400..<500).contains(status), "\(label) \(path): \(status)")
                }
            }
            #expect(answers.count == 9)
        }
        #expect(found["loginWrong"] as? Int == 401 && found["loginCrossSite"] as? Int == 403 && found["static"] as? Int == 200)
        #expect((found["login"] as? [Any])?.map { "\($0)" } == ["303", "/tasks", "1", "1", "1"], "\(found["login"] ?? "")")
        let withToken = try #require(found["withToken"] as? [String: Int])
        #expect(withToken == ["/devices": 200, "bearer /api/status": 200, "WS same origin": 101, "WS cross-site": withToken["WS cross-site"] ?? 101,
                              "POST no CSRF": 403, "POST wrong CSRF": 403, "POST cross-site with CSRF": 403, "POST same origin with CSRF": 200, "PUT": 405])
        #expect((400..<500).contains(withToken["WS cross-site"] ?? 101))
        let paths = try #require(found["paths"] as? [String: [Any]])
        for (path, answer) in paths {
            #expect((400..<500).contains(answer[0] as? Int ?? 0) && answer[1] as? Bool == false, "\(path): \(answer)")
        }
        // The real browser: sent to the login form, in after it, live data; a page of another
        // origin can neither open the WebSocket nor post to the API.
        #expect(found["browserRedirect"] as? String == "/login")
        #expect(((found["browserLive"] as? [String: Any])?["status"] as? String) == "live")
        #expect(found["crossSiteWebSocket"] as? String == "refused")
        let crossSitePost = try #require(found["crossSitePost"] as? String)
        #expect(crossSitePost.contains("refused") || crossSitePost.contains("token is required"), "\(crossSitePost)")
        #expect(try await web.stop() == 0)
    }

    @Test(.timeLimit(.minutes(2)), .ownThread)
    func aTakenAddressLeavesRecordingAloneAndIsTriedAgain() async throws {
        // Something else listens on the page's port: recorderd still serves its control socket
        // and says why the page is missing.
        let port = LoopbackTCP.freePort()
        let squatter = try LoopbackTCP.listen(port: port)
        let web = try await WebHarness.start(port: port, awaitingPage: false)
        let client = try await RecorderClient.connect(socketPath: web.socket)
        #expect(try await client.devices().map(\.name) == ["imu0"])
        client.close()
        // It tried and said why (read while it runs).
        let tried = try await web.daemon.printed(where: { $0.contains("web page cannot listen; trying again") }, timeout: 30)
        #expect(tried != nil, "\(web.daemon.printedSoFar())")
        // Once the address is free the page takes it (it tries every 5 s).
        close(squatter)
        #expect(try await web.pageListening(times: 1))
        #expect(LoopbackTCP.accepts(port: port))
        #expect(try await web.stop() == 0, "\(web.daemon.printed)")
    }

    /// A client that opens connection after connection to the page cannot take the daemon's
    /// descriptors (running out would stop its recordings): the page runs in recorderd's services
    /// process, which holds at most 32 of them, the rest wait in the backlog; the recording
    /// process holds not one more, recording goes on, and the page answers again once they close.
    @Test(.timeLimit(.minutes(2)), .ownThread)
    func connectionsToThePageBeyondItsShareWaitInTheBacklog() async throws {
        let web = try await WebHarness.start()
        #expect(LoopbackTCP.statusLine(port: web.port, path: "/api/status", timeout: 20) == "HTTP/1.1 200 OK")
        let services = try #require(web.daemon.onlyChild, "recorderd's services process")
        let idle = web.daemon.openDescriptors
        var held: [Int32] = []
        // From 16 addresses (127.0.0.0/8 is loopback), 13 connections each: under the page's cap per
        // address, so the cap reached here is the process's own.
        for i in 0..<200 { if let fd = LoopbackTCP.connect(port: web.port, from: "127.0.0.\(10 + i % 16)") { held.append(fd) } }
        // The page takes its share: 32, or up to 3 more taken in the accept batch that reached 32
        // (NIO accepts up to 4 per wake-up). Counted as the kernel lists the services process's
        // accepted sockets.
        let page = DaemonLimits.webConnections...(DaemonLimits.webConnections + 3)
        var accepted = 0
        let deadline = Deadline(seconds: 30)
        repeat {
            accepted = LoopbackTCP.acceptedConnections(pid: services, port: web.port) ?? -1
            if accepted >= page.lowerBound || deadline.hasPassed { break }
            try await Task.sleep(for: .milliseconds(20))
        } while true
        // Once the page has taken its share, one more request waits unanswered.
        let waiting = LoopbackTCP.statusLine(port: web.port, path: "/api/status", timeout: 1)
        let later = LoopbackTCP.acceptedConnections(pid: services, port: web.port) ?? -1
        let busy = web.daemon.openDescriptors
        print("WEB connections: \(held.count) open, the page holds \(accepted) then \(later); the daemon holds \(busy) descriptors (\(idle) before)")
        #expect(page.contains(accepted) && page.contains(later), "\(accepted), then \(later)")
        // The recording process took none of them (the page's own control connections come and
        // go: a request's client may still be closing).
        #expect(LoopbackTCP.acceptedConnections(pid: web.daemon.pid, port: web.port) == 0)
        #expect(busy <= idle + 2, "\(idle) → \(busy)")
        #expect(waiting == nil, "\(waiting ?? "")")
        let client = try await RecorderClient.connect(socketPath: web.socket)
        let run = try await client.startTask(identifier: "t", asyncActions: [.motion("m")])
        for fd in held { close(fd) }
        #expect(LoopbackTCP.statusLine(port: web.port, path: "/api/status", timeout: 20) == "HTTP/1.1 200 OK")
        let result = try await run.finish()
        #expect(result.asyncResults.compactMap(\.file).first?.droppedSamples == 0)
        client.close()
        #expect(try await web.stop() == 0, "\(web.daemon.printed)")
    }

    @Test(.enabled { await Browser.testsEnabled("WebPageTests") }, .timeLimit(.minutes(3)), .ownThread)
    func aLivePlotSaysSoWhenItsDeviceGoesAway() async throws {
        let web = try await WebHarness.start()
        let ready = web.directory + "/ready"
        let checker = try await ChildProcess("/usr/bin/env", ["python3", WebHarness.checker, "live", web.base, ready, "30"])
        // The checker makes the file once the plot is live.
        try #require(try await FileText.await(ready, timeout: 60) { $0 != nil } != nil, "\(checker.printed)")
        // The device leaves the configuration (SIGHUP reloads it without devices).
        let configuration = web.directory + "/recorderd.json"
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: configuration))) as? [String: Any])
        json["devices"] = [[String: Any]]()
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: configuration))
        kill(web.daemon.pid, SIGHUP)
        #expect(try await checker.wait(timeout: 60) == 0, "\(checker.printed)")
        let line = try #require(checker.printed.split(separator: "\n").last { $0.hasPrefix("{") })
        let found = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        // Not left showing "live" on a stream that goes nowhere: it says what happened.
        #expect(found["after"] as? String == "imu0 is no longer configured (the configuration was reloaded without it)", "\(found)")
        #expect(try await web.stop() == 0, "\(web.daemon.printed)")
    }

    @Test(.enabled { await Browser.testsEnabled("WebPageTests") }, .timeLimit(.minutes(3)), .ownThread)
    func aTabClosedMidTaskLeavesTheRunToTheOrphanRulesAndTasksCancelsIt() async throws {
        let web = try await WebHarness.start()
        let found = try await web.check(["abandon", web.base, "gait-short"])
        let active = try #require(found["active"] as? [String])
        // The closed tab did not cancel it: the run was still recording, listed with its Cancel.
        try #require(active.count == 1, "\(found)")
        #expect(found["afterCancel"] as? [String] == [] && found["consoleErrors"] as? [String] == [], "\(found)")
        let client = try await RecorderClient.connect(socketPath: web.socket)
        defer { client.close() }
        let run = try await client.run(active[0])
        #expect(run.summary.status == .cancelled)
        // Cancelled with its files kept: the motion recorded while walking is there.
        let motion = try #require(run.taskResult.asyncResults.compactMap(\.file).first { $0.identifier == "motion" })
        #expect(motion.sampleCount > 0 && FileManager.default.fileExists(atPath: run.summary.runDirectory + "/" + motion.relativePath))
        #expect(try await web.stop() == 0)
    }

    /// A clinical walking test's task file (the timed 10-metre walk, its steps shortened) walked
    /// from its screen over a replayed straight walk (HA/001's first, INDIP's reference speed
    /// 1.06 m/s), with the sensor height typed in: a height out of range is refused with its
    /// range; the page prints the test's outcome, the same as the task result's; the speed
    /// within 15 % of INDIP's.
    @Test(.enabled { await Browser.testsEnabled("WebPageTests") }, .timeLimit(.minutes(3)), .ownThread)
    func aWalkingTestRunFromThePagePrintsItsOutcomeWithTheHeightTypedIn() async throws {
        let path = WebHarness.taskFile("timed-walk-10m")
        var task = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        var steps = try #require(task["steps"] as? [[String: Any]])
        for i in steps.indices where steps[i]["duration"] != nil {
            // The recording is 12.5 s long and replayed from the walk's start.
            steps[i]["duration"] = steps[i]["identifier"] as? String == "walk" ? 13 : 1
        }
        task["steps"] = steps
        let trial = "HA/001/TimeMeasure1_Test5_Trial1"
        let web = try await WebHarness.start(device: Fixtures.replayDevice(file: Fixtures.root + "/imu/mobgap/\(trial).csv", loop: false),
                                             tasks: ["timed-walk": try JSONSerialization.data(withJSONObject: task)])
        let found = try await web.check(["participant", web.base, "timed-walk", "0.964"])
        #expect(found["fields"] as? [String] == ["body-height", "sensor-height"], "\(found)")
        #expect(found["refused"] as? String == "Cannot start: bodyHeight: expected a height in metres >= 0.5 and <= 2.75", "\(found)")
        let run = try #require(found["run"] as? [String: Any])
        #expect(run["steps"] as? [String] == ["instruction", "countdown", "walk", "conclusion"], "\(run)")
        #expect((run["outcome"] as? String)?.hasPrefix("Saved (finished)") == true, "\(run)")
        // The browser logs the refused start (a 400), and nothing else.
        let errors = try #require(found["consoleErrors"] as? [String])
        #expect(errors.count == 1 && errors[0].contains("sessions?bodyHeight=9 - Failed to load resource: the server responded with a status of 400"), "\(errors)")

        // The page's last word on the walk is the task result's.
        let summaries = try #require(run["summaries"] as? [String])
        let printed = try #require(summaries.last { $0.hasPrefix("gait") && $0.contains("timed walk: ") }, "\(summaries)")
        let client = try await RecorderClient.connect(socketPath: web.socket)
        defer { client.close() }
        let result = try await client.run(try #require(run["run"] as? String)).taskResult
        let gait = try #require(result.asyncResults.compactMap(\.file).first { $0.identifier == "gait" })
        let summary = try #require(gait.stepSummaries?.first { $0.stepPath.hasSuffix("/walk") })
        print("page: \(printed)")
        #expect(printed.hasSuffix(": " + summary.headline), "page: \(printed); task result: \(summary.headline)")
        let outcome = try #require(summary.walkingTest)
        #expect(outcome.distance == 10)
        let speed = try #require(outcome.walkingSpeed)
        let bouts = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Fixtures.root + "/imu/mobgap/reference_walking_bouts.json")))
        let reference = try #require((((bouts as? [String: Any])?[trial] as? [String: Any])?["bouts"] as? [[String: Any]])?.first?["walkingSpeed"] as? Double)
        #expect(abs(speed - reference) <= 0.15 * reference, "\(speed) m/s against INDIP's \(reference)")
        #expect(printed.contains(FixedDecimal.text(speed, decimals: 2) + " m/s"), "\(printed)")
        #expect(try await web.stop() == 0, "\(web.daemon.printed)")
    }
}
