import Foundation
import RecorderDaemon
import RecorderFHIR
import RecorderConfiguration
import RecorderJSON
import RecorderModel
import RecorderProtocol
import RecorderRuntime

/// Oracles for decoding a configuration or task file from arbitrary bytes.
public enum ConfigurationCheck {
    public static func run(_ bytes: [UInt8]) {
        // The parser is stricter than Foundation's, never more lenient: what it accepts, Foundation
        // reads as the same value.
        // (JSONSerialization, not JSONDecoder: the latter refuses valid numbers such as 0e8.)
        if let ours = try? JSONParser.parse(bytes) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed) else {
                fail("JSONParser accepted what Foundation refuses", bytes)
            }
            if !equivalent(ours, value(of: object)) { fail("JSONParser and Foundation read different values", bytes) }
        }
        if let configuration = try? DaemonConfiguration.decode(Data(bytes)) {
            // Every number decoded lies in its range.
            guard DaemonConfiguration.ringSecondsRange.contains(configuration.ringSeconds),
                  DaemonConfiguration.orphanTimeoutRange.contains(configuration.orphanTimeout),
                  DaemonConfiguration.retryIntervalRange.contains(configuration.retryInterval),
                  DaemonConfiguration.stallTimeoutRange.contains(configuration.stallTimeout),
                  DaemonLimits.connectionsRange.contains(configuration.limits.connections),
                  DaemonLimits.taskRunsRange.contains(configuration.limits.taskRuns),
                  DaemonLimits.recordersPerRunRange.contains(configuration.limits.recordersPerRun),
                  DaemonLimits.lineTimeoutRange.contains(configuration.limits.lineTimeout) else {
                fail("a decoded configuration holds a number out of its range", bytes)
            }
            // Encoding and decoding again gives the same configuration.
            guard let data = try? JSONEncoder().encode(configuration), let again = try? DaemonConfiguration.decode(data), again == configuration else {
                fail("a configuration does not survive encoding and decoding", bytes)
            }
            // The backends' own decoders see every device entry (nothing is opened).
            _ = FuzzComponents.recorderd.deviceKinds.problems(configuration, baseDirectory: "/nonexistent")
        }
        if let task = try? TaskDefinition.decode(Data(bytes)) {
            for step in task.steps where StepPath.problem(step.identifier) != nil { fail("a step identifier that is no step path", bytes) }
            // Typed answers never trap, whatever the question; an answer made is one step.finish takes.
            for step in task.steps {
                guard let question = step.question else { continue }
                for text in ["", "1", "-1e300", "yes", "2026-02-29", String(decoding: bytes.prefix(64), as: UTF8.self)] {
                    if case .success(let answer?) = question.answer(from: text, identifier: step.answerIdentifier),
                       AnswerResult.problem(value: answer.value, type: answer.answerType) != nil {
                        fail("a typed answer step.finish would refuse", bytes)
                    }
                }
                _ = step.isEnabled(by: [:])
            }
        }
        // A Questionnaire becomes a task file's definition, or a clear error; never a trap, never a
        // definition a task file could not hold.
        if let value = try? JSONParser.parse(bytes), QuestionnaireConverter.isQuestionnaire(value),
           let task = try? QuestionnaireConverter.taskDefinition(from: value) {
            if task.stepsProblem() != nil || !RecorderIdentifier.isValid(task.identifier) { fail("a Questionnaire made an invalid task", bytes) }
            guard let data = try? JSONEncoder().encode(task), (try? TaskDefinition.decode(data)) != nil else {
                fail("a Questionnaire's task is not a task file", bytes)
            }
        }
        // A composed SageResearch task: a definition whose steps, sections and recorders fit, or
        // a clear error; every include is the input itself (a cycle, refused), or its `steps`.
        if let value = try? JSONParser.parse(bytes), TaskComposer.isComposed(value) {
            var includes = 0
            let composed = try? TaskComposer.compose(value, file: "task.json") { name, _ throws(ConfigurationError) in
                includes += 1
                return includes % 2 == 0 ? (value, "task.json") : (value["steps"]?.arrayValue?.first ?? .null, "\(name)#\(includes)")
            }
            if let composed {
                if composed.stepsProblem() != nil { fail("a composed task with steps that do not fit", bytes) }
                for step in composed.steps where StepPath.problem(step.identifier) != nil { fail("a composed step identifier that is no step path", bytes) }
                for action in composed.asyncActions where !RecorderIdentifier.isValid(action.identifier) {
                    fail("a composed recorder identifier that is no file name", bytes)
                }
            }
        }
        if let value = try? JSONParser.parse(bytes) {
            _ = try? value.decode(TaskStartParams.self)
            _ = try? value.decode(SubscribeParams.self)
            _ = try? value.decode(StepParams.self)
            _ = try? value.decode(RunsListParams.self)
            _ = try? value.decode(RunParams.self)
        }
    }

    /// Equal values; numbers within a relative 1e-12. Foundation reads numbers with more digits
    /// than a Double holds as `NSDecimalNumber`, whose `doubleValue` can be several units in the
    /// last place from the correctly rounded value `strtod` (which the parser uses) gives: 6 ulp
    /// for a 117-digit integer CI's fuzzing found (Fuzz/Regressions/configuration). A parser that
    /// dropped or misplaced a digit is still off by far more than 1e-12.
    static func equivalent(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.number(let x), .number(let y)):
            return x == y || abs(x - y) <= 1e-12 * max(abs(x), abs(y))
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { equivalent($0, $1) }
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { equivalent(value, $0) } ?? false }
        default:
            return a == b
        }
    }

    /// A `JSONSerialization` object as a `JSONValue`.
    static func value(of object: Any) -> JSONValue {
        switch object {
        case is NSNull: return .null
        case let s as String: return .string(s)
        case let a as [Any]: return .array(a.map(value(of:)))
        case let o as [String: Any]: return .object(o.mapValues(value(of:)))
        case let n as NSNumber:
            if String(describing: type(of: n)) == "__NSCFBoolean" { return .bool(n.boolValue) }
            return .number(n.doubleValue)
        default: return .string("unexpected \(type(of: object))")
        }
    }

    static func fail(_ message: String, _ bytes: [UInt8]) -> Never {
        FileHandle.standardError.write(Data("\(message): \(String(decoding: bytes.prefix(300), as: UTF8.self))\n".utf8))
        abort()
    }
}
