import FoundationEssentials
import RecorderJSON

/// Composes a SageResearch task file as SageResearch's decoders do (`RSDTaskObject`,
/// `RSDSectionStepObject`, `RSDStepTransformerObject`) into the flat `TaskDefinition` a run walks:
///
/// - a `section` step holds steps (sections nest at any depth) and may declare `asyncActions` of
///   its own, scoped to it;
/// - a `transform` step is replaced by the step its `resourceTransformer.resourceName` names (a
///   file beside the including one, `.json` added when absent), with the transform's
///   `identifier` in place of the included step's — so one section file can be included twice —
///   and the transform's own `steps` (matched by identifier, their keys replacing the included
///   step's) and `asyncActions` (replacing one of the same identifier, else added);
/// - a step's identifier becomes its path relative to the task (`walk/motion`), a section's path
///   is listed in `sections`, and each section's async action gets an identifier of its own,
///   the section's path joined by `.` before its own (`walk.motion`: two sections' `motion`
///   recorders write separate files), with its start and stop steps resolved inside the section
///   to full step paths (`<task>/walk/motion`; absent: the section's own start and finish).
///
/// Errors name the file and the key's path; nothing is guessed.
public struct TaskComposer {
    /// Reads an included file: `name` as written with `.json` added, beside `includingFile`.
    /// Returns the file's parsed JSON and the path that names it in errors and in later includes.
    public typealias Loader = (_ name: String, _ includingFile: String) throws(ConfigurationError) -> (value: JSONValue, file: String)

    /// The deepest nesting of sections and includes accepted.
    public static let maximumDepth = 16
    /// The most steps a composed task may have (sections included): a file included twice at
    /// each of many levels would otherwise grow without bound.
    public static let maximumSteps = 4096

    /// True when `value` is a task file to compose: one of its steps is a section or a
    /// transform, or it has no task-level `asyncActions` (SageResearch's tasks declare them in
    /// their sections). recorderd's flat task files are decoded as before.
    public static func isComposed(_ value: JSONValue) -> Bool {
        guard case .object(let members) = value else { return false }
        if members["asyncActions"] == nil, members["steps"] != nil { return true }
        return (members["steps"]?.arrayValue ?? []).contains { step in
            step["type"]?.stringValue.map { TaskDefinition.Step.compositionTypes.contains($0) } ?? false
        }
    }

    /// Composes the task `value` read from `file`.
    public static func compose(_ value: JSONValue, file: String, load: @escaping Loader) throws(ConfigurationError) -> TaskDefinition {
        var composer = TaskComposer(load: load)
        return try composer.task(value, file: file)
    }

    let load: Loader
    var taskIdentifier = ""
    var steps: [TaskDefinition.Step] = []
    var sections: [String] = []
    var actions: [AsyncActionConfiguration] = []
    var stepCount = 0

    /// Where a step list is: the file, its JSON path there, the section path it lies in, and
    /// the files that include it (outermost first: a cycle is a file among them).
    struct Place {
        var file: String
        var jsonPath: String
        var section: [String]
        var includes: [String]

        func error(_ key: String, _ message: String) -> ConfigurationError {
            var path = key.isEmpty ? jsonPath : (jsonPath.isEmpty ? String(key.drop { $0 == "." }) : jsonPath + key)
            if path.isEmpty { path = "(top level)" }
            return located("\(path): \(message)")
        }

        /// `message` (which names its JSON path) with the file it is in, when that is an
        /// included one.
        func located(_ message: String) -> ConfigurationError {
            let location = includes.count > 1 ? "\(file) (included from \(includes.dropLast().joined(separator: " ← "))): " : ""
            return ConfigurationError(location + message)
        }
    }

