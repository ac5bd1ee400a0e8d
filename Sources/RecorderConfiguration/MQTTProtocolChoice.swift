/// Which MQTT protocol a broker connection speaks (`mqtt.protocol`, recorderctl's `--protocol`).
///
/// MQTT 5 is what recorderd speaks best, but many brokers studies run speak 3.1.1 only
/// (RabbitMQ's MQTT plugin before 3.13, Azure IoT Hub, many embedded brokers); the only MQTT 5
/// feature used is the collectors' shared subscription (`recorderctl collect --share`).
public enum MQTTProtocolChoice: String, Sendable, Equatable, CaseIterable {
    /// MQTT 5, and 3.1.1 when the broker refuses 5 ("unsupported protocol version"); what worked
    /// is kept for the connection's life (its reconnections too).
    case auto
    case v5 = "5"
    case v311 = "3.1.1"

    /// What a wrong value is told.
    public static let expected = "expected \"auto\", \"5\" or \"3.1.1\""
}
