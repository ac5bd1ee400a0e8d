import Foundation
import Testing

/// What fhir.resources (R4B models) and the checks of Tests/Tools/check_fhir.py found in a FHIR
/// export: it validated, its references resolve, its SampledData equals the run's JSON lines.
public struct FHIRCheck: Decodable {
    public struct Answer: Decodable, Equatable {
        public var path: [String]
        public var type: String
        public var value: AnyValue

        public init(from decoder: any Decoder) throws {
            var c = try decoder.unkeyedContainer()
            path = try c.decode([String].self)
            type = try c.decode(String.self)
            value = try c.decode(AnyValue.self)
        }
    }

    public struct Observation: Decodable, Equatable {
        public var code: String
        public var value: Double?
        public var device: String?

        public init(from decoder: any Decoder) throws {
            var c = try decoder.unkeyedContainer()
            code = try c.decode(String.self)
            value = try c.decodeIfPresent(Double.self)
            device = try c.decodeIfPresent(String.self)
        }
    }

    /// A JSON value of an answer, kept as its text for comparisons.
    public struct AnyValue: Decodable, Equatable, CustomStringConvertible {
        public var description: String

        public init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let b = try? c.decode(Bool.self) { description = "\(b)" }
            else if let n = try? c.decode(Double.self) { description = n.rounded() == n && abs(n) < 1e15 ? "\(Int64(n))" : "\(n)" }
            else if let s = try? c.decode(String.self) { description = s }
            else if let o = try? c.decode([String: String].self) { description = o["code"] ?? "\(o)" }
            else { description = "?" }
        }
    }

    public var answers: [Answer]
    public var questionnaire: [String?]
    public var responseStatus: [String]
    public var observations: [Observation]
    public var sampled: [String: Int]
    public var subjects: [String]
    public var resources: [String]

    public static let checker = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Tools/check_fhir.py").standardized.path

    public static func run(_ bundle: String, run: String) async throws -> FHIRCheck {
        let p = try await ChildProcess("/usr/bin/env", ["python3", checker, bundle, run])
        let status = try await p.wait(timeout: 120)
        let printed = p.printed
        try #require(status == 0, "check_fhir.py: \(printed)")
        return try JSONDecoder().decode(FHIRCheck.self, from: Data(try #require(printed.split(separator: "\n").last { $0.hasPrefix("{") }).utf8))
    }
}

/// The field data of a MORK payload that Tests/Tools/check_mork.py found shaped as MORK's
/// published example.
public struct MORKCheck {
    public struct Field: Equatable {
        public var item: String
        public var value: String
        public var entered: String
    }

    public static let checker = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Tools/check_mork.py").standardized.path
    public static let example = Fixtures.root + "/mork/published-example.json"

    public static func run(_ payload: String) async throws -> [Field] {
        let p = try await ChildProcess("/usr/bin/env", ["python3", checker, payload, example])
        let status = try await p.wait(timeout: 60)
        let printed = p.printed
        try #require(status == 0, "check_mork.py: \(printed)")
        let line = try #require(printed.split(separator: "\n").last { $0.hasPrefix("{") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: [[String]]])
        return try #require(object["fields"]).map { Field(item: $0[0], value: $0[1], entered: $0[2]) }
    }
}
