import FoundationEssentials
import Glibc
import HummingbirdWebSocket
import RecorderClient
import RecorderModel
import RecorderProtocol

/// One open live plot: `/ws/live/<device>` subscribed to the device over a control connection of
/// its own, decimated by the daemon to `rate` records per second and sensor type, sent on as
/// compact JSON (one message per notification), with the device's state whenever it changes.
/// Ends, closing the subscription, when the browser goes or the stream ends.
struct LivePlotStream: Sendable {
    let site: WebSite
    let device: String
    /// The types to plot (nil: the device's raw ones).
    let sensorTypes: [SensorType]?
    /// Records per second and sensor type a plot gets (a canvas shows 10 s).
    static let rate = 25.0
    /// How often the device's state is looked at.
    static let stateInterval: Duration = .seconds(2)

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        guard let client = await site.connect(for: outbound) else { return }
        defer { client.close() }
        let records: AsyncThrowingStream<[Record], any Error>
        do {
            records = try await client.subscribe(device: device, sensorTypes: sensorTypes, rate: Self.rate)
        } catch {
            try? await outbound.writeTextMessage(WebMessage.error("cannot subscribe to \(device): \(error)"))
            try? await outbound.close(.normalClosure, reason: nil)
            return
        }
        let device = self.device
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for try await batch in records {
                        try await outbound.writeTextMessage(LivePoints.encode(batch))
                    }
                    try? await outbound.writeTextMessage(WebMessage.error("the live stream of \(device) ended (recorderd stopped or the device went away)"))
                } catch {
                    try? await outbound.writeTextMessage(WebMessage.error("the live stream of \(device) failed: \(error)"))
                }
            }
            group.addTask {
                var last: (DeviceState, String?)?
                while !Task.isCancelled {
                    guard let status = try? await client.status(disk: false) else { break }
                    guard let d = status.devices.first(where: { $0.name == device }) else {
                        // Removed from the configuration (a reload): its stream ends here.
                        try? await outbound.writeTextMessage(WebMessage.error("\(device) is no longer configured (the configuration was reloaded without it)"))
                        break
                    }
                    if last.map({ $0 != (d.state, d.error) }) ?? true {
                        last = (d.state, d.error)
                        try? await outbound.writeTextMessage(WebMessage.state(d))
                    }
                    try? await Task.sleep(for: Self.stateInterval)
                }
            }
            group.addTask {
                do { for try await _ in inbound {} } catch {}
            }
            await group.next()
            group.cancelAll()
            try? await outbound.close(.normalClosure, reason: nil)
        }
    }
}
