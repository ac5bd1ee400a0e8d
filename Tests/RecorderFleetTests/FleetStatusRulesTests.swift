import Foundation
@testable import RecorderFleet
import RecorderModel
import Testing
import RecorderProtocol

/// The fleet link's publishing rules without a broker.
@Suite struct FleetStatusRulesTests {
    let runA = UUID(uuidString: "00000000-0000-0000-0000-00000000000A")!

    let runB = UUID(uuidString: "00000000-0000-0000-0000-00000000000B")!

    func status(runs: [ActiveTaskRun] = [], imu: DeviceState = .available, error: String? = nil, uptime: Double = 1, disk: DiskUsage? = nil,
                ended: [EndedTaskRun]? = nil) -> DaemonStatus {
        DaemonStatus(version: "1", uptimeSeconds: uptime, pid: 1, dataDirectory: "/d",
                     devices: [DeviceInfo(name: "imu0", kind: "iio", state: imu, sensorTypes: [.accelerometer], error: error)],
                     taskRuns: runs, disk: disk, recentlyEnded: ended)
    }

    func run(_ id: UUID, step: String? = nil) -> ActiveTaskRun {
        ActiveTaskRun(taskIdentifier: "walk", taskRunUUID: id, runDirectory: "/d/runs/walk/x", currentStepPath: step, recording: ["motion"])
    }

    func published(_ actions: [FleetStatusRules.Action]) -> [FleetStatus] {
        actions.compactMap { if case .publishStatus(let s) = $0 { s } else { nil } }
    }

    func events(_ actions: [FleetStatusRules.Action]) -> [FleetEvent] {
        actions.compactMap { if case .publishEvent(let e) = $0 { e } else { nil } }
    }

    @Test func nothingIsPublishedBeforeTheBrokerAcceptsThenTheLastStatusAtOnce() {
        var rules = FleetStatusRules(site: "s", device: "d", statusInterval: 60)
        #expect(rules.observed(status(), now: 0, time: "t0").isEmpty)
        let actions = rules.connected(now: 1, time: "t1")
        #expect(events(actions).map(\.event) == [.online])
        let s = published(actions)
        #expect(s.count == 1 && s[0].state == .online && s[0].devices?.first?.name == "imu0" && s[0].time == "t1")
    }

    /// A fleet view's status request (for brokers that give retained messages to exact topics
    /// only): the status again, at most once a second however often asked; nothing while
    /// disconnected or before the daemon's first answer.
    @Test func aStatusRequestIsAnsweredAtMostOnceASecond() {
        var rules = FleetStatusRules(site: "s", device: "d", statusInterval: 60)
        _ = rules.connected(now: 0, time: "t")
        #expect(rules.statusRequested(now: 0.5, time: "t").isEmpty, "no status yet")
        _ = rules.observed(status(uptime: 1), now: 1, time: "t1")
        let answer = published(rules.statusRequested(now: 2, time: "t2"))
        #expect(answer.count == 1 && answer[0].time == "t2" && answer[0].device == "d")
        #expect(rules.statusRequested(now: 2.5, time: "t").isEmpty, "a flood of requests: one answer a second")
        #expect(published(rules.statusRequested(now: 3, time: "t3")).count == 1)
        rules.disconnected()
        #expect(rules.statusRequested(now: 10, time: "t").isEmpty)
    }

    @Test func anUnchangedStatusWaitsForTheIntervalAChangeDoesNot() {
        var rules = FleetStatusRules(site: "s", device: "d", statusInterval: 60)
        _ = rules.connected(now: 0, time: "t")
        #expect(published(rules.observed(status(uptime: 1), now: 0, time: "t")).count == 1)
        // Uptime moves every second: not a change a fleet view needs at once.
        #expect(published(rules.observed(status(uptime: 2), now: 1, time: "t")).isEmpty)
        #expect(!rules.wantsDisk(now: 59))
        #expect(rules.wantsDisk(now: 60))
        #expect(published(rules.observed(status(uptime: 61), now: 60, time: "t")).count == 1)
        // A run's step changing is published at once.
        #expect(published(rules.observed(status(runs: [run(runA, step: "walk/a")]), now: 61, time: "t")).count == 1)
        #expect(published(rules.observed(status(runs: [run(runA, step: "walk/b")]), now: 62, time: "t")).count == 1)
        #expect(published(rules.observed(status(runs: [run(runA, step: "walk/b")]), now: 63, time: "t")).isEmpty)
    }

