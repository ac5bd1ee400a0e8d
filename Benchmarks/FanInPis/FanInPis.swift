import Foundation
import Logging
import RecorderConfiguration
import RecorderFleet
import RecorderJSON
import ServiceLifecycle

/// Many simulated Pis in one process for the fan-in benchmark (scripts/fleet-benchmark.sh
/// fanin200): each is recorderd's own fleet link (`FleetAgent`: its MQTT client, status and
/// uploader) with a data directory of its own whose outbox holds the runs to upload (written by
/// the benchmark), and no recorderd behind it. What is measured is the collectors and the broker;
/// a whole recorderd per Pi (two processes, 66 MiB) would not fit 200 times beside them on the
/// benchmark machine. Pi `i` is `pi-i` of site `site-(i mod SITES)`. Runs until SIGTERM.
///
///     FanInPis BROKER_URL PROTOCOL SITES COUNT ROOT     (ROOT/pi-i/data is Pi i's data directory)
enum FanInPis {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 6, ["auto", "5", "3.1.1"].contains(arguments[2]), let sites = Int(arguments[3]), (1...100).contains(sites),
              let count = Int(arguments[4]), (1...1000).contains(count) else {
            FileHandle.standardError.write(Data("usage: FanInPis BROKER_URL auto|5|3.1.1 SITES(1-100) COUNT(1-1000) ROOT\n".utf8))
            exit(64)
        }
        let (broker, version, root) = (arguments[1], arguments[2], arguments[5])
        var logger = Logger(label: "fanin")
        logger.logLevel = .error
        var agents: [FleetAgent] = []
        for i in 0..<count {
            let json = #"{"broker": \#(broker.debugDescription), "site": "site-\#(i % sites)", "device": "pi-\#(i)", "protocol": "\#(version)"}"#
            do {
                let configuration = try JSONValueDecoder().decode(MQTTConfiguration.self, from: Array(json.utf8))
                agents.append(FleetAgent(configuration: configuration, socketPath: "\(root)/no-recorderd.sock", dataDirectory: "\(root)/pi-\(i)/data",
                                         baseDirectory: root, logger: logger))
            } catch {
                FileHandle.standardError.write(Data("FanInPis: \(error)\n".utf8))
                exit(64)
            }
        }
        print("FanInPis: \(count) fleet links of \(sites) sites to \(broker) (MQTT \(version))")
        let group = ServiceGroup(services: agents, gracefulShutdownSignals: [.sigterm], logger: logger)
        do {
            try await group.run()
        } catch {
            FileHandle.standardError.write(Data("FanInPis: \(error)\n".utf8))
            exit(1)
        }
    }
}
