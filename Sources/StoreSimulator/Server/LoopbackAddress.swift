#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback address to listen on: 127.0.0.0/8 or ::1, nothing else. The simulator stands in for
/// Apple with test keys and forged receipts, so it must never be reachable from another machine.
///
/// Accepted spellings: dotted IPv4 (`127.0.0.1`, `127.8.9.10`), `::1` or `[::1]`, and the word
/// `localhost` (taken as 127.0.0.1 without asking a resolver). Everything else, including
/// `0.0.0.0`, `::`, IPv4-mapped `::ffff:127.0.0.1`, public addresses and host names, is refused.
struct LoopbackAddress: Sendable, Equatable {
    /// The address family and its bytes.
    enum Family: Sendable, Equatable {
        /// Four bytes, network order.
        case ipv4([UInt8])
        /// Sixteen bytes, network order.
        case ipv6([UInt8])
    }

    /// Which address.
    let family: Family
    /// The address as URLs write it: `127.0.0.1`, `[::1]`.
    let urlHost: String

    /// Parses and checks `host`; throws `SimulatorError.notLoopback` for anything but loopback.
    init(_ host: String) throws {
        let trimmed = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if trimmed.lowercased() == "localhost" {
            family = .ipv4([127, 0, 0, 1])
            urlHost = "127.0.0.1"
            return
        }
        if let bytes = LoopbackAddress.parse(trimmed, family: AF_INET, size: 4) {
            guard bytes[0] == 127 else { throw LoopbackAddress.refusal(host) }
            family = .ipv4(bytes)
            urlHost = bytes.map(String.init).joined(separator: ".")
            return
        }
        if let bytes = LoopbackAddress.parse(trimmed, family: AF_INET6, size: 16) {
            guard bytes == [UInt8](repeating: 0, count: 15) + [1] else { throw LoopbackAddress.refusal(host) }
            family = .ipv6(bytes)
            urlHost = "[::1]"
            return
        }
        throw LoopbackAddress.refusal(host)
    }

    /// Whether the bytes of a bound socket's address are loopback (a check after `bind`).
    static func isLoopback(_ family: Family) -> Bool {
        switch family {
        case .ipv4(let bytes): return bytes.first == 127
        case .ipv6(let bytes): return bytes == [UInt8](repeating: 0, count: 15) + [1]
        }
    }

    private static func refusal(_ host: String) -> SimulatorError {
        let shown = host.isEmpty ? "(empty)" : String(host.prefix(64))
        return SimulatorError(.notLoopback, "the simulator only listens on loopback (127.0.0.0/8 or ::1); refusing to bind '\(shown)'")
    }

    /// `inet_pton` into `size` bytes, or nil when `text` is not an address of that family.
    private static func parse(_ text: String, family: Int32, size: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let result = buffer.withUnsafeMutableBytes { raw in inet_pton(family, text, raw.baseAddress) }
        return result == 1 ? Array(buffer.prefix(size)) : nil
    }
}