    mutating func task(_ value: JSONValue, file: String) throws(ConfigurationError) -> TaskDefinition {
        let place = Place(file: file, jsonPath: "", section: [], includes: [file])
        guard case .object(let members) = value else { throw place.error("", "expected an object, found \(value.typeName)") }
        guard let identifier = members["identifier"] else { throw place.error("identifier", "required key is missing") }
        guard let id = identifier.stringValue else { throw place.error("identifier", "expected a string, found \(identifier.typeName)") }
        if let problem = StepPath.problem(id) ?? (id.contains("/") ? "a task identifier holds no /" : nil) {
            throw place.error("identifier", problem)
        }
        taskIdentifier = id
        try stepList(members, at: place, owner: "the task")
        let sectionActions = actions.count
        try scopedActions(members, at: place)
        // The task's own recorders first, as written, then the sections'.
        actions = Array(actions[sectionActions...] + actions[..<sectionActions])
        var questionnaire: String?
        if let url = members["questionnaire"] {
            guard let text = url.stringValue else { throw place.error("questionnaire", "expected a string, found \(url.typeName)") }
            if let problem = CanonicalURL.problem(text) { throw place.error("questionnaire", problem) }
            questionnaire = text
        }
        var definition = TaskDefinition(identifier: id, steps: steps, asyncActions: actions, questionnaire: questionnaire, sections: sections)
        definition.handSelections = handSelections()
        for selection in definition.handSelections {
            for (hand, section) in selection.sections {
                for i in definition.steps.indices where definition.steps[i].identifier.hasPrefix(section + "/") {
                    definition.steps[i].require(selection.condition(for: hand))
                }
            }
        }
        if let problem = definition.stepsProblem() { throw ConfigurationError(problem) }
        return definition
    }

    /// The steps of a task or section object (`members`), each by its type.
    mutating func stepList(_ members: [String: JSONValue], at place: Place, owner: String) throws(ConfigurationError) {
        guard let value = members["steps"] else { throw place.error(".steps", "required key is missing") }
        guard let list = value.arrayValue else { throw place.error(".steps", "expected an array, found \(value.typeName)") }
        var seen = Set<String>()
        for (i, item) in list.enumerated() {
            var here = place
            here.jsonPath = place.jsonPath + (place.jsonPath.isEmpty ? "steps" : ".steps") + "[\(i)]"
            try step(item, at: here, seen: &seen, owner: owner)
        }
    }

    mutating func step(_ item: JSONValue, at place: Place, seen: inout Set<String>, owner: String) throws(ConfigurationError) {
        stepCount += 1
        guard stepCount <= Self.maximumSteps else { throw place.error("", "the task has more than \(Self.maximumSteps) steps with its includes") }
        guard case .object(var members) = item else { throw place.error("", "expected a step object, found \(item.typeName)") }
        let id = try identifier(of: members, at: place)
        guard seen.insert(id).inserted else {
            throw place.error(".identifier", "\(id.debugDescription) names two steps of \(owner)")
        }
        var place = place
        if members["type"]?.stringValue == "transform" {
            (members, place) = try transformed(members, identifier: id, at: place)
        }
        let path = place.section + [id]
        switch members["type"]?.stringValue {
        case "section":
            guard path.count <= Self.maximumDepth else { throw place.error("", "sections nest deeper than \(Self.maximumDepth)") }
            let sectionPath = path.joined(separator: "/")
            sections.append(sectionPath)
            var inner = place
            inner.section = path
            try stepList(members, at: inner, owner: "section \(sectionPath.debugDescription)")
            try scopedActions(members, at: inner)
        default:
            members["identifier"] = .string(path.joined(separator: "/"))
            if members["type"]?.stringValue == HandSelection.stepType, members["question"] == nil {
                members["question"] = try? JSONValue(encoding: HandSelection.question)
                if members["title"] == nil { members["title"] = .string("Which hand can you use?") }
            }
            do {
                steps.append(try JSONValue.object(members).decode(TaskDefinition.Step.self))
            } catch {
                throw place.located(DecodingErrorDescription.describe(error, prefix: place.jsonPath))
            }
        }
    }

    /// A step's identifier: a string that is one component of a step path.
    func identifier(of members: [String: JSONValue], at place: Place) throws(ConfigurationError) -> String {
        guard let value = members["identifier"] else { throw place.error(".identifier", "required key is missing") }
        guard let id = value.stringValue else { throw place.error(".identifier", "expected a string, found \(value.typeName)") }
        if let problem = StepPath.problem(id) { throw place.error(".identifier", problem) }
        if id.contains("/") { throw place.error(".identifier", "\(id.debugDescription): a step identifier of a composed task holds no / (it joins the step path)") }
        return id
    }

