import Foundation
import ReceiptCore

/// What a customer paid and got back, per currency, from the prices Apple signed on their
/// transactions (StoreKit 2 transactions and notifications carry them; app receipts do not, so
/// `unpriced` counts the purchases the figures leave out). A Family Sharing copy is not the
/// member's purchase: the organiser paid, so it is counted apart (`familyShared`), never as spend.
public struct LifetimeSpend: Sendable, Equatable {
    /// One currency's totals, in milliunits of it.
    public struct Amount: Sendable, Equatable {
        public let currency: String
        /// Every priced purchase.
        public let spent: Int64
        /// Refunded: the whole price of a full refund, the refunded share of a prorated one.
        public let refunded: Int64

        public init(currency: String, spent: Int64, refunded: Int64) {
            self.currency = currency
            self.spent = spent
            self.refunded = refunded
        }
    }

    /// By currency code, sorted.
    public let amounts: [Amount]
    /// Purchases without a signed price.
    public let unpriced: Int
    /// Purchases refunded (in full or in part), priced or not.
    public let refunds: Int
    /// Purchases shared by a family organiser (not paid by this customer).
    public var familyShared = 0

    /// "spent 29.97 USD, refunded 9.99 USD; 2 purchases without a signed price", or nil when no
    /// purchase of the customer carries a signed price.
    public var line: String? {
        guard !amounts.isEmpty || familyShared > 0 else { return nil }
        var parts = amounts.map { "spent \(AppleMoney.format($0.spent, currency: $0.currency) ?? "?")"
            + ($0.refunded > 0 ? ", refunded \(AppleMoney.format($0.refunded, currency: $0.currency) ?? "?")" : "") }
        if unpriced > 0 { parts.append("\(unpriced) purchase\(unpriced == 1 ? "" : "s") without a signed price (app receipts carry none)") }
        if familyShared > 0 { parts.append("\(familyShared) purchase\(familyShared == 1 ? "" : "s") shared by a family organiser (paid by them, not counted)") }
        return parts.joined(separator: "; ")
    }

    /// The US dollar totals, when every priced purchase is in dollars (Apple's consumption bands
    /// are in dollars; the ledger keeps no exchange rates); nil otherwise.
    public var dollars: (spent: Double, refunded: Double)? {
        guard amounts.count == 1, let usd = amounts.first, usd.currency == "USD" else { return nil }
        return (Double(usd.spent) / 1000, Double(usd.refunded) / 1000)
    }
}

extension PurchaseLedger {
    /// A customer's lifetime spend and refunds (see `LifetimeSpend`).
    public func lifetimeSpend(of customerId: String) throws -> LifetimeSpend {
        var totals: [String: (spent: Int64, refunded: Int64)] = [:]
        var unpriced = 0, refunds = 0, familyShared = 0
        try database.forEachRow("""
            SELECT price, currency, quantity, revocation_date, cancellation_date, revocation_type, revocation_percentage, is_upgraded,
                   ownership_type
            FROM transactions WHERE customer_id = ?
            """, [.text(customerId)]) { row in
            if row.string(8) == OwnershipType.familyShared.rawValue {
                familyShared += 1
                return
            }
            let refunded = (row.date(3) != nil || row.date(4) != nil) && row.int(7) != 1
            if refunded { refunds += 1 }
            guard let price = row.int(0), let currency = row.string(1), !currency.isEmpty else {
                unpriced += 1
                return
            }
            var entry = totals[currency] ?? (0, 0)
            entry.spent = entry.spent.addingReportingOverflow(price).partialValue
            if refunded {
                // A prorated refund gives back its share (milliunits of a percent); a full one, all.
                let share = row.string(5) == RevocationType.refundProrated.rawValue ? min(100_000, max(0, row.int(6) ?? 100_000)) : 100_000
                let (product, overflow) = price.multipliedReportingOverflow(by: share)
                entry.refunded += overflow ? price : product / 100_000
            }
            totals[currency] = entry
        }
        let amounts = totals.keys.sorted().compactMap { code in totals[code].map { LifetimeSpend.Amount(currency: code, spent: $0.spent, refunded: $0.refunded) } }
        var spend = LifetimeSpend(amounts: amounts, unpriced: unpriced, refunds: refunds)
        spend.familyShared = familyShared
        return spend
    }

    /// Keeps the price Apple signed on a transaction the ledger recorded without one (from an
    /// app receipt, say), when a signed transaction about it arrives.
    func fillPrice(_ fact: IncomingTransaction) throws {
        guard let price = fact.price, let currency = fact.currency else { return }
        try database.execute("UPDATE transactions SET price = ?, currency = ? WHERE transaction_id = ? AND price IS NULL",
                             [.integer(price), .text(currency), .text(fact.transactionId)])
    }
}
