/// The extension URLs a Questionnaire may carry for recorderd (and the HL7 ones it reads).
public enum FHIRExtensionURL {
    /// On the Questionnaire or an item: `valueString` holds one async-action configuration (the
    /// JSON of a task file's `asyncActions` entry). On an item, a recorder without
    /// `startStepIdentifier`/`stopStepIdentifier` records during that item's step.
    public static let asyncAction = "http://recorderd.example/fhir/StructureDefinition/async-action"
    /// On a `display` item: `valueDecimal` or `valueInteger`, the step's duration in seconds (an
    /// active step: "walk for 30 seconds").
    public static let stepDuration = "http://recorderd.example/fhir/StructureDefinition/step-duration"
    /// HL7: the bounds of a number.
    public static let minValue = "http://hl7.org/fhir/StructureDefinition/minValue"
    public static let maxValue = "http://hl7.org/fhir/StructureDefinition/maxValue"
    /// HL7: the unit of a number (`valueCoding`, UCUM).
    public static let unit = "http://hl7.org/fhir/StructureDefinition/questionnaire-unit"
    /// HL7: how an item is shown; `slider` makes an integer a scale.
    public static let itemControl = "http://hl7.org/fhir/StructureDefinition/questionnaire-itemControl"
}
