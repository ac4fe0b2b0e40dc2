import AppStoreAPI
import Foundation
import ReceiptCore

/// Acting at Apple for the support team, through the App Store Server API, each action recorded
/// and audited in the ledger. The command line and the console call these; nothing else in
/// PurchaseStore's callers talks to Apple for them.
///
/// Order of writes: what must survive a lost answer is written before Apple is asked (an
/// extension's request identifier), Apple's answer after; a refusal is recorded and thrown.
public struct AppleActions: Sendable {
    public let ledger: LedgerLock
    public let client: AppStoreServerAPIClient

    public init(ledger: LedgerLock, client: AppStoreServerAPIClient) {
        self.ledger = ledger
        self.client = client
    }

    // MARK: Subscription state

    /// Asks Get All Subscription Statuses for each of the customer's Apple environments and
    /// applies the verified answer. Problems of one environment are reported, not thrown, when
    /// another answered.
    public func refreshSubscriptions(customerId: String, operatorName: String) async throws -> (states: [SubscriptionState], changes: [AppleChange], problems: [String]) {
        let anchors = try ledger.run { try $0.subscriptionAnchors(of: customerId) }
        guard !anchors.isEmpty else {
            throw StoreError(.notFound, "customer \(customerId) has no auto-renewable subscription in the ledger to ask Apple about")
        }
        var changes: [AppleChange] = [], problems: [String] = []
        var states: [SubscriptionState] = []
        var answered = false
        for anchor in anchors {
            do {
                let answer = try await client.subscriptionStatuses(anchor.transactionId, environment: anchor.environment)
                let result = try ledger.run { try $0.applySubscriptionStatuses(answer, customerId: customerId, operatorName: operatorName) }
                states = result.states
                changes += result.changes
                problems += answer.rejected.map { "not believed: \($0)" }
                answered = true
            } catch let error as AppStoreError {
                if anchors.count == 1 { throw error }
                problems.append("\(anchor.environment.rawValue): \(error.reason)")
            }
        }
        if !answered, let first = problems.first { throw StoreError(.notVerified, first) }
        return (states, changes, problems)
    }

    // MARK: Extensions

    /// Extends one subscription as planned (`PurchaseLedger.planRenewalExtension`), then reads its
    /// state back from Apple (signed) so the ledger shows the new expiry. Exactly once: the
    /// subscription is held while Apple is asked (a second operator's extension of it is refused,
    /// `InFlightClaim`), and the request identifier is reserved against the ledger as it is now
    /// (`reserveRenewalExtension`: a preview overtaken by another extension asks nothing).
    public func extendRenewal(_ plan: RenewalExtensionPlan, reason: String, operatorName: String) async throws -> RenewalExtensionOutcome {
        let claim = try ledger.run { try $0.holdInFlight("extend:\(plan.originalTransactionId)", "an extension of subscription \(plan.originalTransactionId)") }
        defer { ledger.run { _ in claim.finish() } }
        try ledger.run { try $0.reserveRenewalExtension(plan, reason: reason, operatorName: operatorName) }
        let answer: RenewalExtensionAnswer
        do {
            answer = try await client.extendRenewalDate(originalTransactionId: plan.originalTransactionId, days: plan.days,
                                                        reason: plan.reasonCode, requestIdentifier: plan.requestIdentifier,
                                                        environment: plan.environment)
        } catch let error as AppStoreError where error.apiError != nil && !error.isTemporary {
            try ledger.run { try $0.recordExtensionAnswer(plan, effectiveDate: nil, refusal: error.apiError?.description ?? error.reason,
                                                          reason: reason, operatorName: operatorName, attempts: error.attempts.count) }
            throw error
        }
        guard answer.success else {
            try ledger.run { try $0.recordExtensionAnswer(plan, effectiveDate: nil, refusal: "Apple answered success: false", reason: reason,
                                                          operatorName: operatorName, attempts: answer.attempts.count) }
            throw StoreError(.notVerified, "Apple did not extend \(plan.originalTransactionId) (success: false)")
        }
        try ledger.run { try $0.recordExtensionAnswer(plan, effectiveDate: answer.effectiveDate, refusal: nil, reason: reason,
                                                      operatorName: operatorName, attempts: answer.attempts.count) }
        let (state, problem) = await readBack(plan, operatorName: operatorName)
        return RenewalExtensionOutcome(plan: plan, effectiveDate: answer.effectiveDate, state: state, refreshProblem: problem)
    }

