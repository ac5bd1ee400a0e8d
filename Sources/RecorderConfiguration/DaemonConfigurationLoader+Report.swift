import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel
import RecorderRuntime

extension DaemonConfigurationLoader.Check {
    /// What `recorderd --check-config` prints: the effective configuration (defaults filled in)
    /// on standard output when there is no problem; every problem and every warning on standard
    /// error; 0 or 78 (configuration).
    public func report(json: Bool) -> (output: String, errors: String, status: SysexitStatus) {
        var errors = ""
        for warning in warnings { errors += "\(path): warning: \(warning)\n" }
        guard problems.isEmpty else {
            for problem in problems { errors += "\(path): \(problem)\n" }
            errors += "\(path): \(problems.count) problem\(problems.count == 1 ? "" : "s"); the configuration is refused\n"
            return ("", errors, .configuration)
        }
        if json {
            let bytes = (try? JSONTextEncoder(prettyPrinted: true).encode(configuration)) ?? []
            return (String(decoding: bytes, as: UTF8.self) + "\n", errors, .success)
        }
        return (text, errors, .success)
    }

    /// The effective configuration as aligned `key value` lines.
    var text: String {
        let c = configuration
        let l = c.limits
        var lines = [fileExists ? "\(path): OK" : "\(path): absent; the defaults:"]
        lines.append("socket          \(c.socket) (mode 0\(String(c.socketMode, radix: 8)))")
        lines.append("dataDirectory   \(c.dataDirectory)")
        lines.append("ringSeconds     \(Self.number(c.ringSeconds))")
        lines.append("orphanTimeout   \(Self.number(c.orphanTimeout))")
        lines.append("retryInterval   \(Self.number(c.retryInterval))")
        lines.append("stallTimeout    \(Self.number(c.stallTimeout))")
        lines.append("limits          connections \(l.connections), taskRuns \(l.taskRuns), recordersPerRun \(l.recordersPerRun), "
            + "lineTimeout \(Self.number(l.lineTimeout))")
        if let http = c.http {
            lines.append("http            \(http.listen), token \(http.token == nil ? "none" : "set"), tasks \(http.taskDirectory)")
        } else {
            lines.append("http            off")
        }
        if let mqtt = c.mqtt {
            lines.append("mqtt            \(mqtt.broker) (MQTT \(mqtt.protocolChoice.rawValue)), site \(mqtt.site), device \(mqtt.device ?? "(host name)"), prefix \(mqtt.topicPrefix), "
                + "remote control \(mqtt.remoteControl ? "on" : "off")"
                + (mqtt.live.isEmpty ? "" : ", live " + mqtt.live.map { "\($0.device) at \(Self.number($0.rate)) Hz" }.joined(separator: ", ")))
        } else {
            lines.append("mqtt            off")
        }
        lines.append("devices         \(c.devices.count)")
        let encoder = JSONTextEncoder()
        for d in c.devices {
            var members = d.json
            if case .object(var m) = members {
                m["name"] = nil
                m["kind"] = nil
                members = .object(m)
            }
            let settings = (try? encoder.encode(members)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            lines.append("  \(d.name) (\(d.kind)) \(settings)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
