import Foundation
import ReceiptCore

/// A promotional or win-back offer signature in Apple's version 2 form: a compact JWS (ES256)
/// signed with the In-App Purchase key, which the app hands to StoreKit
/// (`Product.PurchaseOption.promotionalOffer(_:compactJWS:)`) so the customer can redeem the
/// offer. Apple's library makes the same token (`PromotionalOfferV2SignatureCreator`):
///
///     header  {"alg":"ES256","kid":"2X9R4HXF34","typ":"JWT"}
///     claims  {"iss":"57246542-…","iat":1767225600,"aud":"promotional-offer","bid":"com.example.game",
///              "nonce":"5b3d7a60-…","productId":"com.example.pro.yearly","offerIdentifier":"WINBACK50",
///              "transactionId":"2000000100000001"}
///
/// `transactionId` (optional) ties the offer to one customer's purchase history. The nonce is
/// fresh for each signature. The signature is a secret-bearing grant of money: it is shown once
/// and never stored; the audit keeps what was offered, to whom, and a digest of the token.
public struct PromotionalOfferSignature: Sendable {
    /// Apple's audience for offer signatures.
    public static let audience = "promotional-offer"

    /// The token to give the app.
    public let compactJWS: String
    public let productId: String
    public let offerIdentifier: String
    public let transactionId: String?
    public let nonce: String
    public let issuedAt: Date

    /// SHA-256 of the token, hex: what the audit keeps, to recognise the token without holding it.
    public var digest: String { DigestAlgorithm.sha256.hash(Array(compactJWS.utf8)).hexString }

    /// Signs an offer for `productId` / `offerIdentifier` (and, when given, the customer's
    /// `transactionId`) with the Server API key, at `now`, with `nonce` (a new UUID by default).
    public static func sign(_ credentials: ServerAPICredentials, productId: String, offerIdentifier: String, transactionId: String?,
                            now: Date, nonce: String = UUID().uuidString.lowercased()) throws -> PromotionalOfferSignature {
        try check(productId: productId, offerIdentifier: offerIdentifier, transactionId: transactionId)
        let issuedAt = Int64(now.timeIntervalSince1970.rounded(.down))
        let header = JSONValue.object([("alg", .string("ES256")), ("kid", .string(credentials.keyId)), ("typ", .string("JWT"))])
        var claims: [(String, JSONValue)] = [("iss", .string(credentials.issuerId)), ("iat", .int(issuedAt)), ("aud", .string(audience)),
                                             ("bid", .string(credentials.bundleId)), ("nonce", .string(nonce)),
                                             ("productId", .string(productId)), ("offerIdentifier", .string(offerIdentifier))]
        if let transactionId { claims.append(("transactionId", .string(transactionId))) }
        let signingInput = Base64.encodeURL(Array(header.serialized().utf8)) + "." + Base64.encodeURL(Array(JSONValue.object(claims).serialized().utf8))
        let signature: [UInt8]
        do {
            signature = try credentials.privateKey.signES256(Array(signingInput.utf8))
        } catch {
            throw AppStoreError(.configuration, "offer signature: it could not be signed (\(AttemptLoop.describe(error)))")
        }
        return PromotionalOfferSignature(compactJWS: signingInput + "." + Base64.encodeURL(signature), productId: productId,
                                         offerIdentifier: offerIdentifier, transactionId: transactionId, nonce: nonce,
                                         issuedAt: Date(timeIntervalSince1970: Double(issuedAt)))
    }

    /// Refuses (`.configuration`) what `sign` would refuse, without signing: a product id or offer
    /// identifier that is not 1–100 printable ASCII characters, a transaction id that is not 1–32 digits.
    public static func check(productId: String, offerIdentifier: String, transactionId: String?) throws {
        for (value, what) in [(productId, "product id"), (offerIdentifier, "offer identifier")] {
            guard !value.isEmpty, value.count <= 100, value.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                throw AppStoreError(.configuration, "offer signature: the \(what) '\(value.prefix(40))' is not 1–100 printable ASCII characters")
            }
        }
        if let transactionId, !(1...32).contains(transactionId.count) || !transactionId.allSatisfy(\.isASCII) || !transactionId.allSatisfy(\.isNumber) {
            throw AppStoreError(.configuration, "offer signature: transaction id '\(transactionId.prefix(40))' is not 1–32 digits")
        }
    }
}
