import AppStoreAPI
import Foundation
import ReceiptCore

/// Goodwill at Apple for many: every auto-renewable subscription of a list of customers extended
/// by the same days for the same reason, each through Extend a Subscription Renewal Date, with a
/// line per subscription (or per customer who has none) saying what it came to.
///
/// One goodwill extends a subscription once. Its request identifier at Apple is derived from the
/// goodwill (Apple's reason code and the reason, spaces and case folded) and the subscription, so
/// the same command run again, or by a second operator at the same moment, finds the request
/// already stored (extended, refused, or awaiting an answer it then retries with the same
/// identifier, which Apple applies once) and never asks for a second extension.
public struct RenewalExtensionBatch: Sendable {
    /// The most customers one batch may name.
    public static let maxCustomers = GrantBatch.maxCustomers

    /// What happens (or happened) to one subscription.
    public enum Outcome: Sendable, Equatable {
        /// To be asked of Apple (a preview); `retry`: the request was stored before and its answer never arrived.
        case willExtend(expires: Date?, retry: Bool)
        /// Apple extended it; its new renewal date.
        case extended(to: Date?)
        /// This goodwill extended it before (this run's operator or another): nothing asked.
        case alreadyExtended(to: Date?, by: String, at: Date?)
        /// Apple refused it (now, or when this goodwill asked before), with Apple's error.
        case refused(String)
        /// Not asked of Apple, and why (expired, none, Apple's yearly limit, held by another operator…).
        case skipped(String)
        /// Asked, but no answer came (Apple unreachable, busy): stored pending, retried by running it again.
        case failed(String)
    }

    /// One subscription of a customer, or a customer with none (`originalTransactionId` nil).
    public struct Line: Sendable, Equatable {
        public let customerId: String
        public let originalTransactionId: String?
        public let productId: String?
        /// The days asked (a retried request keeps the days it was stored with).
        public let days: Int
        public let outcome: Outcome
        /// What reading the subscription back from Apple said, when it failed after an extension.
        public let note: String?
    }

    /// Names the goodwill in the audit (`apple-extend-batch`, and `batch` in each `apple-extend`):
    /// the same for every run of the same reason code and reason.
    public let batchId: String
    public let days: Int
    public let reasonCode: ExtendReasonCode
    public let reason: String
    public let lines: [Line]
    /// Whether Apple was asked (false: a preview).
    public let applied: Bool

    /// Apple's reason code in words ("service issue or outage").
    public var reasonCodeWords: String { reasonCode.words }
    /// The customers the goodwill names, each once.
    public var customerCount: Int { Set(lines.map(\.customerId)).count }
    /// The subscriptions it found (lines of a customer with none left aside).
    public var subscriptionCount: Int { lines.filter { $0.originalTransactionId != nil }.count }

    /// How many lines' outcomes `matches` accepts.
    public func count(_ matches: (Outcome) -> Bool) -> Int { lines.filter { matches($0.outcome) }.count }
    public var toExtend: Int { count { if case .willExtend = $0 { return true } else { return false } } }
    public var extendedNow: Int { count { if case .extended = $0 { return true } else { return false } } }
    public var refusedOrFailed: Int {
        count { switch $0 { case .refused, .failed: return true; default: return false } }
    }

    /// The request identifier of this goodwill's extension of `original`: a UUID made from the
    /// SHA-256 of the goodwill and the subscription (version nibble 8, RFC 9562's custom UUID).
    static func requestIdentifier(reasonCode: ExtendReasonCode, reason: String, original: String) throws -> String {
        var digest = try sha256("receiptdesk goodwill extension v1\n\(reasonCode.rawValue)\n\(folded(reason))\n\(original)")
        digest[6] = (digest[6] & 0x0F) | 0x80
        digest[8] = (digest[8] & 0x3F) | 0x80
        let hex = Array(digest.prefix(16)).hexString
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }

    /// The goodwill's name: "goodwill-" and 8 hex digits of the SHA-256 of the reason code and reason.
    static func batchId(reasonCode: ExtendReasonCode, reason: String) throws -> String {
        "goodwill-" + Array(try sha256("receiptdesk goodwill v1\n\(reasonCode.rawValue)\n\(folded(reason))").prefix(4)).hexString
    }

    private static func sha256(_ text: String) throws -> [UInt8] {
        let digest = DigestAlgorithm.sha256.hash(Array(text.utf8))
        guard digest.count == 32 else { throw StoreError(.sql, "OpenSSL gave no SHA-256 for a goodwill's request identifier") }
        return digest
    }

