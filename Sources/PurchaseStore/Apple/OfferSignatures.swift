import AppStoreAPI
import Foundation
import ReceiptCore

extension PurchaseLedger {
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
