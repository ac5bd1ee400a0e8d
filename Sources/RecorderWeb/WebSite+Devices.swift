import Foundation
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
            return page(title: "Devices", section: "devices", body: devicesBody(status))
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

    func devicesBody(_ status: DaemonStatus) -> String {
        var html = "<h1>Devices</h1>\n"
        if status.devices.isEmpty { html += "<p>No devices are configured (<code>devices</code> in recorderd.json).</p>" }
        for d in status.devices {
            let types = (d.sensorTypes + (d.fusedTypes ?? [])).map(\.rawValue)
            let toggles = types.count > 1 ? "<p class=\"types\" data-role=\"types\">" + types.map {
                "<button type=\"button\" data-type=\"\($0)\" aria-pressed=\"\(d.sensorTypes.map(\.rawValue).contains($0))\">\($0)</button>"
            }.joined(separator: " ") + "</p>" : ""
            let rate = d.rate.map { HTML.number($0, digits: 1) + " Hz" } ?? "–"
            html += """
            <section class="device" id="device-\(HTML.escape(d.name))">
            <h2>\(HTML.escape(d.name)) <span class="state state-\(HTML.escape(d.state.rawValue))" data-role="state">\(HTML.escape(d.state.rawValue))</span></h2>
            <p class="meta">\(HTML.escape(d.kind)) · \(HTML.escape(d.sensorTypes.map(\.rawValue).joined(separator: ", "))) · \(rate)\(d.users.map { " · \($0) users" } ?? "")</p>
            <p class="error" data-role="error"\(d.error == nil ? " hidden" : "")>\(HTML.escape(d.error ?? ""))</p>
            \(toggles)
            <canvas class="live" width="640" height="\(max(1, d.sensorTypes.count) * 90)" data-device="\(HTML.escape(d.name))" data-types="\(HTML.escape(types.joined(separator: ",")))" data-drawn="0"></canvas>
            <p class="live-status" data-role="live-status">connecting…</p>
            </section>

            """
        }
        html += "<p class=\"meta\">recorderd \(HTML.escape(status.version)) · pid \(status.pid) · up \(HTML.number(status.uptimeSeconds, digits: 0)) s"
        if let disk = status.disk { html += " · runs \(HTML.bytes(disk.runsBytes)), \(HTML.bytes(disk.freeBytes)) free" }
        html += "</p>"
        return html
    }
}