    /// The reason as it decides sameness: lower-cased, runs of white space one space, trimmed.
    static func folded(_ reason: String) -> String {
        reason.lowercased().split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}

extension PurchaseLedger {
    /// What extending every auto-renewable subscription of `customers` would do now, asking
    /// Apple nothing: per subscription, to be extended (with its expiry), already extended by this
    /// goodwill, refused by Apple before, or skipped and why (Apple's rules as
    /// `planRenewalExtension` checks them); per customer without one, why.
    public func planRenewalExtensionBatch(customers given: [String], days: Int, reasonCode: ExtendReasonCode,
                                          reason: String) throws -> RenewalExtensionBatch {
        try Validate.reason(reason)
        guard (1...AppStoreServerAPIClient.maxExtensionDays).contains(days) else {
            throw StoreError(.invalidInput, "Apple extends a renewal date by 1–\(AppStoreServerAPIClient.maxExtensionDays) days at a time; \(days) is not")
        }
        var seen = Set<String>()
        let customers = given.filter { seen.insert($0).inserted }
        guard !customers.isEmpty else { throw StoreError(.invalidInput, "the batch names no customer") }
        guard customers.count <= RenewalExtensionBatch.maxCustomers else {
            throw StoreError(.invalidInput, "the batch names \(customers.count) customers, more than \(RenewalExtensionBatch.maxCustomers): split it")
        }
        var lines: [RenewalExtensionBatch.Line] = []
        for customer in customers {
            try Validate.identifier(customer, "customer id")
            guard try customerExists(customer) else {
                lines.append(.init(customerId: customer, originalTransactionId: nil, productId: nil, days: days,
                                   outcome: .skipped("not in the ledger"), note: nil))
                continue
            }
            let subscriptions = try database.query("""
                SELECT COALESCE(original_transaction_id, transaction_id) AS original, MAX(product_id) AS product FROM transactions
                WHERE customer_id = ? AND product_type = 'auto-renewable' GROUP BY COALESCE(original_transaction_id, transaction_id) ORDER BY original
                """, [.text(customer)])
            if subscriptions.isEmpty {
                lines.append(.init(customerId: customer, originalTransactionId: nil, productId: nil, days: days,
                                   outcome: .skipped("no auto-renewable subscription in the ledger"), note: nil))
            }
            for row in subscriptions {
                guard let original = row.string("original") else { continue }
                let (outcome, asked) = try goodwillDecision(customer: customer, original: original, days: days, reasonCode: reasonCode, reason: reason)
                lines.append(.init(customerId: customer, originalTransactionId: original, productId: row.string("product"),
                                   days: asked, outcome: outcome, note: nil))
            }
        }
        return RenewalExtensionBatch(batchId: try RenewalExtensionBatch.batchId(reasonCode: reasonCode, reason: reason), days: days,
                                     reasonCode: reasonCode, reason: reason, lines: lines, applied: false)
    }

    /// What this goodwill does to one subscription as the ledger is now, and the days it asks
    /// (a request stored before keeps its days). Writes nothing.
    func goodwillDecision(customer: String, original: String, days: Int, reasonCode: ExtendReasonCode,
                          reason: String) throws -> (RenewalExtensionBatch.Outcome, Int) {
        let identifier = try RenewalExtensionBatch.requestIdentifier(reasonCode: reasonCode, reason: reason, original: original)
        var asked = days
        if let own = try database.queryFirst("SELECT * FROM renewal_extensions WHERE request_identifier = ?", [.text(identifier)]) {
            let outcome = own.string("outcome") ?? ""
            if outcome == "extended" {
                return (.alreadyExtended(to: own.date("effective_date"), by: own.string("operator") ?? "?", at: own.date("requested_at")), days)
            }
            if outcome.hasPrefix("refused") {
                return (.refused(String(outcome.dropFirst("refused: ".count)) + " (when this goodwill asked on \(own.date("requested_at").map(SubscriptionStory.utcDay) ?? "?"))"), days)
            }
            asked = Int(own.int("days") ?? Int64(days))
        }
        do {
            let plan = try planRenewalExtension(original: original, days: asked, reasonCode: reasonCode)
            guard plan.customerId == customer else { return (.skipped("belongs to \(plan.customerId) now"), asked) }
            if plan.isRetry, plan.requestIdentifier != identifier {
                return (.skipped("an earlier extension (request \(plan.requestIdentifier)) awaits Apple's answer: `receiptdesk subscription extend \(original) --days \(asked)` retries it"), asked)
            }
            return (.willExtend(expires: plan.currentExpiry, retry: plan.isRetry), asked)
        } catch let error as StoreError where [.invalidRequest, .invalidInput, .notFound].contains(error.code) {
            return (.skipped(Self.withoutSubject(error.reason, original)), asked)
        }
    }