    /// Asks Apple to extend every eligible subscriber of a product; returns the stored request.
    /// One at a time per product and environment (`InFlightClaim`), and never over a newer
    /// request than the plan saw.
    public func massExtend(_ plan: MassExtensionPlan, reason: String, operatorName: String) async throws -> MassExtensionRecord {
        let claim = try ledger.run { try $0.holdInFlight("mass-extend:\(plan.environment.rawValue):\(plan.productId)",
                                                         "a mass extension of \(plan.productId)") }
        defer { ledger.run { _ in claim.finish() } }
        try ledger.run { try $0.recordMassExtensionRequested(plan, reason: reason, operatorName: operatorName) }
        do {
            _ = try await client.massExtendRenewalDate(productId: plan.productId, days: plan.days, reason: plan.reasonCode,
                                                       requestIdentifier: plan.requestIdentifier,
                                                       storefrontCountryCodes: plan.storefronts, environment: plan.environment)
        } catch let error as AppStoreError where error.apiError != nil && !error.isTemporary {
            try ledger.run { try $0.recordMassExtensionRefused(plan.requestIdentifier, why: error.apiError?.description ?? error.reason,
                                                               operatorName: operatorName) }
            throw error
        }
        guard let record = try ledger.run({ try $0.massExtension(plan.requestIdentifier) }) else {
            throw StoreError(.sql, "the mass extension just stored is not there")
        }
        return record
    }

    /// Polls a mass extension until Apple says it is complete (at most `maxPolls` times,
    /// `interval` apart), reporting each answer to `progress`.
    public func pollMassExtension(_ requestIdentifier: String, operatorName: String, interval: Duration = .seconds(5), maxPolls: Int = 120,
                                  progress: @Sendable (MassExtensionRecord) -> Void = { _ in }) async throws -> MassExtensionRecord {
        guard let stored = try ledger.run({ try $0.massExtension(requestIdentifier) }) else {
            throw StoreError(.notFound, "mass extension \(requestIdentifier) is not in the ledger: `receiptdesk subscription mass-status` lists them")
        }
        let environment: Environment = stored.environment == Environment.sandbox.rawValue ? .sandbox : .production
        var record = stored
        for poll in 0..<max(1, maxPolls) {
            if poll > 0 { try await Task.sleep(for: interval) }
            let status = try await client.massExtensionStatus(productId: stored.productId, requestIdentifier: stored.requestIdentifier,
                                                              environment: environment)
            record = try ledger.run { try $0.recordMassExtensionStatus(status, operatorName: operatorName) }
            progress(record)
            if status.complete { return record }
        }
        return record
    }

    // MARK: Refund requests

    /// Sends consumption information for an open refund request, then marks it sent (audited).
    /// One operator at a time per request (`InFlightClaim`); a request answered meanwhile is not sent again.
    public func sendConsumption(requestId: Int64, _ information: ConsumptionInformation, reason: String, operatorName: String) async throws -> RefundRequest {
        let claim = try ledger.run { try $0.holdInFlight("consumption:\(requestId)", "consumption information for refund request #\(requestId)") }
        defer { ledger.run { _ in claim.finish() } }
        let request = try ledger.run { try $0.refundRequest(requestId) }
        guard request.status == .open else {
            throw StoreError(.invalidInput, "refund request #\(requestId) is \(request.status.rawValue), not open: nothing to send")
        }
        try Validate.reason(reason)
        let environment: Environment = request.environment == Environment.sandbox.rawValue ? .sandbox : .production
        let attempts = try await client.sendConsumptionInformation(transactionId: request.transactionId, information, environment: environment)
        try ledger.run { ledger in
            try ledger.markConsumptionSent(request, information, reason: reason, operatorName: operatorName, attempts: attempts, now: ledger.clock())
        }
        return try ledger.run { try $0.refundRequest(requestId) }
    }

    // MARK: Notifications

    /// Fetches what Apple sent over a period, page by page, applying each notification once per
    /// notificationUUID; the paging token is stored after every page, so running it again for the
    /// same period resumes an interrupted fetch. `openEnded` (the period ends now): an unfinished
    /// fetch from the same start is resumed over its own period. One fetch of a period at a time
    /// (`InFlightClaim`).
    public func fetchNotificationHistory(start: Date, end: Date, openEnded: Bool = false, environment: Environment, operatorName: String,
                                         progress: @Sendable (NotificationFetch) -> Void = { _ in }) async throws -> (fetch: NotificationFetch, problems: [String]) {
        let claim = try ledger.run { try $0.holdInFlight("notification-history:\(environment.rawValue):\(StoreDates.format(start))",
                                                         "a notification history fetch from \(StoreDates.format(start))") }
        defer { ledger.run { _ in claim.finish() } }
        var fetch = try ledger.run { try $0.beginNotificationFetch(start: start, end: end, openEnded: openEnded, environment: environment,
                                                                   operatorName: operatorName) }
        let query = NotificationHistoryQuery(startDate: fetch.startDate, endDate: fetch.endDate)
        var problems: [String] = []
        var token = fetch.nextToken
        repeat {
            let page = try await client.notificationHistory(query, paginationToken: token, environment: environment)
            var applied = 0
            for item in page.items {
                do {
                    let result = try ledger.run { try $0.applyNotification(Array(item.signedPayload.utf8), operatorName: operatorName) }
                    if result.applied { applied += 1 }
                } catch {
                    problems.append("a notification in the history was not applied: \(error)")
                }
            }
            token = page.paginationToken
            fetch = try ledger.run { try $0.recordNotificationPage(fetch.fetchId, nextToken: token, seen: page.items.count, applied: applied,
                                                                   operatorName: operatorName) }
            progress(fetch)
        } while token != nil
        return (fetch, problems)
    }