    /// The hand-selection steps and, for each, the `left` and `right` sections after it at its
    /// level.
    func handSelections() -> [HandSelection] {
        steps.enumerated().compactMap { index, step -> HandSelection? in
            guard step.type == HandSelection.stepType, step.question != nil else { return nil }
            let parent = step.identifier.split(separator: "/").dropLast().joined(separator: "/")
            let prefix = parent.isEmpty ? "" : parent + "/"
            var found: [HandSelection.Hand: String] = [:]
            for hand in HandSelection.Hand.allCases {
                let section = prefix + hand.rawValue
                let after = steps[(index + 1)...].contains { $0.identifier.hasPrefix(section + "/") }
                if sections.contains(section), after { found[hand] = section }
            }
            return HandSelection(answerIdentifier: step.answerIdentifier, sections: found)
        }
    }

    /// The step a transform includes, with the transform's identifier and overrides, and where
    /// it now is (the included file).
    func transformed(_ transform: [String: JSONValue], identifier: String, at place: Place) throws(ConfigurationError) -> ([String: JSONValue], Place) {
        guard let transformer = transform["resourceTransformer"] else { throw place.error(".resourceTransformer", "required key is missing") }
        guard case .object(let resource) = transformer else {
            throw place.error(".resourceTransformer", "expected an object, found \(transformer.typeName)")
        }
        guard let nameValue = resource["resourceName"] else { throw place.error(".resourceTransformer.resourceName", "required key is missing") }
        guard let name = nameValue.stringValue else {
            throw place.error(".resourceTransformer.resourceName", "expected a string, found \(nameValue.typeName)")
        }
        if let problem = Self.resourceNameProblem(name) { throw place.error(".resourceTransformer.resourceName", problem) }
        let fileName = name.hasSuffix(".json") ? name : name + ".json"
        let loaded: (value: JSONValue, file: String)
        do {
            loaded = try load(fileName, place.file)
        } catch {
            throw place.error(".resourceTransformer.resourceName", error.message)
        }
        if place.includes.contains(loaded.file) {
            throw place.error(".resourceTransformer.resourceName", "\(fileName) includes itself: \((place.includes + [loaded.file]).joined(separator: " → "))")
        }
        guard place.includes.count <= Self.maximumDepth else { throw place.error(".resourceTransformer", "includes nest deeper than \(Self.maximumDepth)") }
        let included = Place(file: loaded.file, jsonPath: "", section: place.section, includes: place.includes + [loaded.file])
        guard case .object(var members) = loaded.value else { throw included.error("", "expected a step object, found \(loaded.value.typeName)") }
        if members["type"]?.stringValue == "transform" { throw included.error(".type", "an included step is not itself a transform") }
        members["identifier"] = .string(identifier)
        // The transform's own steps and async actions replace the included ones of the same
        // identifier (SageResearch's `copy(with:decoder:)`); its other keys are its own.
        if let overrides = transform["steps"] {
            guard let list = overrides.arrayValue else { throw place.error(".steps", "expected an array, found \(overrides.typeName)") }
            var inner = members["steps"]?.arrayValue ?? []
            for (i, override) in list.enumerated() {
                guard case .object(let replacing) = override, let id = replacing["identifier"]?.stringValue else {
                    throw place.error(".steps[\(i)]", "expected a step object with an identifier")
                }
                guard let index = inner.firstIndex(where: { $0["identifier"]?.stringValue == id }), case .object(var original) = inner[index] else {
                    throw place.error(".steps[\(i)].identifier", "\(id.debugDescription) names no step of \(loaded.file)")
                }
                for (key, value) in replacing { original[key] = value }
                inner[index] = .object(original)
            }
            members["steps"] = .array(inner)
        }
        if let overrides = transform["asyncActions"] {
            guard let list = overrides.arrayValue else { throw place.error(".asyncActions", "expected an array, found \(overrides.typeName)") }
            var inner = members["asyncActions"]?.arrayValue ?? []
            for action in list {
                if let id = action["identifier"]?.stringValue, let index = inner.firstIndex(where: { $0["identifier"]?.stringValue == id }) {
                    inner.remove(at: index)
                }
                inner.append(action)
            }
            members["asyncActions"] = .array(inner)
        }
        return (members, included)
    }

