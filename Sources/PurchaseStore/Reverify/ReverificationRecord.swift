import Foundation
import AppStoreAPI
import ReceiptCore

extension PurchaseLedger {
    /// Records one re-verification in one write transaction: every attempt, what Apple knows that
    /// the stored receipt does not (applied once), the environment Apple reported, recomputed
    /// entitlements and an audit entry. Re-running it applies nothing twice.
    func recordReverification(receiptId: Int64, customerId: String?, attempts: [AppStoreAttempt], appleEnvironment: Environment?,
                              applePurchases: [Purchase]?, outcome: ReverifyReport.Outcome, summary: String,
                              comparison: AnswerComparison?, appleVerdict: String? = nil, contradiction: String? = nil,
                              rawAnswer: String? = nil, operatorName: String) throws -> [AppleChange] {
        let now = clock()
        return try database.writeTransaction {
            for attempt in attempts {
                var httpStatus: Int64?
                var status: String
                switch attempt.result {
                case .status(let code): status = String(code)
                case .http(let code, let apiError):
                    httpStatus = Int64(code)
                    status = apiError.map { String($0.rawValue) } ?? "HTTP \(code)"
                case .transport(let code, _): status = code.rawValue
                }
                try database.execute("""
                    INSERT INTO verification_attempts (receipt_id, endpoint, environment, status, http_status, retries, latency_ms,
                                                       outcome, detail, attempted_at, operator)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [.integer(receiptId), .text(attempt.endpoint), .text(attempt.environment.rawValue), .text(status),
                          .integer(httpStatus), .integer(Int64(attempt.retry)), .integer(attempt.latencyMilliseconds),
                          .text(attempt.outcome.description), .text(attempt.result.description), .date(now), .text(operatorName)])
            }
            var changes: [AppleChange] = []
            if let applePurchases, let appleEnvironment {
                let facts = IncomingTransaction.from(applePurchases, environment: appleEnvironment).transactions
                changes = try applyAppleFacts(facts, customerHint: customerId, receiptId: receiptId, now: now)
                try database.execute("UPDATE receipts SET apple_environment = ?, last_verified_at = ? WHERE receipt_id = ?",
                                     [.text(appleEnvironment.rawValue), .date(now), .integer(receiptId)])
            }
            if let appleVerdict {
                try database.execute("UPDATE receipts SET apple_verdict = ?, apple_contradiction = ?, last_verified_at = ? WHERE receipt_id = ?",
                                     [.text(appleVerdict), .text(contradiction), .date(now), .integer(receiptId)])
            }
            for customer in Set(changes.map(\.customerId) + (customerId.map { [$0] } ?? [])).sorted() {
                try refreshEntitlements(customer, now: now)
            }
            // Kept with the receipt, so every operator sees what Apple said, not only this console.
            let differences = JSONValue.array((comparison?.lines ?? []).map { .string($0) }).serialized()
            let applied = JSONValue.array(changes.map { .string("\($0.kind.rawValue) \($0.transactionId): \($0.detail)") }).serialized()
            try database.execute("""
                INSERT INTO reverifications (receipt_id, verified_at, operator, outcome, summary, apple_environment, differences, applied,
                                             raw_answer)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.integer(receiptId), .date(now), .text(operatorName), .text(outcome.rawValue), .text(summary),
                      .text(appleEnvironment?.rawValue), .text(differences), .text(applied), .text(rawAnswer)])
            try audit(now, operatorName, "reverify", "receipt:\(receiptId)", .object([
                ("customer", .string(customerId)), ("outcome", .string(outcome.rawValue)), ("summary", .string(summary)),
                ("appleEnvironment", .string(appleEnvironment?.rawValue)), ("attempts", .int(Int64(attempts.count))),
                ("appleVerdict", .string(appleVerdict)), ("contradiction", .string(contradiction)),
                ("differences", .array((comparison?.lines ?? []).map { .string($0) })),
                ("changes", .array(changes.map { .object([("kind", .string($0.kind.rawValue)), ("transactionId", .string($0.transactionId)),
                                                          ("detail", .string($0.detail))]) })),
            ]))
            return changes
        }
    }

    /// The receipt ids a re-verification batch covers (not those whose bytes were erased with
    /// their customer's personal data: there is nothing left to ask Apple about).
    public func receiptIds(customer: String?) throws -> [Int64] {
        if let customer {
            try requireCustomer(customer)
            return try database.query("SELECT receipt_id FROM receipts WHERE customer_id = ? AND erased_at IS NULL ORDER BY receipt_id", [.text(customer)])
                .compactMap { $0.int("receipt_id") }
        }
        return try database.query("SELECT receipt_id FROM receipts WHERE erased_at IS NULL ORDER BY receipt_id", []).compactMap { $0.int("receipt_id") }
    }
}
