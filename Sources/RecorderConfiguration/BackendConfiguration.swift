/// A backend's device entry type (`IIOConfiguration`, `ReplayConfiguration`…), decoded from a
/// `DeviceConfiguration`: its coding keys are every key such an entry may have (besides `kind`),
/// the keys the configuration check does not warn about.
public protocol BackendConfiguration: Decodable {
    associatedtype CodingKeys: CodingKey & CaseIterable
}

extension BackendConfiguration {
    /// The keys of an entry of this type.
    public static var keys: [String] { CodingKeys.allCases.map(\.stringValue) }
}