    /// Why `name` cannot name a file beside the including one, or nil.
    static func resourceNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "expected a file name, found an empty string" }
        if name.utf8.count > 255 { return "expected a file name of at most 255 bytes" }
        if name.contains("/") || name.hasPrefix(".") {
            return "\(name.debugDescription): a file beside the including one is named without / or a leading ."
        }
        return ControlCharacters.problem(in: name, place: "the file name")
    }

    /// The async actions of the task (`place.section` empty) or of a section, resolved.
    mutating func scopedActions(_ members: [String: JSONValue], at place: Place) throws(ConfigurationError) {
        guard let value = members["asyncActions"] else { return }
        guard let list = value.arrayValue else { throw place.error(".asyncActions", "expected an array, found \(value.typeName)") }
        let sectionPath = place.section.joined(separator: "/")
        for (i, item) in list.enumerated() {
            let key = ".asyncActions[\(i)]"
            var action: AsyncActionConfiguration
            do {
                action = try item.decode(AsyncActionConfiguration.self)
            } catch {
                let base = place.jsonPath.isEmpty ? String(key.dropFirst()) : place.jsonPath + key
                throw place.located(DecodingErrorDescription.describe(error, prefix: base))
            }
            if !place.section.isEmpty {
                let id = (place.section + [action.identifier]).joined(separator: ".")
                guard RecorderIdentifier.isValid(id) else {
                    throw place.error(key + ".identifier",
                                      "the recorder's identifier in section \(sectionPath.debugDescription), \(id.debugDescription), is not \(RecorderIdentifier.expectation)")
                }
                action.identifier = id
            }
            guard !actions.contains(where: { $0.identifier == action.identifier }) else {
                throw place.error(key + ".identifier", "\(action.identifier.debugDescription) names two async actions")
            }
            action.startStepIdentifier = try resolve(action.startStepIdentifier, key: key + ".startStepIdentifier", at: place)
            action.stopStepIdentifier = try resolve(action.stopStepIdentifier, key: key + ".stopStepIdentifier", at: place)
            actions.append(action)
        }
    }

    /// A start or stop step of an async action in `place`'s scope as a full step path: the
    /// scope's own step of that identifier, else its only step of that identifier at any depth;
    /// absent, a section's own path (the task's: nil, the run's start or finish).
    func resolve(_ identifier: String?, key: String, at place: Place) throws(ConfigurationError) -> String? {
        let prefix = place.section.isEmpty ? "" : place.section.joined(separator: "/") + "/"
        guard let identifier else {
            return place.section.isEmpty ? nil : taskIdentifier + "/" + place.section.joined(separator: "/")
        }
        let candidates = (steps.map(\.identifier) + sections).filter { $0.hasPrefix(prefix) }
        let relative = candidates.map { String($0.dropFirst(prefix.count)) }
        if relative.contains(identifier) { return taskIdentifier + "/" + prefix + identifier }
        let deeper = relative.filter { $0.hasSuffix("/" + identifier) }
        let scope = place.section.isEmpty ? "the task" : "section \(place.section.joined(separator: "/").debugDescription)"
        switch deeper.count {
        case 1: return taskIdentifier + "/" + prefix + deeper[0]
        case 0: throw place.error(key, "\(identifier.debugDescription) names no step of \(scope)")
        default: throw place.error(key, "\(identifier.debugDescription) names \(deeper.count) steps of \(scope): \(deeper.sorted().joined(separator: ", "))")
        }
    }
}

extension TaskComposer {
    /// The keys of a composed task file (its sections' and transforms' keys among a step's),
    /// to the depth of sections a file usually has.
    public static var keys: ConfigurationKeys {
        guard case .object(var task) = TaskDefinition.keys,
              case .array(.object(let step))? = task["steps"] else { return TaskDefinition.keys }
        var steps = ConfigurationKeys.array(.object(step))
        for _ in 0..<6 {
            steps = .array(.object(step.merging(["steps": steps, "asyncActions": AsyncActionConfiguration.arrayKeys,
                                                 "resourceTransformer": .keys(["resourceName", "bundleIdentifier", "classType"]),
                                                 "progressMarkers": .any]) { a, _ in a }))
        }
        task["steps"] = steps
        return .object(task)
    }
}
