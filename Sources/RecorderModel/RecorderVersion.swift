/// The version of recorderd and its protocol.
public enum RecorderVersion {
    public static let string = "0.1.0"
}
