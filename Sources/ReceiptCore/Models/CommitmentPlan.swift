import Foundation

/// How a subscription with a 12-month commitment is billed (`billingPlanType` on a transaction,
/// `renewalBillingPlanType` on a renewal info; App Store Server API 1.21). The raw value is kept
/// beside this, so a new value decodes.
public enum BillingPlanType: String, Sendable {
    /// The whole commitment paid at once.
    case billedUpfront = "BILLED_UPFRONT"
    /// Paid month by month for the commitment's length.
    case monthly = "MONTHLY"

    /// "billed monthly", "billed upfront", or "billing plan X" for an unknown raw value.
    public static func describe(_ raw: String) -> String {
        switch BillingPlanType(rawValue: raw) {
        case .monthly?: return "billed monthly"
        case .billedUpfront?: return "billed upfront"
        case nil: return "billing plan \(raw)"
        }
    }
}

/// A transaction's `commitmentInfo` (`TransactionCommitmentInfo`, App Store Server API 1.21):
///
///     "commitmentInfo": {"billingPeriodNumber": 3, "commitmentExpiresDate": 1698150000000,
///                        "commitmentPrice": 119880, "totalBillingPeriods": 12}
///
/// The member names and types are those of Apple's server libraries (Swift and Python, models
/// `TransactionCommitmentInfo`). What `commitmentPrice` stands for is not stated in Apple's
/// sources we could read: the libraries link a documentation page without its text, and their
/// sample (119880 beside a monthly renewal price of 9990, 12 periods) reads as the commitment's
/// whole price. It is shown as "commitment price", never used to compute access.
public struct TransactionCommitment: Sendable, Equatable {
    /// Which billing period of the commitment this transaction pays (1 … totalBillingPeriods).
    public var billingPeriodNumber: Int64?
    /// How many billing periods the commitment has (12 monthly payments for a 12-month plan).
    public var totalBillingPeriods: Int64?
    /// Milliunits of the transaction's currency (see the type's note).
    public var commitmentPrice: Int64?
    /// When the commitment ends.
    public var commitmentExpiresDate: Date?

    public init(billingPeriodNumber: Int64? = nil, totalBillingPeriods: Int64? = nil, commitmentPrice: Int64? = nil,
                commitmentExpiresDate: Date? = nil) {
        self.billingPeriodNumber = billingPeriodNumber
        self.totalBillingPeriods = totalBillingPeriods
        self.commitmentPrice = commitmentPrice
        self.commitmentExpiresDate = commitmentExpiresDate
    }

    /// Decodes a `commitmentInfo` object.
    public init(_ object: JSONObject) throws {
        billingPeriodNumber = try object.int("billingPeriodNumber")
        totalBillingPeriods = try object.int("totalBillingPeriods")
        commitmentPrice = try object.int("commitmentPrice")
        commitmentExpiresDate = try object.millisecondsDate("commitmentExpiresDate")
    }

    /// Billing periods still to be paid after this one (never negative); nil when a number is missing.
    public var periodsLeft: Int64? {
        guard let number = billingPeriodNumber, let total = totalBillingPeriods else { return nil }
        return max(total - number, 0)
    }

    /// "period 3 of 12, 9 left, commitment ends 2026-12-01, commitment price 119.88 USD".
    public func describe(currency: String?, day: (Date) -> String) -> String {
        var parts: [String] = []
        if let number = billingPeriodNumber {
            parts.append("period \(number)" + (totalBillingPeriods.map { " of \($0)" } ?? ""))
        } else if let total = totalBillingPeriods {
            parts.append("\(total) periods")
        }
        if let left = periodsLeft { parts.append("\(left) left") }
        if let ends = commitmentExpiresDate { parts.append("commitment ends \(day(ends))") }
        if let price = MilliunitText.format(commitmentPrice, currency: currency) { parts.append("commitment price \(price)") }
        return parts.isEmpty ? "commitment (no details)" : parts.joined(separator: ", ")
    }
}

/// A renewal info's `commitmentInfo` (`RenewalCommitmentInfo`, App Store Server API 1.21): what
/// happens when the commitment ends.
///
///     "commitmentInfo": {"commitmentAutoRenewProductId": "pro.commitment", "commitmentAutoRenewStatus": 1,
///                        "commitmentRenewalBillingPlanType": "MONTHLY", "commitmentRenewalDate": 1698149500000,
///                        "commitmentRenewalPrice": 9990}
public struct RenewalCommitment: Sendable, Equatable {
    /// The product the subscription renews into when the commitment ends.
    public var autoRenewProductId: String?
    /// 1 the commitment renews, 0 it does not.
    public var autoRenewStatus: Int64?
    /// The billing plan after renewal, as Apple wrote it.
    public var renewalBillingPlanTypeRaw: String?
    /// When the commitment renews (or ends).
    public var renewalDate: Date?
    /// Milliunits of the renewal info's currency.
    public var renewalPrice: Int64?

    public init(autoRenewProductId: String? = nil, autoRenewStatus: Int64? = nil, renewalBillingPlanTypeRaw: String? = nil,
                renewalDate: Date? = nil, renewalPrice: Int64? = nil) {
        self.autoRenewProductId = autoRenewProductId
        self.autoRenewStatus = autoRenewStatus
        self.renewalBillingPlanTypeRaw = renewalBillingPlanTypeRaw
        self.renewalDate = renewalDate
        self.renewalPrice = renewalPrice
    }

    /// Decodes a renewal info's `commitmentInfo` object.
    public init(_ object: JSONObject) throws {
        autoRenewProductId = try object.string("commitmentAutoRenewProductId")
        autoRenewStatus = try object.int("commitmentAutoRenewStatus")
        renewalBillingPlanTypeRaw = try object.string("commitmentRenewalBillingPlanType")
        renewalDate = try object.millisecondsDate("commitmentRenewalDate")
        renewalPrice = try object.int("commitmentRenewalPrice")
    }

    /// The billing plan after renewal, when the raw value is one Apple documents.
    public var renewalBillingPlanType: BillingPlanType? { renewalBillingPlanTypeRaw.flatMap(BillingPlanType.init(rawValue:)) }
}

/// Apple's milliunit prices as text ("119.88 USD"); the same rule as the ledger's `AppleMoney`
/// (no minor units for JPY, KRW, …), kept here so the core can say a price.
public enum MilliunitText {
    static let noMinorUnits: Set<String> = ["JPY", "KRW", "CLP", "VND", "ISK", "HUF", "TWD", "UGX", "PYG", "XAF", "XOF", "IDR"]

    /// "1.99 USD", "120 JPY"; nil without a price.
    public static func format(_ milliunits: Int64?, currency: String?) -> String? {
        guard let milliunits else { return nil }
        let code = currency?.uppercased() ?? ""
        let decimals = noMinorUnits.contains(code) ? 0 : 2
        let scale: UInt64 = decimals == 0 ? 1000 : 10
        let units = (milliunits.magnitude + scale / 2) / scale
        var text = String(units)
        if decimals == 2 {
            let fraction = units % 100
            text = "\(units / 100).\(fraction < 10 ? "0" : "")\(fraction)"
        }
        return (milliunits < 0 ? "-" : "") + text + (code.isEmpty ? "" : " \(code)")
    }
}
