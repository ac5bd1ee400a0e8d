import FoundationEssentials
import Glibc
import Hummingbird
import HummingbirdWebSocket
import RecorderClient
import RecorderModel
import RecorderProtocol

/// `/devices`: each device's state, rates and error, and a live plot per device fed by
/// `/ws/live/<device>` (the daemon's `stream.subscribe`, decimated).
extension WebSite {
    func registerDevices(on router: Router<Context>) {
        router.get("/devices") { _, _ in
            let status = try await withDaemon { client throws(RecorderClientError) in try await client.status() }
            return page(title: "Devices", section: "devices", template: "devices", DevicesView(status))
        }
        router.get("/api/status") { _, _ in
            try Self.json(try await withDaemon { client throws(RecorderClientError) in try await client.status() })
        }
        router.ws("/ws/live/:device") { _, context in
            guard let device = context.parameters.get("device"), RecorderIdentifier.isValid(device) else { return .dontUpgrade }
            return .upgrade()
        } onUpgrade: { inbound, outbound, context in
            guard let device = context.requestContext.parameters.get("device") else { return }
            // ?types=accelerometer,gravity: the sensor types to plot (default: the device's raw ones).
            let names = context.request.uri.queryParameters["types"].map { $0.split(separator: ",").map(String.init) } ?? []
            let types = names.compactMap(SensorType.init(rawValue:))
            await withSocketPlace(outbound) {
                guard types.count == names.count, names.count <= SensorType.allCases.count else {
                    try? await outbound.writeTextMessage(WebMessage.error("types: expected sensor type names separated by commas"))
                    return
                }
                await LivePlotStream(site: self, device: device, sensorTypes: types.isEmpty ? nil : types).run(inbound: inbound, outbound: outbound)
            }
        }
    }
}
