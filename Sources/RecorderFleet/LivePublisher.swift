import FoundationEssentials
import Glibc
import Logging
import RecorderClient
import RecorderConfiguration
import RecorderModel
import ServiceLifecycle

/// `mqtt.live`: each listed device's records, decimated by the daemon's own `stream.subscribe`
/// (`rate` records per second per sensor type), published at QoS 0 on
/// `{base}/live/{deviceName}/{sensorType}`: one message per sensor type per notification, a JSON
/// array of records as the recording's lines have them (the daemon's text, passed on).
///
/// Live topics are for dashboards: a message the broker cannot take now (the link is down) is
/// not kept — recordings reach the collectors by the lossless upload. A device that is missing or
/// a daemon that restarts is tried again every `retryInterval` seconds, with a log line when the
/// stream stops and one when it is back (never one per message).
struct LivePublisher: Sendable {
    let streams: [MQTTLiveStream]
    let topics: FleetTopics
    let socketPath: String
    let client: MQTTClient
    let isConnected: @Sendable () -> Bool
    var retryInterval: Double = 2
    let logger: Logger

    func run() async {
        await withDiscardingTaskGroup { group in
            for stream in streams {
                group.addTask { await self.follow(stream) }
            }
        }
    }

    /// Subscribes to `stream`'s device over a connection of its own and publishes until cancelled.
    /// At start the control socket may not listen yet: a few quick tries come before a warning.
    func follow(_ stream: MQTTLiveStream) async {
        var failures = 0
        let metadata: Logger.Metadata = ["device": "\(stream.device)", "rate": "\(stream.rate)"]
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            var connection: RecorderClient?
            do {
                let made = try await RecorderClient.connect(socketPath: socketPath)
                connection = made
                let records = try await made.subscribeBatches(device: stream.device, sensorTypes: stream.sensorTypes, rate: stream.rate)
                if failures >= Self.quietFailures { logger.notice("live stream back", metadata: metadata) }
                failures = 0
                logger.info("live stream publishing", metadata: metadata.merging(["topics": "\(topics.base)/live/\(stream.device)/…"]) { a, _ in a })
                for try await batch in records {
                    publish(batch, device: stream.device)
                }
                if !Task.isCancelled, !Task.isShuttingDownGracefully {
                    logger.warning("live stream ended; subscribing again", metadata: metadata)
                    failures = Self.quietFailures
                }
            } catch {
                failures += 1
                if failures == Self.quietFailures, !Task.isCancelled, !Task.isShuttingDownGracefully {
                    logger.warning("live stream unavailable; trying again", metadata: metadata.merging(["error": "\(error)"]) { a, _ in a })
                }
            }
            connection?.close()
            try? await Task.sleep(for: .seconds(failures < Self.quietFailures ? 0.2 : retryInterval))
        }
    }

    /// Failed tries (0.2 s apart) before the warning.
    static let quietFailures = 10

    /// One message per sensor type of the batch's records, in their order (records without a
    /// sensor type, the step markers, are the events topic's business): the records' texts as the
    /// daemon wrote them, in a JSON array, written again by no one.
    func publish(_ batch: LiveBatch, device: String) {
        guard isConnected() else { return }
        var order: [String] = []
        var byType: [String: [Int]] = [:]
        for (index, record) in batch.records.enumerated() {
            guard let type = record.sensorType else { continue }
            if byType[type] == nil { order.append(type) }
            byType[type, default: []].append(index)
        }
        for type in order {
            // QoS 0: a message the link cannot send now is not kept.
            _ = try? client.publish(topic: topics.live(device: device, sensorType: type), payload: batch.jsonArray(byType[type]!), qos: 0)
        }
    }
}
