/// Validation of step paths (`step.start`/`step.finish`), which every record of a recording
/// carries: at most `maximumLength` bytes of UTF-8, not empty, no control characters (C0, DEL,
/// C1) — a path is text for a file and a terminal, never a way to grow every record or to
/// write escape sequences into them.
public enum StepPath {
    /// The longest step path accepted, in UTF-8 bytes.
    public static let maximumLength = 256

    /// Why `path` is not accepted, or nil when it is.
    public static func problem(_ path: String) -> String? {
        let length = path.utf8.count
        if length == 0 { return "expected a step path, found an empty string" }
        if length > maximumLength { return "expected a step path of at most \(maximumLength) bytes, found \(length)" }
        return ControlCharacters.problem(in: path, place: "the step path")
    }

    /// The step identifier a path names: its last `/`-separated component ("c" for "a/b/c"). A
    /// task's `startStepIdentifier`, `stopStepIdentifier` and a walking test's step match it.
    public static func identifier(of path: String) -> Substring {
        path.split(separator: "/", omittingEmptySubsequences: true).last ?? Substring(path)
    }
}
