import AppStoreAPI
import Foundation
import ReceiptCore
import Testing

/// Version 2 offer signatures as Apple's library makes them: an ES256 JWS with the key id, the
/// issuer, the bundle, the audience "promotional-offer", a fresh nonce, the product, the offer and
/// (when given) the customer's transaction, verifiable with the key's public half.
@Suite("Promotional and win-back offer signatures (version 2)")
struct PromotionalOfferSignatureTests {
    static func credentials() throws -> ServerAPICredentials {
        try ServerAPICredentials(keyId: "2X9R4HXF34", issuerId: "57246542-96fe-1a63-e053-0824d011072a", bundleId: "com.example.game",
                                 privateKey: try PrivateKey.generateP256())
    }

    @Test func aSignatureCarriesApplesClaimsAndVerifiesWithThePublicKey() throws {
        let credentials = try Self.credentials()
        let now = Date(timeIntervalSince1970: 1_767_225_600)
        let offer = try PromotionalOfferSignature.sign(credentials, productId: "com.example.pro.yearly", offerIdentifier: "WINBACK50",
                                                       transactionId: "2000000100000001", now: now)
        let parts = offer.compactJWS.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let header = try JSONObject(parsing: try Base64.decodeURL(parts[0], "header"), what: "header")
        let claims = try JSONObject(parsing: try Base64.decodeURL(parts[1], "claims"), what: "claims")
        #expect(try header.string("alg") == "ES256" && header.string("kid") == "2X9R4HXF34" && header.string("typ") == "JWT")
        #expect(try claims.string("aud") == "promotional-offer" && claims.string("iss") == credentials.issuerId
                && claims.string("bid") == "com.example.game" && claims.int("iat") == 1_767_225_600)
        #expect(try claims.string("productId") == "com.example.pro.yearly" && claims.string("offerIdentifier") == "WINBACK50"
                && claims.string("transactionId") == "2000000100000001")
        #expect(try UUID(uuidString: try #require(try claims.string("nonce"))) != nil && claims.string("nonce") == offer.nonce)
        let signature = try Base64.decodeURL(parts[2], "signature")
        let key = try credentials.privateKey.publicKey()
        #expect(key.verifyES256(rawSignature: signature, message: Array((parts[0] + "." + parts[1]).utf8)))
        #expect(!(try PrivateKey.generateP256().publicKey()).verifyES256(rawSignature: signature, message: Array((parts[0] + "." + parts[1]).utf8)))
        // Each signature has its own nonce; the transaction may be left out.
        let bare = try PromotionalOfferSignature.sign(credentials, productId: "com.example.pro.yearly", offerIdentifier: "WINBACK50",
                                                      transactionId: nil, now: now)
        #expect(bare.nonce != offer.nonce && !bare.compactJWS.isEmpty)
        let bareClaims = try JSONObject(parsing: try Base64.decodeURL(bare.compactJWS.split(separator: ".").map(String.init)[1], "claims"), what: "claims")
        #expect(try bareClaims.string("transactionId") == nil)
        #expect(offer.digest.count == 64 && offer.digest != bare.digest)
    }

    @Test func badInputIsRefusedBeforeAnythingIsSigned() throws {
        let credentials = try Self.credentials()
        for (product, offer, transaction) in [("", "A", nil), ("p", "", nil), ("p", "has space", nil), ("p", "o", "12ab"), ("p", "o", String(repeating: "1", count: 33))] {
            #expect(throws: AppStoreError.self, "\(product) \(offer) \(transaction ?? "-")") {
                _ = try PromotionalOfferSignature.sign(credentials, productId: product, offerIdentifier: offer, transactionId: transaction, now: Date())
            }
        }
    }
}
