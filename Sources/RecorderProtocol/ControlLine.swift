/// The control protocol's framing: one JSON object per line, as both ends know it.
public enum ControlLine {
    /// The longest request line the daemon reads, in bytes (newline excluded): a longer one is
    /// answered `-32009` and the connection closed, and a client does not send one.
    public static let maximumLength = 1 << 20
}
