import Foundation
import ReceiptCore

/// The bearer token of the App Store Server API: an ES256 JWT signed with the `.p8` key.
///
///     header  {"alg":"ES256","kid":"2X9R4HXF34","typ":"JWT"}
///     claims  {"iss":"57246542-96fe-1a63-e053-0824d011072a","iat":1700000000,"exp":1700001200,
///              "aud":"appstoreconnect-v1","bid":"com.example.game"}
///
/// `iat` is set a minute back so a server clock slightly behind ours still accepts it; `exp` is
/// 20 minutes after `iat` (Apple refuses more than 60). A token is reused until two minutes
/// before it expires, then a new one is signed. Safe to share between concurrent requests. The
/// token is never part of a description.
public final class ServerAPIToken: @unchecked Sendable, CustomStringConvertible, CustomReflectable {
    // `cached` is read and written under `lock`; everything else is immutable.

    /// How far `iat` is set back from now.
    public static let clockSkew: TimeInterval = 60
    /// `exp` − `iat`.
    public static let lifetime: TimeInterval = 20 * 60
    /// A token is replaced this long before `exp`.
    public static let renewalMargin: TimeInterval = 2 * 60
    /// The audience Apple expects.
    public static let audience = "appstoreconnect-v1"

    /// Who signs.
    public let credentials: ServerAPICredentials
    private let clock: @Sendable () -> Date
    private let lock = NSLock()
    private var cached: (token: String, expires: Date)?
    private var signed = 0

    /// A token source reading the time from `clock`.
    public init(credentials: ServerAPICredentials, clock: @escaping @Sendable () -> Date) {
        self.credentials = credentials
        self.clock = clock
    }

    /// The current token, signing a new one when there is none or it is within
    /// `renewalMargin` of expiry.
    public func bearer() throws -> String {
        let now = clock()
        lock.lock()
        defer { lock.unlock() }
        if let cached, now < cached.expires.addingTimeInterval(-ServerAPIToken.renewalMargin) {
            return cached.token
        }
        let minted = try ServerAPIToken.sign(credentials, now: now)
        cached = minted
        signed += 1
        return minted.token
    }

    /// How many tokens have been signed so far (for tests and diagnostics).
    public var signedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return signed
    }

    /// A new token for `now` and when it expires.
    public static func sign(_ credentials: ServerAPICredentials, now: Date) throws -> (token: String, expires: Date) {
        // Rounded to the nearest second: `Date` arithmetic leaves 1e-7 s errors that must not
        // move `iat` a whole second.
        let issuedAt = Int64((now.timeIntervalSince1970 - clockSkew).rounded())
        let expires = issuedAt + Int64(lifetime)
        let header = JSONValue.object([("alg", .string("ES256")), ("kid", .string(credentials.keyId)), ("typ", .string("JWT"))])
        let claims = JSONValue.object([("iss", .string(credentials.issuerId)), ("iat", .int(issuedAt)), ("exp", .int(expires)),
                                       ("aud", .string(audience)), ("bid", .string(credentials.bundleId))])
        let signingInput = Base64.encodeURL(Array(header.serialized().utf8)) + "." + Base64.encodeURL(Array(claims.serialized().utf8))
        let signature: [UInt8]
        do {
            signature = try credentials.privateKey.signES256(Array(signingInput.utf8))
        } catch {
            throw AppStoreError(.configuration, "App Store Server API: the token could not be signed (\(AttemptLoop.describe(error)))")
        }
        return (signingInput + "." + Base64.encodeURL(signature), Date(timeIntervalSince1970: Double(expires)))
    }

    public var description: String { "ServerAPIToken(\(credentials), token ‹redacted›)" }

    public var customMirror: Mirror { Mirror(self, children: ["credentials": credentials, "token": "‹redacted›"]) }
}
