@testable import RecorderFleet
import Testing

/// The order and the waits of the link's attempts over a broker's nodes, without a broker.
/// (With brokers: `FleetOnRabbitMQClusterTests`, a node killed mid-upload.)
@Suite struct MQTTNodeRotationTests {
    @Test func oneNodeWaitsLikeLibmosquitto() {
        var rotation = MQTTNodeRotation(count: 1)
        let waits = (0..<7).map { _ in rotation.ended(wasAccepted: false) }
        #expect(waits.map(\.node) == Array(repeating: 0, count: 7))
        #expect(waits.map(\.delay) == [1, 4, 9, 16, 25, 30, 30])
        #expect(rotation.ended(wasAccepted: true) == (0, 1), "accepted, then lost: from 1 s again")
    }

    @Test func aNodeThatFailsMovesTheLinkOnAtOnceAndAFailedRoundWaits() {
        var rotation = MQTTNodeRotation(count: 3)
        // Every node down: straight through the three, then a wait of 1 s; the next round 4 s.
        let attempts = (0..<6).map { _ in rotation.ended(wasAccepted: false) }
        #expect(attempts.map(\.node) == [1, 2, 0, 1, 2, 0])
        #expect(attempts.map(\.delay) == [0, 0, 1, 0, 0, 4])
        // Node 0 accepted the link, then died: on to node 1 at once, and the count starts again.
        #expect(rotation.ended(wasAccepted: true) == (1, 0))
        #expect(rotation.ended(wasAccepted: false) == (2, 0))
        #expect(rotation.ended(wasAccepted: false) == (0, 1), "a full round of failures since")
        #expect(rotation.current == 0 && rotation.failures == 3)
    }

    /// Connections accepted and dropped at once, node after node (a cluster without a leader for
    /// a moment): failures, so the rounds wait as if refused.
    @Test func aConnectionDroppedSoonAfterItWasAcceptedIsAFailure() {
        var rotation = MQTTNodeRotation(count: 3, stableAfter: 10)
        let attempts = (0..<6).map { _ in rotation.ended(wasAccepted: true, lasted: 0.01) }
        #expect(attempts.map(\.delay) == [0, 0, 1, 0, 0, 4])
        #expect(rotation.ended(wasAccepted: true, lasted: 10).delay == 0 && rotation.failures == 1, "one that lasted resets the count")
    }
}
