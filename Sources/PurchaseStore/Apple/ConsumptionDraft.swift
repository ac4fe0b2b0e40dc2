import AppStoreAPI
import Foundation
import ReceiptCore

/// Consumption information filled from what the ledger knows, each field with where its value
/// came from, for the operator to review (and change) before it is sent.
public struct ConsumptionDraft: Sendable {
    public let request: RefundRequest
    public var information: ConsumptionInformation
    /// Field name → why it has its value ("the subscription period ended 2026-11-30").
    public let sources: [String: String]

    /// The review, one field a line: "consumptionStatus 3 fully consumed — the period ended …".
    public var lines: [String] {
        var out = ["Refund request #\(request.requestId): \(request.productId ?? "?") transaction \(request.transactionId) of \(request.customerId ?? "no known customer")"
                   + (request.requestReason.map { " (the customer's reason: \(RefundRequest.reasonWords($0)))" } ?? ""),
                   "Send Consumption Information version \(information.version)\(information.version == 1 ? " (deprecated by Apple; the config asks for it)" : "")",
                   "customerConsented \(information.customerConsented) — \(information.customerConsented ? "the operator confirmed it" : "not confirmed: Apple refuses the information without it")"]
        if information.version == 2 {
            out.append("consumptionPercentage \(information.consumptionPercentage.map(String.init) ?? "left out") \(information.consumptionPercentageText) — \(sources["consumptionPercentage"] ?? "as given")")
        }
        for field in information.codedFields {
            out.append("\(field.name) \(field.value) \(field.meaning) — \(sources[field.name] ?? "as given")")
        }
        out.append("sampleContentProvided \(information.sampleContentProvided) — \(sources["sampleContentProvided"] ?? "as given")")
        if information.version == 1 {
            out.append("appAccountToken \(information.appAccountToken.isEmpty ? "(none)" : information.appAccountToken) — \(sources["appAccountToken"] ?? "as given")")
        }
        return out
    }
}

