import AppStoreAPI
import Foundation
import ReceiptCore

/// An offer signature as previewed: what will be signed, for whom, tied to which purchase. Made by
/// `PurchaseLedger.planOfferSignature`, which refuses what could not be signed.
public struct OfferSignaturePlan: Sendable, Equatable {
    public let customerId: String
    public let productId: String
    public let offerIdentifier: String
    /// The customer's purchase the signature names (`transactionId`), when there is one.
    public let transactionId: String?

    public var lines: [String] {
        ["Sign offer \(offerIdentifier) of \(productId) for \(customerId)",
         transactionId.map { "tied to their purchase \($0) (the signature's transactionId)" } ?? "tied to no purchase: the ledger has none of \(productId) for \(customerId)",
         "Apple's version 2 offer signature, made here with the App Store Server API key: nothing is asked of Apple",
         "shown once, to copy into the app: never stored, logged or shown again"]
    }
}

extension PurchaseLedger {
    /// Checks an offer signature before it is made: the customer exists, the ids are what Apple
    /// takes; `transactionId` defaults to the customer's latest original transaction of the
    /// product, when the ledger has one.
    public func planOfferSignature(customerId: String, productId: String, offerIdentifier: String, transactionId: String?) throws -> OfferSignaturePlan {
        try requireCustomer(customerId)
        let anchor = try transactionId ?? database.queryFirst("""
            SELECT COALESCE(original_transaction_id, transaction_id) AS id FROM transactions
            WHERE customer_id = ? AND product_id = ? ORDER BY purchase_date DESC LIMIT 1
            """, [.text(customerId), .text(productId)])?.string("id")
        do {
            try PromotionalOfferSignature.check(productId: productId, offerIdentifier: offerIdentifier, transactionId: anchor)
        } catch let error as AppStoreError {
            throw StoreError(.invalidInput, error.reason)
        }
        return OfferSignaturePlan(customerId: customerId, productId: productId, offerIdentifier: offerIdentifier, transactionId: anchor)
    }

    /// Audits an offer signature handed to a customer (`AppleActions.signOffer`): what, for whom,
    /// why, and the token's SHA-256, never the token.
    func recordOfferSignature(_ signature: PromotionalOfferSignature, customerId: String, reason: String, operatorName: String) throws {
        let now = clock()
        try database.writeTransaction {
            try audit(now, operatorName, "apple-offer-signature", "customer:\(customerId)", .object([
                ("productId", .string(signature.productId)), ("offerIdentifier", .string(signature.offerIdentifier)),
                ("transactionId", .string(signature.transactionId)), ("nonce", .string(signature.nonce)),
                ("tokenSHA256", .string(signature.digest)), ("reason", .string(reason)),
            ]))
        }
    }
}
