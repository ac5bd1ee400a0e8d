extension KeyedDecodingContainer {
    /// Decodes an optional string of `bytes` UTF-8 bytes without NUL (a path, a host, a device
    /// name) and refuses any other: the error names the key's path and says what was `expected`.
    public func decodeIfPresent(_ type: String.Type, forKey key: Key, bytes: ClosedRange<Int>, expected: String) throws -> String? {
        guard let value = try decodeIfPresent(String.self, forKey: key) else { return nil }
        guard bytes.contains(value.utf8.count), !value.utf8.contains(0) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: expected)
        }
        return value
    }
}
