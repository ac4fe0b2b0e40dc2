import Foundation
import ReceiptCore

/// Signs compact JWS (RFC 7515) the way the App Store signs StoreKit 2 data:
///
///     BASE64URL(header) "." BASE64URL(payload) "." BASE64URL(signature)
///     header    = {"alg":"ES256","x5c":["<leaf>","<intermediate>","<root>"]}   -- x5c: standard base64 DER
///     signature = ECDSA P-256 SHA-256 over the ASCII "header.payload", raw r ‖ s (64 bytes)
///
/// Payload JSON keeps the member order it is given (`JSONValue.object`), so output is stable.
public struct JWSBuilder: Sendable {
    /// The `alg` header value ("ES256"); change it to test refusal of other algorithms.
    public var algorithm: String = "ES256"
    /// The `x5c` certificates, leaf first; nil omits the header member.
    public var certificates: [Certificate]?
    /// Header members written after `alg` and `x5c` (e.g. `kid`, `typ`).
    public var extraHeader: [(String, JSONValue)] = []
    /// Flip one bit of the signature (for bad-signature tests).
    public var corruptSignature = false
    /// The P-256 key that signs.
    public let signingKey: PrivateKey

    /// A builder signing with `chain`'s leaf and embedding leaf, intermediate, root.
    public init(chain: SigningChain) {
        self.init(signingKey: chain.leafKey, certificates: chain.certificates)
    }

    /// A builder signing with `authority`'s JWS chain.
    public init(authority: TestCertificateAuthority) {
        self.init(chain: authority.jwsChain)
    }

    /// A builder signing with any P-256 key and embedding any certificates (nil: no `x5c`).
    public init(signingKey: PrivateKey, certificates: [Certificate]?) {
        self.signingKey = signingKey
        self.certificates = certificates
    }

    /// The protected header.
    public var header: JSONValue {
        var members = JSONMembers()
        members.add("alg", algorithm)
        members.add("x5c", certificates.map { list in .array(list.map { .string(Base64Text.standard($0.der)) }) })
        members.append(contentsOf: extraHeader)
        return members.object
    }

    /// `payload` signed as compact JWS.
    public func sign(_ payload: JSONValue) throws -> String {
        try sign(payloadBytes: Array(payload.serialized().utf8))
    }

    /// Arbitrary payload bytes (malformed JSON for decoder tests) signed as compact JWS.
    public func sign(payloadBytes: [UInt8]) throws -> String {
        guard signingKey.isEC else {
            throw ReceiptError(.configuration, "JWS: ES256 needs a P-256 key, not RSA")
        }
        let signingInput = Base64Text.url(Array(header.serialized().utf8)) + "." + Base64Text.url(payloadBytes)
        var signature = try signingKey.signES256(Array(signingInput.utf8))
        if corruptSignature { signature[signature.count / 2] ^= 0x01 }
        return signingInput + "." + Base64Text.url(signature)
    }

    /// A signed transaction (`JWSTransaction`).
    public func signedTransaction(_ transaction: TransactionPayload) throws -> String {
        try sign(transaction.json)
    }

    /// A signed renewal info (`JWSRenewalInfo`).
    public func signedRenewalInfo(_ renewalInfo: RenewalInfoPayload) throws -> String {
        try sign(renewalInfo.json)
    }

    /// A signed app transaction (`AppTransaction`).
    public func signedAppTransaction(_ appTransaction: AppTransactionPayload) throws -> String {
        try sign(appTransaction.json)
    }

    /// A signed App Store Server Notification V2 payload; nested transaction and renewal info
    /// given as payloads are signed with this builder first.
    public func signedNotification(_ notification: NotificationPayload) throws -> String {
        try sign(try notification.json(signingNestedWith: self))
    }

    /// The HTTP body Apple posts to the merchant's server: `{"signedPayload":"<JWS>"}`.
    public func notificationBody(_ notification: NotificationPayload) throws -> String {
        JSONValue.object([("signedPayload", .string(try signedNotification(notification)))]).serialized()
    }
}
