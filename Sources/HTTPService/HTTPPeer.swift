/// The other end of a connection: a numeric address and a port.
public struct HTTPPeer: Sendable, Equatable, CustomStringConvertible {
    /// "127.0.0.1" or "::1" (no brackets).
    public let address: String
    /// The peer's TCP port.
    public let port: Int

    /// A peer from its address and port.
    public init(address: String, port: Int) {
        self.address = address
        self.port = port
    }

    /// "127.0.0.1:54321" or "[::1]:54321".
    public var description: String { address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)" }
}
