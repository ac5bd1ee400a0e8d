import FoundationEssentials
import Glibc
import RecorderJSON

extension DaemonConfiguration {
    /// The result of reading a configuration with every problem listed, not only the first.
    public struct Reading: Sendable {
        /// The configuration (meaningful only when `problems` is empty).
        public var configuration: DaemonConfiguration
        /// One line per problem, each with its JSON path.
        public var problems: [String]
        /// Device entries set aside because they could not be read at all (their problem is in
        /// `problems`); later checks of device entries skip them.
        public var setAsideDevices: Set<Int>
    }

    /// Reads `data`, listing every problem: after each failure the offending top-level member, or
    /// device entry, is set aside and the rest read again.
    public static func read(_ data: Data) -> Reading {
        let value: JSONValue
        do {
            value = try JSONParser.parse(data)
        } catch {
            return Reading(configuration: DaemonConfiguration(), problems: ["malformed JSON: \(error)"], setAsideDevices: [])
        }
        return read(value)
    }

    /// Reads a parsed configuration, listing every problem.
    public static func read(_ value: JSONValue) -> Reading {
        var value = value
        var problems: [String] = []
        var setAside = Set<Int>()
        // Each round sets one member or entry aside: the rounds are bounded by their number.
        while true {
            do {
                let configuration = try JSONValueDecoder().decode(DaemonConfiguration.self, from: value)
                return Reading(configuration: configuration, problems: problems, setAsideDevices: setAside)
            } catch {
                problems.append(DecodingErrorDescription.describe(error))
                guard case .object(var members) = value, let path = Self.codingPath(of: error), let first = path.first?.stringValue,
                      members[first] != nil else {
                    return Reading(configuration: DaemonConfiguration(), problems: problems, setAsideDevices: setAside)
                }
                if first == CodingKeys.devices.stringValue, path.count >= 2, let index = path[1].intValue,
                   case .array(var entries)? = members[first], entries.indices.contains(index), !setAside.contains(index) {
                    // A stand-in that reads, so that the other entries keep their indices.
                    entries[index] = .object(["name": .string("set-aside-\(index)"), "kind": .string("")])
                    members[first] = .array(entries)
                    setAside.insert(index)
                } else {
                    members[first] = nil
                }
                value = .object(members)
            }
        }
    }

    /// The coding path of a decoding error (with the missing key of `keyNotFound`).
    static func codingPath(of error: any Error) -> [any CodingKey]? {
        guard let error = error as? DecodingError else { return nil }
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c): return c.codingPath
        case .keyNotFound(let key, let c): return c.codingPath + [key]
        @unknown default: return nil
        }
    }
}
