import AppStoreAPI
import Foundation
import ReceiptCore

extension AppleActions {
    /// Extends at Apple every subscription a goodwill preview (`planRenewalExtensionBatch`) found,
    /// one at a time, each exactly as `extendRenewal` does one: held while Apple is asked
    /// (`InFlightClaim`, the same hold, so a single extension of it waits its turn too), decided
    /// again and its request stored pending under the customer's lock before Apple is asked, the
    /// answer recorded once per request identifier, the new state read back. The request
    /// identifier is the goodwill's own for that subscription, so a second run (or a second
    /// operator at the same moment) finds it and never asks for a second extension. A subscription
    /// held by another operator right now is tried again once at the end. Ends with one
    /// `apple-extend-batch` audit entry; returns what each line came to.
    public func extendBatch(_ preview: RenewalExtensionBatch, operatorName: String) async throws -> RenewalExtensionBatch {
        try Validate.operatorName(operatorName)
        try Validate.reason(preview.reason)
        var lines = preview.lines
        var held: [Int] = []
        for (index, line) in lines.enumerated() {
            guard case .willExtend = line.outcome else { continue }
            if let done = try await extendOne(line, preview, operatorName: operatorName) { lines[index] = done } else { held.append(index) }
        }
        for index in held {
            lines[index] = try await extendOne(lines[index], preview, operatorName: operatorName)
                ?? lines[index].with(.skipped("being asked of Apple by another operator right now: run it again to see what that came to"))
        }
        let batch = RenewalExtensionBatch(batchId: preview.batchId, days: preview.days, reasonCode: preview.reasonCode, reason: preview.reason,
                                          lines: lines, applied: true)
        try ledger.run { try $0.auditGoodwillBatch(batch, operatorName: operatorName) }
        return batch
    }

    /// One subscription of a goodwill; nil when another operator holds it now.
    private func extendOne(_ line: RenewalExtensionBatch.Line, _ batch: RenewalExtensionBatch,
                           operatorName: String) async throws -> RenewalExtensionBatch.Line? {
        guard let original = line.originalTransactionId else { return line }
        guard let claim = try ledger.run({ try InFlightClaim.take("extend:\(original)", on: $0.database) }) else { return nil }
        defer { ledger.run { _ in claim.finish() } }
        let plan: RenewalExtensionPlan
        do {
            switch try ledger.run({ try $0.reserveGoodwillExtension(line, batch, operatorName: operatorName) }) {
            case .success(let reserved): plan = reserved
            case .failure(let settled): return line.with(settled.outcome)
            }
        } catch let error as StoreError where error.code == .alreadyExists {
            return line.with(.skipped(error.reason))
        }
        let answer: RenewalExtensionAnswer
        do {
            answer = try await client.extendRenewalDate(originalTransactionId: original, days: plan.days, reason: plan.reasonCode,
                                                        requestIdentifier: plan.requestIdentifier, environment: plan.environment)
        } catch let error as AppStoreError where error.apiError != nil && !error.isTemporary {
            let refusal = error.apiError?.description ?? error.reason
            try ledger.run { try $0.recordExtensionAnswer(plan, effectiveDate: nil, refusal: refusal, reason: batch.reason,
                                                          operatorName: operatorName, attempts: error.attempts.count, batch: batch.batchId) }
            return line.with(.refused(refusal), days: plan.days)
        } catch {
            return line.with(.failed("no answer from Apple (\(error)): request \(plan.requestIdentifier) stays pending; run it again to retry it (Apple applies it once)"),
                             days: plan.days)
        }
        guard answer.success else {
            try ledger.run { try $0.recordExtensionAnswer(plan, effectiveDate: nil, refusal: "Apple answered success: false", reason: batch.reason,
                                                          operatorName: operatorName, attempts: answer.attempts.count, batch: batch.batchId) }
            return line.with(.refused("Apple answered success: false"), days: plan.days)
        }
        try ledger.run { try $0.recordExtensionAnswer(plan, effectiveDate: answer.effectiveDate, refusal: nil, reason: batch.reason,
                                                      operatorName: operatorName, attempts: answer.attempts.count, batch: batch.batchId) }
        let (_, problem) = await readBack(plan, operatorName: operatorName)
        return line.with(.extended(to: answer.effectiveDate), days: plan.days, note: problem)
    }

    /// Reads an extended subscription's state back from Apple (signed) into the ledger; the
    /// state, or why it could not be read.
    func readBack(_ plan: RenewalExtensionPlan, operatorName: String) async -> (SubscriptionState?, String?) {
        do {
            // The extended subscription itself: asked by its own id, so another subscription of
            // the customer (a monthly beside a yearly) is not the one read back.
            let statuses = try await client.subscriptionStatuses(plan.originalTransactionId, environment: plan.environment)
            let refreshed = try ledger.run { try $0.applySubscriptionStatuses(statuses, customerId: plan.customerId, operatorName: operatorName) }
            guard let state = refreshed.states.first(where: { $0.originalTransactionId == plan.originalTransactionId }) else {
                return (nil, "extended, but Apple's status answer does not hold subscription \(plan.originalTransactionId)")
            }
            return (state, nil)
        } catch {
            return (nil, "extended, but reading the new state back failed: \(error)")
        }
    }
}

extension RenewalExtensionBatch.Line {
    /// The same line with another outcome (and the days asked, and a note).
    func with(_ outcome: RenewalExtensionBatch.Outcome, days: Int? = nil, note: String? = nil) -> Self {
        .init(customerId: customerId, originalTransactionId: originalTransactionId, productId: productId, days: days ?? self.days,
              outcome: outcome, note: note)
    }
}
