import Foundation

/// The one definition of a loopback host for URLs receiptdesk sends to: 127.0.0.0/8, `localhost`
/// and `::1`. Plain http is allowed to these only, and `make test` confines requests to them.
public enum LoopbackHost {
    /// Whether `host` (as `URL.host` gives it, with or without IPv6 brackets) is loopback.
    public static func contains(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Whether `host` is an IPv6 literal (`::1`, `[::1]`): Foundation's URL loader on Linux refuses
    /// those (NSURLErrorDomain -1000), so endpoints naming one are refused when configured, with
    /// the way out, rather than failing on every request.
    public static func isIPv6Literal(_ host: String) -> Bool {
        host.contains(":")
    }

    /// The sentence that refuses an IPv6 literal endpoint.
    public static let ipv6Refusal = "names an IPv6 address, which this platform's URL loader cannot reach; use http://127.0.0.1:PORT (the simulator listens there by default)"
}
