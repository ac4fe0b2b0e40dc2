import Foundation
import ReceiptCore

/// Notifications about the app or an account rather than a purchase: RESCIND_CONSENT (`appData`)
/// and EXTERNAL_PURCHASE_TOKEN (`externalPurchaseToken`). Neither changes what anyone owns; the
/// ledger records what each means, for the customer when one is found.
extension PurchaseLedger {
    /// The customer whose purchases were made in app download `appTransactionId` (transactions
    /// first, then stored app transactions and JWS), if any.
    public func customer(appTransactionId id: String) throws -> String? {
        if let found = try database.queryFirst("SELECT customer_id FROM transactions WHERE app_transaction_id = ? LIMIT 1",
                                               [.text(id)])?.string("customer_id") {
            return found
        }
        return try database.queryFirst("""
            SELECT customer_id FROM receipts WHERE app_transaction_id = ? AND customer_id IS NOT NULL LIMIT 1
            """, [.text(id)])?.string("customer_id")
    }

    /// What an app-level notification means, in one line, or nil for any other notification.
    static func appLevelOutcome(_ notification: ServerNotification, owner: String?) -> String? {
        switch notification.type {
        case .rescindConsent?:
            let app = notification.appData?.appTransaction?.appTransactionId
            let whose = owner.map { "customer \($0)'s" } ?? "an account's (no customer here has app transaction \(app ?? "(none)"))"
            return "consent rescinded: a parent or guardian withdrew consent for \(whose) use of the app"
                + (app.map { " (app transaction \($0))" } ?? "")
                + "; Apple keeps the app from launching for them; purchases and entitlements are unchanged"
        case .externalPurchaseToken?:
            let token = notification.externalPurchaseToken
            let created = token?.tokenCreationDate.map { " created \(RFC3339.format($0))" } ?? ""
            let what = notification.subtype == "UNREPORTED" ? "was never reported to Apple: report it with the External Purchase Server API"
                : "(\(notification.subtype ?? "no subtype"))"
            return "external purchase token \(token?.externalPurchaseId ?? "(no id)")\(created) \(what); nothing owned changes"
        default:
            return nil
        }
    }

    /// Fills in the app transaction id of a stored transaction recorded before Apple said it
    /// (from a receipt, or by an older receiptdesk).
    func fillAppTransactionId(_ fact: IncomingTransaction) throws {
        guard let id = fact.appTransactionId else { return }
        try database.execute("UPDATE transactions SET app_transaction_id = ? WHERE transaction_id = ? AND app_transaction_id IS NULL",
                             [.text(id), .text(fact.transactionId)])
    }
}
