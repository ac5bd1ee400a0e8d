/// Which foot a step (initial contact) was taken with.
public enum FootSide: String, Sendable, Codable, Equatable {
    case left
    case right
}
