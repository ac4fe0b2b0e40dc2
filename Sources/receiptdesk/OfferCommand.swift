import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk subscription offer CUSTOMER --product ID --offer OFFER_ID [--transaction TX]
/// --reason TEXT [--json]`: signs a promotional or win-back offer (Apple's version 2 signature,
/// with the Server API key) for the customer to redeem in the app; printed once, audited (the
/// audit keeps the token's SHA-256, never the token).
enum OfferCommand {
    static func sign(_ args: inout Arguments, _ options: StoreOptions) throws -> ExitStatus {
        let product = try args.value("--product")
        let offer = try args.value("--offer")
        let transaction = try args.value("--transaction")
        let reason = try args.value("--reason")
        guard let customer = try args.finish(maxPositionals: 1).first, let product, let offer else {
            throw CommandFailure.usage("subscription offer needs CUSTOMER --product ID --offer OFFER_ID --reason TEXT [--transaction TX]")
        }
        guard let reason else { throw CommandFailure.usage("subscription offer needs --reason TEXT (it is audited)") }
        let session = try AppleActionSession(options, command: "subscription offer", checking: [(customer, "customer id"), (product, "product id")])
        defer { session.close() }
        let signature: PromotionalOfferSignature
        do {
            signature = try session.actions.signOffer(customerId: customer, productId: product, offerIdentifier: offer, transactionId: transaction,
                                                      reason: reason, operatorName: options.operatorName)
        } catch let error as AppStoreError where error.code == .configuration {
            throw CommandFailure.usage(error.reason)
        }
        if options.json {
            print(JSONValue.object([("customerId", .string(customer)), ("productId", .string(signature.productId)),
                                    ("offerIdentifier", .string(signature.offerIdentifier)), ("transactionId", .string(signature.transactionId)),
                                    ("nonce", .string(signature.nonce)), ("signature", .string(signature.compactJWS))]).serialized())
        } else {
            print("offer \(signature.offerIdentifier) of \(signature.productId) for \(customer)\(signature.transactionId.map { " (transaction \($0))" } ?? ""), signed now; give it to the app once (it is not kept):")
            print(signature.compactJWS)
        }
        return .ok
    }
}