    @Test func runsAndDeviceFaultsBecomeEventsEvenWhileDisconnected() {
        var rules = FleetStatusRules(site: "s", device: "d", statusInterval: 60)
        _ = rules.observed(status(), now: 0, time: "t")
        let started = rules.observed(status(runs: [run(runA)]), now: 1, time: "t")
        #expect(events(started) == [FleetEvent(event: .taskRunStarted, time: "t", taskIdentifier: "walk", taskRunUUID: runA)])
        #expect(published(started).isEmpty, "not connected: no status")
        let fault = rules.observed(status(runs: [run(runA)], imu: .unavailable, error: "gone"), now: 2, time: "t")
        #expect(events(fault) == [FleetEvent(event: .deviceFault, time: "t", device: "imu0", error: "gone")])
        // The same fault again is no new event; another error is.
        #expect(events(rules.observed(status(runs: [run(runA)], imu: .unavailable, error: "gone"), now: 3, time: "t")).isEmpty)
        #expect(events(rules.observed(status(runs: [run(runA)], imu: .unavailable, error: "other"), now: 4, time: "t")).map(\.event) == [.deviceFault])
        let ended = rules.observed(status(imu: .sampling), now: 5, time: "t")
        #expect(events(ended).map(\.event).sorted { $0.rawValue < $1.rawValue } == [.deviceRecovered, .taskRunEnded])
    }

    /// A run that began and ended between two looks still gets both events, the end with how it
    /// ended and when; a run seen recording gets its end once, from the list.
    @Test func runsShorterThanALookGetTheirEventsFromTheEndedList() {
        var rules = FleetStatusRules(site: "s", device: "d", statusInterval: 60)
        _ = rules.observed(status(runs: [run(runA)], ended: []), now: 0, time: "t0")
        let quickB = EndedTaskRun(taskRunUUID: runB, taskIdentifier: "tap", status: .cancelled, ended: "tB")
        let endedA = EndedTaskRun(taskRunUUID: runA, taskIdentifier: "walk", status: .finished, ended: "tA")
        let actions = rules.observed(status(ended: [quickB, endedA]), now: 1, time: "t1")
        #expect(events(actions) == [
            FleetEvent(event: .taskRunStarted, time: "t1", taskIdentifier: "tap", taskRunUUID: runB),
            FleetEvent(event: .taskRunEnded, time: "tB", taskIdentifier: "tap", taskRunUUID: runB, status: .cancelled),
            FleetEvent(event: .taskRunEnded, time: "tA", taskIdentifier: "walk", taskRunUUID: runA, status: .finished),
        ])
        // Looked at again: nothing new.
        #expect(events(rules.observed(status(ended: [quickB, endedA]), now: 2, time: "t2")).isEmpty)
        // A recorderd started again (its list begins empty): no event from the list shrinking.
        #expect(events(rules.observed(status(ended: []), now: 3, time: "t3")).isEmpty)
    }

    @Test func anAnswerWithoutTheDiskKeepsTheLastMeasured() {
        var rules = FleetStatusRules(site: "s", device: "d", statusInterval: 60)
        _ = rules.connected(now: 0, time: "t")
        let disk = DiskUsage(runsBytes: 1, freeBytes: 2, totalBytes: 3)
        #expect(published(rules.observed(status(disk: disk), now: 0, time: "t")).first?.disk == disk)
        #expect(published(rules.observed(status(runs: [run(runA)]), now: 1, time: "t")).first?.disk == disk)
    }
}
