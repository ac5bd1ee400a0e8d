import RecorderConfiguration
@testable import RecorderFleet
import Testing

/// `mqtt.protocol`'s negotiation as rules, without a broker: what each CONNACK code does to the
/// protocol spoken. (With brokers: `FleetLinkTests`, mosquitto logging each side's protocol.)
@Suite struct MQTTProtocolStateTests {
    @Test func autoFallsBackTo311OnceWhenTheBrokerRefuses5() {
        var state = MQTTCallbacks.ProtocolState(.auto)
        #expect(state.speaking == .v5 && state.mayFallBack)
        // libmosquitto's code for a 3.1.1 broker's short CONNACK to MQTT 5: 0x84.
        #expect(state.connack(0x84) == .fallBack && state.speaking == .v311)
        // Refused again (3.1.1's "unacceptable protocol version"): a refusal, no second turn.
        #expect(state.connack(1) == .refused && state.speaking == .v311)
        var plain = MQTTCallbacks.ProtocolState(.auto)
        #expect(plain.connack(1) == .fallBack, "3.1.1's return code 1 too")
    }

    /// A broker of 3.1.1 may close the connection on a CONNECT of MQTT 5 without a CONNACK
    /// (RabbitMQ's plugin before 3.13): libmosquitto's "connection lost" (7) before any answer.
    @Test func aConnectionClosedBeforeAnyAnswerTo5IsAFallBackToo() {
        var state = MQTTCallbacks.ProtocolState(.auto)
        let downBroker = state.disconnected(14)
        #expect(downBroker == .lost && state.speaking == .v5, "a refused or failed connect (the broker down) says nothing of the protocol")
        let closed = state.disconnected(7)
        #expect(closed == .fallBack && state.speaking == .v311 && !state.mayFallBack)
        let again = state.disconnected(7)
        #expect(again == .lost, "once")
        var answered = MQTTCallbacks.ProtocolState(.auto)
        _ = answered.connack(0x86)
        let afterAnswer = answered.disconnected(7)
        #expect(afterAnswer == .lost, "a connection the broker answered (and refused) is no protocol matter")
        let unanswered = answered.disconnected(7)
        #expect(unanswered == .fallBack, "the next connection, closed unanswered, is")
        var accepted = MQTTCallbacks.ProtocolState(.auto)
        _ = accepted.connack(0)
        _ = accepted.disconnected(7)
        let later = accepted.disconnected(7)
        #expect(later == .lost && accepted.speaking == .v5, "MQTT 5 worked: kept")
    }

    /// A TLS handshake that failed (libmosquitto logged OpenSSL's error) is a refusal in its words,
    /// not a protocol matter; other logged errors are a lost connection.
    @Test func aFailedTLSHandshakeIsARefusalWithLibmosquittosWords() {
        var tls = MQTTCallbacks.ProtocolState(.auto)
        tls.failed = true
        tls.failure = "OpenSSL Error[0]: error:0A000418:SSL routines::tlsv1 alert unknown ca"
        let refusedCertificate = tls.disconnected(7)
        #expect(refusedCertificate == .refused("the TLS handshake failed: OpenSSL Error[0]: error:0A000418:SSL routines::tlsv1 alert unknown ca"))
        #expect(tls.speaking == .v5 && tls.failure == nil && !tls.failed)
        var other = MQTTCallbacks.ProtocolState(.auto)
        other.failed = true
        other.failure = "Error: something else"
        let lost = other.disconnected(7)
        #expect(lost == .lost && other.speaking == .v5)
    }

    /// `protocol` "5" against a broker of 3.1.1 that closes the connection unanswered: a refusal
    /// that says what to set — until MQTT 5 was accepted once (then a close is a close).
    @Test func fiveClosedUnansweredIsARefusalThatSaysWhatToSet() {
        var five = MQTTCallbacks.ProtocolState(.v5)
        let ending = five.disconnected(7)
        let why: String? = if case .refused(let text) = ending { text } else { nil }
        #expect(why?.contains("without an answer") == true && why?.contains("\"auto\" or \"3.1.1\"") == true, "\(ending)")
        #expect(five.disconnected(14) == .lost, "a connect that failed is no refusal")
        _ = five.connack(0)
        #expect(five.disconnected(7) == .lost)
        var old = MQTTCallbacks.ProtocolState(.v311)
        #expect(old.disconnected(7) == .lost)
    }

    @Test func whatWorkedIsKeptAndOtherRefusalsAreRefusals() {
        var state = MQTTCallbacks.ProtocolState(.auto)
        #expect(state.connack(0) == .connected)
        #expect(state.connack(0x84) == .refused && state.speaking == .v5, "once MQTT 5 worked, it is kept")
        var credentials = MQTTCallbacks.ProtocolState(.auto)
        #expect(credentials.connack(0x86) == .refused && credentials.speaking == .v5, "bad user name or password is no protocol matter")
        #expect(credentials.connack(5) == .refused && credentials.mayFallBack)
        var five = MQTTCallbacks.ProtocolState(.v5)
        #expect(five.connack(0x84) == .refused && five.speaking == .v5, "5, told so, stays 5")
        var old = MQTTCallbacks.ProtocolState(.v311)
        #expect(old.speaking == .v311 && old.connack(1) == .refused)
    }

    @Test func refusalsSayWhatTheBrokerAnswered() {
        #expect(MQTTClient.describeConnack(0x84) == "Unsupported Protocol Version (CONNACK 132)")
        #expect(MQTTClient.describeConnack(5).hasSuffix("(CONNACK 5)") && MQTTClient.describeConnack(5).contains("not authorised"))
        #expect(MQTTClient.describeConnack(0x87).contains("Not authorized"))
    }
}
