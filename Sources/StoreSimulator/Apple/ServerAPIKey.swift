import Foundation
import ReceiptCore

/// The App Store Server API key the simulator expects Bearer tokens to be signed with: the
/// public half of the merchant's `.p8` key, its key id (`kid`) and the issuer id (`iss`).
public struct ServerAPIKey: Sendable {
    /// The EC P-256 public key that checks the token's ES256 signature.
    public var publicKey: PublicKey
    /// The key id the token header must name (`kid`).
    public var keyId: String
    /// The issuer id the token must carry (`iss`).
    public var issuerId: String

    /// A key from its parts.
    public init(publicKey: PublicKey, keyId: String, issuerId: String) {
        self.publicKey = publicKey
        self.keyId = keyId
        self.issuerId = issuerId
    }

    /// The public key in a PEM file: `-----BEGIN PUBLIC KEY-----` (SubjectPublicKeyInfo), or a
    /// private key (a `.p8`), whose public half is taken.
    public static func publicKey(pem: String) throws -> PublicKey {
        if pem.contains("PRIVATE KEY-----") { return try PrivateKey.fromPEM(pem).publicKey() }
        guard let begin = pem.range(of: "-----BEGIN PUBLIC KEY-----"),
              let end = pem.range(of: "-----END PUBLIC KEY-----", range: begin.upperBound..<pem.endIndex) else {
            throw ReceiptError(.configuration, "API public key: not a PEM 'PUBLIC KEY' or private key")
        }
        let body = pem[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
        let der = try Base64.decode(String(body), "API public key PEM body")
        let key = try PublicKey(subjectPublicKeyInfo: der)
        guard key.algorithmName == "EC-256" else {
            throw ReceiptError(.configuration, "API public key: \(key.algorithmName) is not an EC P-256 key")
        }
        return key
    }
}

/// Checks an App Store Server API `Authorization: Bearer <JWT>` the way Apple does:
///
///     header  {"alg":"ES256","kid":"<key id>","typ":"JWT"}
///     payload {"iss":"<issuer id>","iat":1700000000,"exp":1700000300,"aud":"appstoreconnect-v1",
///              "bid":"<bundle id>"}
///
/// ES256 signature by the configured key, `kid`, `iss`, `bid`, `aud` as shown, `iat` no more than
/// a minute in the future, `exp` in the future and at most an hour after `iat`.
enum BearerToken {
    /// The audience every App Store Server API token names.
    static let audience = "appstoreconnect-v1"

    /// nil when the token is acceptable, else why not (one line, never the token itself).
    static func problem(authorization: String?, key: ServerAPIKey?, bundleId: String, now: Date) -> String? {
        guard let key else { return "the simulator has no App Store Server API key configured" }
        guard let authorization, !authorization.isEmpty else { return "no Authorization header" }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return "Authorization is not 'Bearer <token>'" }
        let jws: CompactJWS
        let claims: JSONObject
        do {
            jws = try CompactJWS(compact: String(parts[1]), what: "bearer token")
            claims = try jws.payloadObject("bearer token claims")
        } catch {
            return "the token is not a JWT: \(error)"
        }
        guard jws.algorithm == "ES256" else { return "token alg is \(jws.algorithm ?? "missing"), not ES256" }
        guard jws.keyId == key.keyId else { return "token kid does not name the configured key" }
        guard key.publicKey.verifyES256(rawSignature: jws.signature, message: jws.signingInput) else {
            return "token signature does not verify with the configured key"
        }
        do {
            guard try claims.string("iss") == key.issuerId else { return "token iss is not the configured issuer id" }
            guard try claims.string("bid") == bundleId else { return "token bid is not \(bundleId)" }
            guard try audienceMatches(claims) else { return "token aud is not \(audience)" }
            guard let issuedAt = try claims.int("iat"), let expiry = try claims.int("exp") else { return "token has no iat or exp" }
            let nowSeconds = Int64(now.timeIntervalSince1970.rounded(.down))
            guard issuedAt <= nowSeconds + 60 else { return "token iat is in the future (check this machine's clock)" }
            guard expiry > nowSeconds else { return "token expired" }
            let (lifetime, overflow) = expiry.subtractingReportingOverflow(issuedAt)
            guard !overflow, lifetime <= 3600 else { return "token lifetime is over an hour" }
        } catch {
            return "token claims are malformed: \(error)"
        }
        return nil
    }

    /// `aud` as a string, or an array holding it.
    private static func audienceMatches(_ claims: JSONObject) throws -> Bool {
        if let list = claims.values["aud"] as? [Any] { return list.contains { ($0 as? String) == audience } }
        return try claims.string("aud") == audience
    }
}