    /// A refusal of the single extension as a goodwill line says it (the line names the
    /// subscription already): "subscription 2000… is in billing grace period since …" → "in
    /// billing grace period since …".
    static func withoutSubject(_ reason: String, _ original: String) -> String {
        let subject = "subscription \(original) "
        guard reason.hasPrefix(subject) else { return reason }
        let rest = reason.dropFirst(subject.count)
        return String(rest.hasPrefix("is ") ? rest.dropFirst(3) : rest)
    }

    /// Decides one subscription of a goodwill again under its customer's lock and, when it is
    /// still to be extended, stores its request pending (before Apple is asked, so a lost answer
    /// is retried with the same identifier). Returns the plan to ask Apple with, or the outcome
    /// that settles it without asking. Call it holding the subscription's `InFlightClaim`.
    func reserveGoodwillExtension(_ line: RenewalExtensionBatch.Line, _ batch: RenewalExtensionBatch,
                                  operatorName: String) throws -> Result<RenewalExtensionPlan, GoodwillSettled> {
        guard let original = line.originalTransactionId else { return .failure(GoodwillSettled(outcome: line.outcome)) }
        let now = clock()
        return try database.writeTransaction { () throws -> Result<RenewalExtensionPlan, GoodwillSettled> in
            try database.lockCustomer(line.customerId)
            let (outcome, days) = try goodwillDecision(customer: line.customerId, original: original, days: batch.days,
                                                       reasonCode: batch.reasonCode, reason: batch.reason)
            guard case .willExtend(_, let retry) = outcome else { return .failure(GoodwillSettled(outcome: outcome)) }
            let fresh = try planRenewalExtension(original: original, days: days, reasonCode: batch.reasonCode)
            let identifier = try RenewalExtensionBatch.requestIdentifier(reasonCode: batch.reasonCode, reason: batch.reason, original: original)
            let plan = RenewalExtensionPlan(originalTransactionId: fresh.originalTransactionId, customerId: fresh.customerId,
                                            productId: fresh.productId, environment: fresh.environment, days: days,
                                            reasonCode: batch.reasonCode, currentExpiry: fresh.currentExpiry,
                                            expectedExpiry: fresh.expectedExpiry, extensionsThisYear: fresh.extensionsThisYear,
                                            requestIdentifier: identifier, isRetry: retry)
            if !retry {
                try database.executeChangingOne("""
                    INSERT INTO renewal_extensions (request_identifier, original_transaction_id, customer_id, days, reason_code, requested_at,
                                                    operator, reason, outcome)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending')
                    ON CONFLICT (request_identifier) DO NOTHING
                    """, [.text(identifier), .text(original), .text(line.customerId), .integer(Int64(days)),
                          .integer(Int64(batch.reasonCode.rawValue)), .date(now), .text(operatorName), .text(batch.reason)],
                    raced: StoreError(.alreadyExists, "extension request \(identifier) of \(original) was stored by another operator meanwhile: nothing was asked of Apple"))
            }
            return .success(plan)
        }
    }

    /// One audit entry for a goodwill's run: who got what, who was refused, who was left out and why.
    func auditGoodwillBatch(_ batch: RenewalExtensionBatch, operatorName: String) throws {
        let now = clock()
        func list(_ keep: (RenewalExtensionBatch.Outcome) -> String?) -> JSONValue {
            .array(batch.lines.compactMap { line in
                keep(line.outcome).map { .string("\(line.originalTransactionId ?? line.customerId)\($0.isEmpty ? "" : ": " + $0)") }
            })
        }
        try database.writeTransaction {
            try audit(now, operatorName, "apple-extend-batch", "batch:\(batch.batchId)", .object([
                ("days", .int(Int64(batch.days))), ("reasonCode", .int(Int64(batch.reasonCode.rawValue))), ("reason", .string(batch.reason)),
                ("extended", list { if case .extended(let to) = $0 { return to.map(StoreDates.format) ?? "" } else { return nil } }),
                ("alreadyExtended", list { if case .alreadyExtended = $0 { return "" } else { return nil } }),
                ("refused", list { if case .refused(let why) = $0 { return why } else { return nil } }),
                ("failed", list { if case .failed(let why) = $0 { return why } else { return nil } }),
                ("skipped", list { if case .skipped(let why) = $0 { return why } else { return nil } }),
            ]))
        }
    }
}

/// A goodwill subscription settled without asking Apple (already extended, refused before, skipped).
public struct GoodwillSettled: Error, Sendable {
    public let outcome: RenewalExtensionBatch.Outcome
}
