/// Validation of the canonical URLs (`url|version`) of FHIR Questionnaires that task runs and task
/// files name (`questionnaire`).
public enum CanonicalURL {
    /// Why `text` is not a canonical URL recorderd keeps: empty, longer than 2048 bytes, or with a
    /// space or control character; nil when it is one.
    public static func problem(_ text: String) -> String? {
        let length = text.utf8.count
        guard (1...2048).contains(length) else { return "expected a canonical URL of 1 to 2048 bytes, found \(length)" }
        if ControlCharacters.containsSpaceOrControl(text) {
            return "expected a canonical URL without spaces or control characters"
        }
        return nil
    }
}
