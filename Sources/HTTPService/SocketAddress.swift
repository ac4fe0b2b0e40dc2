import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A numeric IPv4 or IPv6 listening address with its port, as the `sockaddr` libmicrohttpd binds.
struct SocketAddress {
    /// sockaddr_in or sockaddr_in6, in a storage large enough for either.
    private(set) var storage = sockaddr_storage()
    /// Whether it is IPv6 (the daemon then needs MHD_USE_IPv6).
    let isIPv6: Bool

    /// Parses "127.0.0.1", "::1" or "[::1]"; throws `invalidConfiguration` for anything else.
    init(host: String, port: Int) throws {
        guard (0...65_535).contains(port) else {
            throw HTTPServiceError(.invalidConfiguration, "port \(port) is not between 0 and 65535")
        }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var four = in_addr()
        var six = in6_addr()
        if inet_pton(AF_INET, bare, &four) == 1 {
            isIPv6 = false
            withUnsafeMutableBytes(of: &storage) { raw in
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = in_port_t(UInt16(port)).bigEndian
                address.sin_addr = four
                raw.storeBytes(of: address, as: sockaddr_in.self)
            }
        } else if inet_pton(AF_INET6, bare, &six) == 1 {
            isIPv6 = true
            withUnsafeMutableBytes(of: &storage) { raw in
                var address = sockaddr_in6()
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_port = in_port_t(UInt16(port)).bigEndian
                address.sin6_addr = six
                raw.storeBytes(of: address, as: sockaddr_in6.self)
            }
        } else {
            throw HTTPServiceError(.invalidConfiguration,
                                   "host '\(host)' is not a numeric IPv4 or IPv6 address (names are not resolved)")
        }
    }

    /// A NUL-terminated buffer as a string.
    private static func text(_ buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The peer behind a `sockaddr` libmicrohttpd gives for a connection, or nil for a family
    /// other than IPv4 and IPv6.
    static func peer(_ address: UnsafePointer<sockaddr>) -> HTTPPeer? {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { four in
                var raw = four.pointee.sin_addr
                guard inet_ntop(AF_INET, &raw, &text, socklen_t(text.count)) != nil else { return nil }
                return HTTPPeer(address: Self.text(text), port: Int(UInt16(bigEndian: four.pointee.sin_port)))
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { six in
                var raw = six.pointee.sin6_addr
                guard inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count)) != nil else { return nil }
                return HTTPPeer(address: Self.text(text), port: Int(UInt16(bigEndian: six.pointee.sin6_port)))
            }
        default:
            return nil
        }
    }
}
