import Foundation

/// What Apple's (deprecated) verifyReceipt endpoint answered, decoded into the same model as a
/// receipt so an answer pasted from a log shows as a tree too:
///
///     {"status":0,"environment":"Sandbox","receipt":{"bundle_id":"…","in_app":[{…}], …},
///      "latest_receipt_info":[{…}],"latest_receipt":"MIIT…","pending_renewal_info":[{…}],"is-retryable":false}
///
/// Values are strings in Apple's answers (dates as "2013-08-01 07:00:00 Etc/GMT", `_ms` as strings).
public struct VerifyReceiptResponse: Sendable {
    public let body: JSONObject
    /// 0 valid, 21000–21010, 21100–21199.
    public let status: Int64
    public let environment: EnvironmentReading
    public let isRetryable: Bool?
    /// The `receipt` object (app-level fields and `in_app`, or an iOS 6 purchase).
    public let receipt: JSONObject?
    public let bundleId: String?
    public let appVersion: String?
    public let originalAppVersion: String?
    public let creationDate: Date?
    public let receiptType: String?
    /// `receipt.in_app`, or the iOS 6 style `receipt` itself when it is one purchase.
    public let inApp: [Purchase]
    public let latestReceiptInfo: [Purchase]
    public let pendingRenewalInfo: [JSONObject]
    public let latestReceipt: String?

    /// Parses an answer body.
    public init(json bytes: [UInt8]) throws {
        let body = try JSONObject(parsing: bytes, what: "verifyReceipt response")
        guard let status = try body.int("status") else {
            throw ReceiptError(.missingField, "verifyReceipt response: `status` is missing")
        }
        self.body = body
        self.status = status
        environment = .named(try body.string("environment"), source: .appleAnswer)
        isRetryable = try body.bool("is-retryable") ?? body.bool("is_retryable")
        let receipt = try body.object("receipt")
        self.receipt = receipt
        bundleId = try receipt?.string("bundle_id") ?? receipt?.string("bid")
        appVersion = try receipt?.string("application_version") ?? receipt?.string("bvrs")
        originalAppVersion = try receipt?.string("original_application_version")
        creationDate = try receipt.map { try VerifyReceiptResponse.date($0, "receipt_creation_date") } ?? nil
        receiptType = try receipt?.string("receipt_type")
        if let receipt, receipt.has("in_app") {
            inApp = try receipt.objects("in_app", limit: AppReceipt.maxPurchases).map(VerifyReceiptResponse.purchase)
        } else if let receipt, receipt.has("transaction_id") {
            inApp = [try VerifyReceiptResponse.purchase(receipt)]
        } else {
            inApp = []
        }
        latestReceiptInfo = try body.objects("latest_receipt_info", limit: AppReceipt.maxPurchases).map(VerifyReceiptResponse.purchase)
        pendingRenewalInfo = try body.objects("pending_renewal_info", limit: AppReceipt.maxPurchases)
        latestReceipt = try body.string("latest_receipt")
    }

    /// One entry of `in_app` / `latest_receipt_info`.
    static func purchase(_ entry: JSONObject) throws -> Purchase {
        var p = Purchase()
        p.transactionId = try entry.string("transaction_id")
        p.originalTransactionId = try entry.string("original_transaction_id")
        p.productId = try entry.string("product_id")
        p.quantity = try entry.int("quantity")
        p.purchaseDate = try date(entry, "purchase_date")
        p.originalPurchaseDate = try date(entry, "original_purchase_date")
        p.expiresDate = try date(entry, "expires_date")
        p.cancellationDate = try date(entry, "cancellation_date")
        p.webOrderLineItemId = try entry.string("web_order_line_item_id")
        p.isTrialPeriod = try entry.bool("is_trial_period")
        p.isInIntroOfferPeriod = try entry.bool("is_in_intro_offer_period")
        p.promotionalOfferId = try entry.string("promotional_offer_id")
        p.appAccountToken = try entry.string("app_account_token")
        p.revocationReason = try entry.string("cancellation_reason")
        p.ownershipType = try entry.string("in_app_ownership_type")
        p.isUpgraded = try entry.bool("is_upgraded")
        return p
    }

    /// A date from `<key>_ms` when present, else `<key>` in Apple's "yyyy-MM-dd HH:mm:ss Etc/GMT"
    /// form or RFC 3339.
    static func date(_ entry: JSONObject, _ key: String) throws -> Date? {
        if entry.has(key + "_ms") { return try entry.millisecondsDate(key + "_ms") }
        guard let text = try entry.string(key), !text.isEmpty else { return nil }
        if let date = AppleDateText.parse(text) { return date }
        // iOS 6 style answers write some dates (expires_date) as milliseconds.
        if text.allSatisfy(\.isNumber), text.count <= 15, let ms = Double(text) { return RFC3339.fromMilliseconds(ms) }
        throw ReceiptError(.badValue, "\(entry.what): `\(key)` is not a date: '\(text.prefix(40))'")
    }
}

/// Apple's older date text, "2012-04-30 15:05:55 Etc/GMT" (UTC only), or RFC 3339.
public enum AppleDateText {
    public static func parse(_ text: String) -> Date? {
        if let date = RFC3339.parse(text) { return date }
        for suffix in [" Etc/GMT", " GMT", " UTC"] where text.hasSuffix(suffix) {
            let stem = text.dropLast(suffix.count)
            guard stem.count == 19 else { return nil }
            return RFC3339.parse(String(stem) + "Z")
        }
        return nil
    }
}
