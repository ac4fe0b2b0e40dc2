import Foundation
import ReceiptCore

/// Where the clients send their requests: Apple's four endpoints by default, or any other base
/// (the StoreSimulator on loopback) laid out the simulator's way.
///
///     Apple                                       rooted(at: http://127.0.0.1:8080)
///     https://buy.itunes.apple.com/verifyReceipt       …/production/verifyReceipt
///     https://sandbox.itunes.apple.com/verifyReceipt   …/sandbox/verifyReceipt
///     https://api.storekit.apple.com                   …/production   (+ /inApps/v1/…)
///     https://api.storekit-sandbox.apple.com           …/sandbox      (+ /inApps/v1/…)
///
/// `validate()` refuses anything but https, except plain http to a loopback address (the shared
/// secret and bearer tokens must never cross a network in clear), and URLs with user info, a
/// query or a fragment.
public struct AppStoreEndpoints: Sendable, Equatable {
    /// verifyReceipt for production receipts.
    public var verifyReceiptProduction: URL
    /// verifyReceipt for sandbox receipts.
    public var verifyReceiptSandbox: URL
    /// The Server API base for production; request paths (`/inApps/…`) are appended.
    public var serverAPIProduction: URL
    /// The Server API base for sandbox.
    public var serverAPISandbox: URL

    /// Four explicit endpoints.
    public init(verifyReceiptProduction: URL, verifyReceiptSandbox: URL, serverAPIProduction: URL, serverAPISandbox: URL) {
        self.verifyReceiptProduction = verifyReceiptProduction
        self.verifyReceiptSandbox = verifyReceiptSandbox
        self.serverAPIProduction = serverAPIProduction
        self.serverAPISandbox = serverAPISandbox
    }

    /// Apple's endpoints.
    public static let apple = AppStoreEndpoints(
        verifyReceiptProduction: constant("https://buy.itunes.apple.com/verifyReceipt"),
        verifyReceiptSandbox: constant("https://sandbox.itunes.apple.com/verifyReceipt"),
        serverAPIProduction: constant("https://api.storekit.apple.com"),
        serverAPISandbox: constant("https://api.storekit-sandbox.apple.com"))

    /// Everything under one base, as the StoreSimulator serves it: `/production/verifyReceipt`,
    /// `/sandbox/verifyReceipt`, `/production/inApps/…`, `/sandbox/inApps/…`.
    public static func rooted(at base: URL) -> AppStoreEndpoints {
        AppStoreEndpoints(verifyReceiptProduction: join(base, "/production/verifyReceipt"),
                          verifyReceiptSandbox: join(base, "/sandbox/verifyReceipt"),
                          serverAPIProduction: join(base, "/production"),
                          serverAPISandbox: join(base, "/sandbox"))
    }

    /// Whether these are Apple's own endpoints.
    public var isApple: Bool { self == .apple }

    /// The verifyReceipt URL for `environment` (sandbox for sandbox, production for anything else).
    public func verifyReceipt(_ environment: Environment) -> URL {
        environment == .sandbox ? verifyReceiptSandbox : verifyReceiptProduction
    }

    /// The Server API base for `environment` (sandbox for sandbox, production for anything else).
    public func serverAPI(_ environment: Environment) -> URL {
        environment == .sandbox ? serverAPISandbox : serverAPIProduction
    }

    /// Throws `.configuration` unless every URL is usable (see the type's notes).
    public func validate() throws {
        for (name, url) in [("verifyReceipt production", verifyReceiptProduction), ("verifyReceipt sandbox", verifyReceiptSandbox),
                            ("Server API production", serverAPIProduction), ("Server API sandbox", serverAPISandbox)] {
            try AppStoreEndpoints.validate(url, name)
        }
    }

    /// Throws `.configuration` unless `url` is https, or http to a loopback host, without user
    /// info, query or fragment.
    public static func validate(_ url: URL, _ name: String) throws {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty else {
            throw AppStoreError(.configuration, "\(name) endpoint '\(url.absoluteString)' is not an absolute http(s) URL")
        }
        guard components.user == nil, components.password == nil, components.query == nil, components.fragment == nil else {
            throw AppStoreError(.configuration, "\(name) endpoint must not carry user info, a query or a fragment")
        }
        guard !LoopbackHost.isIPv6Literal(host) else {
            throw AppStoreError(.configuration, "\(name) endpoint '\(url.absoluteString)' \(LoopbackHost.ipv6Refusal)")
        }
        switch scheme {
        case "https": return
        case "http" where LoopbackHost.contains(host): return
        case "http":
            throw AppStoreError(.configuration, "\(name) endpoint '\(url.absoluteString)' is plain http to a host that is not loopback (127.0.0.0/8 or localhost); secrets would cross the network in clear")
        default:
            throw AppStoreError(.configuration, "\(name) endpoint '\(url.absoluteString)' is not http(s)")
        }
    }

    /// `base` with `path` appended (one slash between), query given as (name, value) pairs; each
    /// value is percent-encoded here.
    static func join(_ base: URL, _ path: String, query: [(String, String)] = []) -> URL {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += path
        if !query.isEmpty {
            text += "?" + query.map { "\($0.0)=\(percentEncoded($0.1))" }.joined(separator: "&")
        }
        // Every part was checked or percent-encoded, so this parses; the fallback keeps `base`
        // (the request then fails visibly at that URL instead of trapping).
        return URL(string: text) ?? base
    }

    /// `value` with everything but RFC 3986 unreserved characters percent-encoded, so an id
    /// from input cannot add path segments or query members.
    static func percentEncoded(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(Character(Unicode.Scalar(byte)))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// A URL written in this file. They all parse; the fallback is an unusable `file:` URL that
    /// `validate()` refuses, never a trap.
    private static func constant(_ text: String) -> URL {
        URL(string: text) ?? URL(fileURLWithPath: "/invalid-endpoint")
    }
}
