import RecorderDaemon
import Testing

/// When recorderd starts its services process again, without processes.
@Suite struct ServicesRestartRulesTests {
    @Test func earlyEndsDoubleTheDelayUpToTheLongestAndAStableRunResetsIt() {
        var rules = ServicesRestartRules(firstDelay: 1, longestDelay: 8, stableLifetime: 60)
        #expect(rules.begin() == .start(after: 0))
        let delays = (0..<6).map { _ in rules.ended(after: 0.5) }
        #expect(delays == [1, 2, 4, 8, 8, 8].map { .start(after: $0) })
        // A run that lasted: the next start is after the first delay again, and doubles from there.
        #expect(rules.ended(after: 60) == .start(after: 1))
        #expect(rules.ended(after: 59.9) == .start(after: 2))
    }

    @Test func nothingStartsOnceTheDaemonStops() {
        var rules = ServicesRestartRules()
        #expect(rules.stop() == .stop)
        #expect(rules.begin() == .stop)
        #expect(rules.ended(after: 100) == .stop)
        #expect(rules.ended(after: 0) == .stop)
    }
}
