import FoundationEssentials
import Glibc
import RecorderClient
import RecorderModel

/// The fleet link's one connection to the control socket, made on first use and again after it
/// closed. Runs started over MQTT belong to it, so they live as long as recorderd does (not as
/// long as one request).
actor ControlLink {
    let socketPath: String
    private var client: RecorderClient?

    init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// The connection, made when there is none.
    func connection() async throws(RecorderClientError) -> RecorderClient {
        if let client { return client }
        let made = try await RecorderClient.connect(socketPath: socketPath)
        client = made
        return made
    }

    /// Drops a connection that failed (the next call makes a new one).
    func drop(_ failed: RecorderClient) {
        if client === failed {
            client = nil
            failed.close()
        }
    }

    func close() {
        client?.close()
        client = nil
    }

    /// Runs `body` on the connection; a closed connection is made again once.
    func with<T: Sendable>(_ body: @Sendable (RecorderClient) async throws(RecorderClientError) -> T) async throws(RecorderClientError) -> T {
        let first = try await connection()
        do {
            return try await body(first)
        } catch .connectionClosed {
            drop(first)
            return try await body(try await connection())
        }
    }
}