extension PurchaseLedger {
    /// The draft for refund request `requestId`: consent and refund preference are the operator's
    /// to give; the rest comes from the ledger (undeclared where it knows nothing).
    public func consumptionDraft(_ requestId: Int64) throws -> ConsumptionDraft {
        let request = try refundRequest(requestId)
        let now = clock()
        var sources: [String: String] = [:]
        let transaction = try database.queryFirst("SELECT * FROM transactions WHERE transaction_id = ?", [.text(request.transactionId)])
        // How much was consumed: of a subscription, the share of its paid period gone by.
        var consumption = 0
        var percentage: Int?
        let type = transaction?.string("product_type")
        if type == ProductType.autoRenewable.rawValue, let start = transaction?.date("purchase_date"), let end = transaction?.date("expires_date") {
            consumption = now >= end ? 3 : now > start ? 2 : 1
            sources["consumptionStatus"] = now >= end ? "the paid period ended \(SubscriptionStory.utcDay(end))"
                : "the paid period \(SubscriptionStory.utcDay(start))–\(SubscriptionStory.utcDay(end)) is under way"
            let period = end.timeIntervalSince(start)
            if period > 0 {
                let share = min(1, max(0, now.timeIntervalSince(start) / period))
                percentage = Int((share * 100_000).rounded())
                sources["consumptionPercentage"] = "\(Int((min(now, end).timeIntervalSince(start) / 86_400).rounded(.down))) of the \(Int((period / 86_400).rounded())) days paid for (\(SubscriptionStory.utcDay(start))–\(SubscriptionStory.utcDay(end))) have passed"
            }
        } else {
            sources["consumptionStatus"] = transaction == nil ? "the ledger does not hold this transaction"
                : "the ledger does not know how much of a \(type ?? "purchase") was used"
        }
        if sources["consumptionPercentage"] == nil {
            sources["consumptionPercentage"] = (transaction == nil ? "the ledger does not hold this transaction"
                : "the ledger does not know how much of a \(type ?? "purchase") was used") + ": left out"
        }
        // Delivery: the ledger granted what the purchase gives.
        var delivery = 5
        if let transaction {
            let granted = try database.queryFirst("SELECT 1 AS found FROM entitlements WHERE transaction_id = ? LIMIT 1",
                                                   [.text(request.transactionId)]) != nil
            let revoked = transaction.date("revocation_date") != nil
            delivery = granted || revoked ? 0 : 5
            sources["deliveryStatus"] = granted ? "the ledger granted its entitlement" : revoked ? "delivered, since revoked"
                : "the ledger granted nothing for it (no catalogue entitlement)"
        } else {
            sources["deliveryStatus"] = "the ledger does not hold this transaction"
        }
        // Account age from when the customer first appeared.
        var tenure = 0
        // The account is as old as the earliest of: the customer's row, their first purchase.
        if let customer = request.customerId,
           let created = try database.queryFirst("SELECT created_at FROM customers WHERE customer_id = ?", [.text(customer)])?.date("created_at") {
            let firstPurchase = try database.queryFirst("SELECT MIN(purchase_date) AS first FROM transactions WHERE customer_id = ?",
                                                        [.text(customer)])?.date("first")
            let since = min(created, firstPurchase ?? created)
            let days = now.timeIntervalSince(since) / 86_400
            tenure = ConsumptionInformation.tenureBand(days: days)
            sources["accountTenure"] = "customer since \(SubscriptionStory.utcDay(since)) (\(Plural.of(Int(days), "day")), \(firstPurchase == since ? "first purchase" : "first seen here"))"
        } else {
            sources["accountTenure"] = "no customer in the ledger"
        }
        // Lifetime figures (version 1's bands are in US dollars): from the prices Apple signed.
        var purchasedBand = 0, refundedBand = 0
        if let customer = request.customerId {
            let spend = try lifetimeSpend(of: customer)
            let unpricedNote = spend.unpriced > 0 ? "; \(spend.unpriced) purchase\(spend.unpriced == 1 ? "" : "s") without a signed price not counted" : ""
            if let dollars = spend.dollars {
                purchasedBand = ConsumptionInformation.dollarBand(dollars.spent)
                refundedBand = ConsumptionInformation.dollarBand(dollars.refunded)
                sources["lifetimeDollarsPurchased"] = String(format: "$%.2f from the prices Apple signed", dollars.spent) + unpricedNote
                sources["lifetimeDollarsRefunded"] = String(format: "$%.2f refunded", dollars.refunded)
                    + " (\(spend.refunds) refund\(spend.refunds == 1 ? "" : "s"))" + unpricedNote
            } else {
                let why = spend.amounts.isEmpty ? "no price Apple signed is kept for this customer's purchases"
                    : "prices in \(spend.amounts.map(\.currency).joined(separator: ", ")): the ledger keeps no exchange rate to dollars"
                sources["lifetimeDollarsPurchased"] = why
                sources["lifetimeDollarsRefunded"] = why + " (\(spend.refunds) refund\(spend.refunds == 1 ? "" : "s"))"
            }
        } else {
            sources["lifetimeDollarsPurchased"] = "no customer in the ledger"
            sources["lifetimeDollarsRefunded"] = "no customer in the ledger"
        }
        sources["playTime"] = "the ledger does not know time spent in the app"
        sources["platform"] = "bought through the App Store"
        sources["userStatus"] = request.customerId == nil ? "no customer in the ledger" : "the customer's account is active here"
        sources["sampleContentProvided"] = "the operator's choice"
        let token = transaction?.string("app_account_token").flatMap { UUID(uuidString: $0) }?.uuidString.lowercased() ?? ""
        sources["appAccountToken"] = token.isEmpty ? "the purchase carries no UUID token" : "the purchase's token"
        sources["refundPreference"] = "the operator's choice"
        let information = ConsumptionInformation(
            customerConsented: false, consumptionStatus: consumption, platform: 1, sampleContentProvided: false, deliveryStatus: delivery,
            appAccountToken: token, accountTenure: tenure, playTime: 0, lifetimeDollarsRefunded: refundedBand, lifetimeDollarsPurchased: purchasedBand,
            userStatus: request.customerId == nil ? 0 : 1, refundPreference: 0)
        var draft = ConsumptionDraft(request: request, information: information, sources: sources)
        draft.information.version = configuration.appStore.consumptionVersion
        draft.information.consumptionPercentage = percentage
        return draft
    }
}