    /// Asks Apple for a TEST notification; returns its token (stored, audited).
    public func requestTestNotification(environment: Environment, operatorName: String) async throws -> String {
        let (token, _) = try await client.requestTestNotification(environment: environment)
        try ledger.run { try $0.recordTestNotification(token: token, environment: environment, operatorName: operatorName) }
        return token
    }

    /// How the test notification `token` was delivered.
    public func testNotificationStatus(token: String, environment: Environment) async throws -> TestNotificationStatus {
        let status = try await client.testNotificationStatus(token: token, environment: environment)
        try ledger.run { try $0.recordTestNotificationResult(token: token, result: status.lastResult) }
        return status
    }

    // MARK: Tokens

    /// Sets the app account token at Apple, then in the ledger (audited).
    /// One operator at a time per purchase (`InFlightClaim`); a plan overtaken by another token
    /// change is refused before Apple is asked.
    public func setAppAccountToken(_ plan: AppAccountTokenPlan, reason: String, operatorName: String) async throws {
        try Validate.reason(reason)
        try Validate.operatorName(operatorName)
        let claim = try ledger.run { try $0.holdInFlight("token:\(plan.originalTransactionId)", "an app account token for \(plan.originalTransactionId)") }
        defer { ledger.run { _ in claim.finish() } }
        try ledger.run { try $0.checkAppAccountTokenPlan(plan) }
        let attempts = try await client.setAppAccountToken(originalTransactionId: plan.originalTransactionId, token: plan.token,
                                                           environment: plan.environment)
        try ledger.run { try $0.recordAppAccountToken(plan, reason: reason, operatorName: operatorName, attempts: attempts.count) }
    }

    // MARK: Finishing

    /// Tells Apple a delivered transaction is finished (Finish Transaction), then records when
    /// and by whom (audited "apple-finish-transaction"). Exactly once: the transaction is held
    /// while Apple is asked (a second operator finishing it at that moment is refused,
    /// `InFlightClaim`), and the ledger is read after the hold is taken, so a transaction finished
    /// before is answered from the ledger without asking Apple again. Refuses, before Apple is
    /// asked, what is not delivered (`PurchaseLedger.planTransactionFinish`).
    public func finishTransaction(_ transactionId: String, reason: String, operatorName: String) async throws -> TransactionFinishOutcome {
        try Validate.reason(reason)
        try Validate.operatorName(operatorName)
        let claim = try ledger.run { try $0.holdInFlight("finish:\(transactionId)", "finishing transaction \(transactionId)") }
        defer { ledger.run { _ in claim.finish() } }
        let plan = try ledger.run { try $0.planTransactionFinish(transactionId) }
        if let finished = plan.finished { return .alreadyFinished(finished) }
        let attempts = try await client.finishTransaction(transactionId: plan.transactionId, environment: plan.environment)
        return try ledger.run { try $0.recordTransactionFinished(plan, reason: reason, operatorName: operatorName, attempts: attempts.count) }
    }

    // MARK: Offers

    /// Signs a promotional or win-back offer (Apple's version 2 signature) for a customer to
    /// redeem in the app, and audits what was offered, to whom and why (the token itself is
    /// returned once and never stored: the audit keeps its SHA-256). `transactionId` defaults to
    /// the customer's latest original transaction of the product, when the ledger has one.
    public func signOffer(customerId: String, productId: String, offerIdentifier: String, transactionId: String?,
                          reason: String, operatorName: String) throws -> PromotionalOfferSignature {
        try Validate.reason(reason)
        try Validate.operatorName(operatorName)
        return try ledger.run { ledger in
            let plan = try ledger.planOfferSignature(customerId: customerId, productId: productId, offerIdentifier: offerIdentifier,
                                                     transactionId: transactionId)
            let signature = try PromotionalOfferSignature.sign(client.token.credentials, productId: plan.productId, offerIdentifier: plan.offerIdentifier,
                                                               transactionId: plan.transactionId, now: ledger.clock())
            try ledger.recordOfferSignature(signature, customerId: customerId, reason: reason, operatorName: operatorName)
            return signature
        }
    }
}
