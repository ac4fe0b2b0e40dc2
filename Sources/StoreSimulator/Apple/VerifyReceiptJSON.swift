import Foundation
import ReceiptCore

/// Apple's verifyReceipt JSON, written the way Apple writes it: snake_case keys, every value a
/// string except the app-level ids, each date three times. An `in_app` / `latest_receipt_info`
/// entry:
///
///     {"quantity":"1","product_id":"pro.monthly","transaction_id":"2000000100000002",
///      "original_transaction_id":"2000000100000001","purchase_date":"2023-11-14 22:13:20 Etc/GMT",
///      "purchase_date_ms":"1700000000000","purchase_date_pst":"2023-11-14 14:13:20 America/Los_Angeles",
///      "original_purchase_date":"…","original_purchase_date_ms":"…","original_purchase_date_pst":"…",
///      "expires_date":"…","expires_date_ms":"…","expires_date_pst":"…","web_order_line_item_id":"2000000000000002",
///      "is_trial_period":"false","is_in_intro_offer_period":"false","in_app_ownership_type":"PURCHASED",
///      "subscription_group_identifier":"pro","cancellation_date":"…","cancellation_date_ms":"…",
///      "cancellation_date_pst":"…","cancellation_reason":"1","app_account_token":"…"}
enum VerifyReceiptJSON {
    /// `key`, `key_ms` and `key_pst` for a date; nothing when absent.
    static func dateMembers(_ key: String, _ date: Date?) -> [(String, JSONValue)] {
        guard let date else { return [] }
        var members: [(String, JSONValue)] = [(key, .string(LegacyPurchaseInfo.gmt(date))),
                                              (key + "_ms", .string(LegacyPurchaseInfo.milliseconds(date)))]
        if let pacific = LegacyPurchaseInfo.pacific(date) { members.append((key + "_pst", .string(pacific))) }
        return members
    }

    /// One purchase entry. `subscriptionGroup` is written for subscriptions.
    static func entry(_ purchase: Purchase, subscriptionGroup: String? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("quantity", .string(String(purchase.quantity ?? 1))),
            ("product_id", .string(purchase.productId ?? "")),
            ("transaction_id", .string(purchase.transactionId ?? "")),
            ("original_transaction_id", .string(purchase.originalTransactionId ?? purchase.transactionId ?? "")),
        ]
        members += dateMembers("purchase_date", purchase.purchaseDate)
        members += dateMembers("original_purchase_date", purchase.originalPurchaseDate ?? purchase.purchaseDate)
        members += dateMembers("expires_date", purchase.expiresDate)
        if let line = purchase.webOrderLineItemId { members.append(("web_order_line_item_id", .string(line))) }
        members.append(("is_trial_period", .string(purchase.isTrialPeriod == true ? "true" : "false")))
        members.append(("is_in_intro_offer_period", .string(purchase.isInIntroOfferPeriod == true ? "true" : "false")))
        members.append(("in_app_ownership_type", .string(purchase.ownershipType ?? "PURCHASED")))
        if purchase.isUpgraded == true { members.append(("is_upgraded", .string("true"))) }
        if let subscriptionGroup { members.append(("subscription_group_identifier", .string(subscriptionGroup))) }
        members += dateMembers("cancellation_date", purchase.cancellationDate)
        if let reason = purchase.revocationReason { members.append(("cancellation_reason", .string(reason))) }
        if let token = purchase.appAccountToken { members.append(("app_account_token", .string(token))) }
        return .object(members)
    }

    /// An issued transaction as an entry, with what Apple was told since (refund, reason).
    static func entry(_ transaction: IssuedTransaction) -> JSONValue {
        var purchase = Purchase()
        purchase.transactionId = transaction.transactionId
        purchase.originalTransactionId = transaction.originalTransactionId
        purchase.productId = transaction.productId
        purchase.quantity = transaction.quantity
        purchase.purchaseDate = transaction.purchaseDate
        purchase.originalPurchaseDate = transaction.originalPurchaseDate
        purchase.expiresDate = transaction.expiresDate
        purchase.webOrderLineItemId = transaction.webOrderLineItemId
        purchase.cancellationDate = transaction.revocation?.date
        purchase.revocationReason = transaction.revocation?.reason.map(String.init)
        purchase.isUpgraded = transaction.isUpgraded
        purchase.ownershipType = transaction.inAppOwnershipType
        purchase.appAccountToken = transaction.appAccountToken
        purchase.isTrialPeriod = false
        purchase.isInIntroOfferPeriod = false
        let group = transaction.productType == .autoRenewable ? (transaction.subscriptionGroupIdentifier ?? transaction.productId) : nil
        return entry(purchase, subscriptionGroup: group)
    }

    /// The `receipt` object for a unified receipt, `in_app` as the receipt holds it.
    static func receipt(_ receipt: AppReceipt, requestDate: Date) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("receipt_type", .string(receipt.receiptType ?? "")),
            ("adam_id", .int(receipt.appItemId ?? 0)),
            ("app_item_id", .int(receipt.appItemId ?? 0)),
            ("bundle_id", .string(receipt.bundleId ?? "")),
            ("application_version", .string(receipt.appVersion ?? "")),
            ("download_id", .int(receipt.downloadId ?? 0)),
            ("version_external_identifier", .int(0)),
        ]
        members += dateMembers("receipt_creation_date", receipt.creationDate)
        members += dateMembers("request_date", requestDate)
        members += dateMembers("original_purchase_date", receipt.originalPurchaseDate)
        if let original = receipt.originalAppVersion { members.append(("original_application_version", .string(original))) }
        members.append(("in_app", .array(receipt.inApp.map { purchase in
            entry(purchase.purchase, subscriptionGroup: nil)
        })))
        return .object(members)
    }

    /// The `receipt` object for an iOS 6 receipt: its purchase-info keys with `-` written as `_`
    /// (as Apple answered), and subscription expiry as `expires_date` text plus `expires_date_ms`.
    static func receipt(_ receipt: LegacyReceipt) -> JSONValue {
        var members: [(String, JSONValue)] = []
        for entry in receipt.purchaseInfo {
            guard let value = entry.value.stringValue else { continue }
            let key = entry.key.replacingOccurrences(of: "-", with: "_")
            if key == "expires_date" || key.hasPrefix("expires_date_formatted") { continue }
            members.append((key, .string(value)))
        }
        members += dateMembers("expires_date", receipt.expiresDate)
        return .object(members)
    }

    /// One `pending_renewal_info` entry.
    static func pendingRenewal(original: String, records: SimulatorRecords) -> JSONValue? {
        guard let latest = records.latestTransaction(original: original), latest.productType == .autoRenewable else { return nil }
        let renewal = records.subscriptions[original] ?? SubscriptionRenewal(autoRenewProductId: latest.productId)
        var members: [(String, JSONValue)] = [
            ("auto_renew_product_id", .string(renewal.autoRenewProductId)),
            ("product_id", .string(latest.productId)),
            ("original_transaction_id", .string(original)),
            ("auto_renew_status", .string(renewal.autoRenewStatus ? "1" : "0")),
        ]
        if let intent = renewal.expirationIntent {
            members.append(("expiration_intent", .string(String(intent))))
            members.append(("is_in_billing_retry_period", .string("0")))
        }
        return .object(members)
    }
}
