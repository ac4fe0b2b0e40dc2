import Foundation
import ReceiptCore

/// What Apple signed about a subscription's revocation and its 12-month commitment plan (API
/// 1.19 and 1.21), kept with its state (`subscription_states`, migration 0008): the newest
/// transaction's `revocationType` / `revocationPercentage`, `billingPlanType` and
/// `commitmentInfo`, and the renewal info's `renewalBillingPlanType` and `commitmentInfo`.
public struct SubscriptionTerms: Sendable, Equatable {
    /// `REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`, as written.
    public var revocationType: String?
    /// Milliunits of a percent refunded or revoked (40000 is 40%).
    public var revocationPercentage: Int64?
    /// `MONTHLY` or `BILLED_UPFRONT`, as written.
    public var billingPlanType: String?
    public var commitment: TransactionCommitment?
    /// How the next period is billed, as written.
    public var renewalBillingPlanType: String?
    /// What follows the commitment.
    public var renewalCommitment: RenewalCommitment?

    public init() {}

    /// Whether it is a commitment plan.
    public var hasCommitment: Bool { billingPlanType != nil || commitment != nil || renewalCommitment != nil }

    /// "billed monthly, period 3 of 12, 9 left, commitment ends 2026-12-01, commitment price 119.88 USD;
    /// after it: renews into pro.monthly 2026-12-01 at 9.99 USD"; nil when not a commitment plan.
    /// `price` is the current period's price (the monthly price of a monthly plan).
    public func moneyLine(price: Int64?, currency: String?, day: (Date) -> String) -> String? {
        guard hasCommitment else { return nil }
        var parts: [String] = []
        var plan = billingPlanType.map(BillingPlanType.describe) ?? "commitment plan"
        if let text = MilliunitText.format(price, currency: currency) {
            plan += BillingPlanType(rawValue: billingPlanType ?? "") == .monthly ? " at \(text) a month" : " at \(text)"
        }
        parts.append(plan)
        if let commitment { parts.append(commitment.describe(currency: currency, day: day)) }
        var line = parts.joined(separator: ", ")
        if let next = renewalCommitment {
            var after: [String] = []
            if next.autoRenewStatus == 0 {
                after.append("does not renew")
            } else {
                after.append("renews" + (next.autoRenewProductId.map { " into \($0)" } ?? "") + (next.renewalDate.map { " \(day($0))" } ?? ""))
            }
            if let plan = next.renewalBillingPlanTypeRaw { after.append(BillingPlanType.describe(plan)) }
            if let text = MilliunitText.format(next.renewalPrice, currency: currency) { after.append("at \(text)") }
            line += "; after it: " + after.joined(separator: " ")
        }
        return line
    }

    /// Folds a signed transaction and renewal info in (absent members keep what was known).
    mutating func merge(_ transaction: SignedTransaction, _ renewal: RenewalInfo?) {
        revocationType = transaction.purchase.revocationTypeRaw
        revocationPercentage = transaction.purchase.revocationPercentage
        billingPlanType = transaction.purchase.billingPlanTypeRaw ?? billingPlanType
        commitment = transaction.purchase.commitment ?? commitment
        if let renewal {
            renewalBillingPlanType = renewal.renewalBillingPlanTypeRaw ?? renewalBillingPlanType
            renewalCommitment = renewal.commitment ?? renewalCommitment
        }
    }

    /// The columns in `subscription_states`, in the order of `values`.
    static let columns = [
        "revocation_type", "revocation_percentage", "billing_plan_type", "commitment_period", "commitment_periods", "commitment_price",
        "commitment_expires_date", "renewal_billing_plan_type", "commitment_renewal_product_id", "commitment_auto_renew",
        "commitment_renewal_date", "commitment_renewal_price",
    ]

    var values: [SQLValue] {
        [.text(revocationType), .integer(revocationPercentage), .text(billingPlanType), .integer(commitment?.billingPeriodNumber),
         .integer(commitment?.totalBillingPeriods), .integer(commitment?.commitmentPrice), .date(commitment?.commitmentExpiresDate),
         .text(renewalBillingPlanType), .text(renewalCommitment?.autoRenewProductId), .integer(renewalCommitment?.autoRenewStatus),
         .date(renewalCommitment?.renewalDate), .integer(renewalCommitment?.renewalPrice)]
    }

    /// The terms of a `subscription_states` row.
    init(_ row: SQLRow) {
        revocationType = row.string("revocation_type")
        revocationPercentage = row.int("revocation_percentage")
        billingPlanType = row.string("billing_plan_type")
        commitment = PurchaseLedger.commitment(row)
        renewalBillingPlanType = row.string("renewal_billing_plan_type")
        let next = RenewalCommitment(autoRenewProductId: row.string("commitment_renewal_product_id"),
                                     autoRenewStatus: row.int("commitment_auto_renew"), renewalDate: row.date("commitment_renewal_date"),
                                     renewalPrice: row.int("commitment_renewal_price"))
        renewalCommitment = next == RenewalCommitment() ? nil : next
    }
}
