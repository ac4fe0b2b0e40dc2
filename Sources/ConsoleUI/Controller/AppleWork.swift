import Foundation
import PurchaseStore
import ReceiptCore

/// How work at Apple ended, as the screen shows it: one line, maybe a text for the pager (a
/// transaction history), and whether the ledger changed (what is shown reloads).
struct AppleOutcome: Sendable {
    let request: AppleRequest
    let message: StatusMessage
    var pager: PagerState?
    var changed: Bool
}

/// What the operator confirmed: the ledger's plan shown in the preview, run as shown.
enum ApplePlan: Sendable {
    case none
    case extend(RenewalExtensionPlan)
    case token(AppAccountTokenPlan)
    case mass(MassExtensionPlan)
    case consumption(ConsumptionDraft)
    case offer(OfferSignaturePlan)
    /// Goodwill at Apple for many: the preview's lines, each extended as shown.
    case batch(RenewalExtensionBatch)
}

/// One request run at Apple through `AppleActions` (which records and audits it in the ledger),
/// on a task of its own: the screen's thread never waits for Apple.
struct AppleJob: Sendable {
    let actions: AppleActions
    let request: AppleRequest
    let plan: ApplePlan
    let operatorName: String
    /// How often and how many times a mass extension's progress is asked.
    let pollInterval: Duration
    let maxPolls: Int
    /// The zone dates in the message are written in.
    let zone: TimeZone

    func run(progress: @escaping @Sendable (String) -> Void) async -> AppleOutcome {
        await DisplayZone.$current.withValue(zone) {
            do {
                return try await perform(progress)
            } catch {
                // A refusal may have been recorded (an extension's outcome): what is shown reloads.
                return AppleOutcome(request: request, message: StatusMessage(text: "\(request.name) refused: \(Self.describe(error))", kind: .error),
                                    pager: nil, changed: true)
            }
        }
    }

    /// An error in one line: the ledger's reason, or Apple's.
    static func describe(_ error: Error) -> String {
        let text = ConsoleFailure(error).message
        return text.split(separator: "\n").first.map(String.init) ?? text
    }

    private func done(_ text: String, _ kind: StatusMessage.Kind = .success, pager: PagerState? = nil, changed: Bool = true) -> AppleOutcome {
        AppleOutcome(request: request, message: StatusMessage(text: text, kind: kind), pager: pager, changed: changed)
    }

    private func perform(_ progress: @escaping @Sendable (String) -> Void) async throws -> AppleOutcome {
        let ledger = actions.ledger
        switch request {
        case .refresh(let customer):
            let result = try await actions.refreshSubscriptions(customerId: customer, operatorName: operatorName)
            let states = result.states.map { "\($0.productId ?? $0.originalTransactionId) \($0.statusName)" }
            var text = "Apple's status of \(customer): " + (states.isEmpty ? "no subscription" : states.joined(separator: ", "))
            text += "; \(Plural.of(result.changes.count, "change")) applied"
            if let problem = result.problems.first { text += "; \(Plural.of(result.problems.count, "problem")): \(problem)" }
            return done(text, result.problems.isEmpty ? .success : .error)
        case .extend(_, let original, let days, let code, let reason):
            let plan: RenewalExtensionPlan
            if case .extend(let planned) = self.plan { plan = planned } else {
                plan = try ledger.run { try $0.planRenewalExtension(original: original, days: days, reasonCodeNumber: code) }
            }
            let outcome = try await actions.extendRenewal(plan, reason: reason, operatorName: operatorName)
            var text = "extended \(original) by \(Plural.of(plan.days, "day"))"
            if let date = outcome.effectiveDate { text += " at Apple on \(ConsoleFormat.date(date))" }
            if let state = outcome.state {
                text += "; now \(state.statusName), expires \(state.expiresDate.map(ConsoleFormat.date) ?? "?")"
            }
            if let problem = outcome.refreshProblem { return done(text + "; " + problem, .error) }
            return done(text)
        case .setToken(let original, let token, let reason):
            let plan: AppAccountTokenPlan
            if case .token(let planned) = self.plan { plan = planned } else {
                plan = try ledger.run { try $0.planAppAccountToken(original: original, token: token) }
            }
            try await actions.setAppAccountToken(plan, reason: reason, operatorName: operatorName)
            return done("set at Apple and in the ledger: \(plan.originalTransactionId) carries \(plan.token)")
        case .lookUpOrder(let customer, let orderId):
            let result = try await actions.lookUpOrder(orderId, customerId: customer, operatorName: operatorName)
            let new = result.imported.filter { $0.result.changedDatabase }.count
            var text = "Apple order \(orderId): \(result.imported.count) transaction\(result.imported.count == 1 ? "" : "s") for \(customer) (\(new) new)"
            if !result.rejected.isEmpty { text += "; \(result.rejected.count) not believed: \(result.rejected[0])" }
            return done(text, result.rejected.isEmpty ? .success : .error)
        case .history(let id):
            let history = try await actions.transactionHistory(id)
            let text = AppleHistoryText.text(history)
            let pager = PagerState(title: "Apple's transaction history around \(id)", text: text)
            return done("Apple's history around \(id): \(history.entries.count) transaction\(history.entries.count == 1 ? "" : "s") (verified)"
                        + (history.rejected.isEmpty ? "" : "; \(history.rejected.count) not believed"),
                        history.rejected.isEmpty ? .success : .error, pager: pager, changed: false)
        case .consumption(let requestId, let choices, let reason):
            let draft: ConsumptionDraft
            if case .consumption(let planned) = self.plan { draft = planned } else {
                draft = AppleForms.applying(choices, to: try ledger.run { try $0.consumptionDraft(requestId) })
            }
            try draft.check()
            let sent = try await actions.sendConsumption(requestId: requestId, draft.information, reason: reason, operatorName: operatorName)
            return done("sent to Apple: refund request #\(sent.requestId) is \(sent.status.rawValue)")
        case .massExtend(let product, let days, let code, let environment, let storefronts, let reason):
            let plan: MassExtensionPlan
            if case .mass(let planned) = self.plan { plan = planned } else {
                plan = try ledger.run {
                    try $0.planMassExtension(productId: product, days: days, reasonCodeNumber: code, storefronts: storefronts, environment: environment)
                }
            }
            let record = try await actions.massExtend(plan, reason: reason, operatorName: operatorName)
            progress("mass extension of \(product): \(record.progress)")
            let final = try await actions.pollMassExtension(record.requestIdentifier, operatorName: operatorName, interval: pollInterval,
                                                            maxPolls: maxPolls) { progress("mass extension of \(product): \($0.progress)") }
            return done("mass extension of \(product) by \(Plural.of(plan.days, "day")): \(final.progress)", final.status == "complete" ? .success : .info)
        case .fetchNotifications(let start, let end, let environment):
            let result = try await actions.fetchNotificationHistory(start: start, end: end, environment: environment, operatorName: operatorName) {
                progress("notification history: page \($0.pages), \($0.seen) read, \($0.applied) new")
            }
            var text = "notification history \(ConsoleFormat.date(start)) – \(ConsoleFormat.date(end)): \(result.fetch.seen) read, \(result.fetch.applied) new"
            if let problem = result.problems.first { text += "; \(Plural.of(result.problems.count, "problem")): \(problem)" }
            return done(text, result.problems.isEmpty ? .success : .error)
        case .offer(let customer, let product, let offer, let transaction, let reason):
            // As previewed: the plan's transaction (the default the ledger chose), not another one.
            var anchor = transaction
            if case .offer(let planned) = self.plan { anchor = planned.transactionId }
            let signature = try actions.signOffer(customerId: customer, productId: product, offerIdentifier: offer, transactionId: anchor,
                                                  reason: reason, operatorName: operatorName)
            // The token goes to the pager only: not in the message, never kept (the audit has its SHA-256).
            var pager = PagerState(title: "offer \(signature.offerIdentifier) of \(signature.productId) for \(customer): signed token", text: signature.compactJWS)
            pager.shownOnce = true
            return done("offer \(signature.offerIdentifier) of \(signature.productId) signed for \(customer): shown once in the pager (y copies it; it is not kept)",
                        pager: pager)
        case .extendBatch:
            return try await GoodwillAtApple.run(self)
        case .testNotification(let environment):
            let token = try await actions.requestTestNotification(environment: environment, operatorName: operatorName)
            progress("test notification \(token): asked, reading its delivery status…")
            let status = try await actions.testNotificationStatus(token: token, environment: environment)
            return done("test notification \(token): \(status.lastResult)", status.lastResult == "SUCCESS" ? .success : .info)
        }
    }
}

/// Apple's transaction history as the pager shows it: one transaction a line, with its owner.
enum AppleHistoryText {
    static func text(_ history: AppleHistory) -> String {
        var lines = ["Apple's transaction history around \(history.transactionId) (\(history.environment.rawValue.lowercased()), "
                     + "\(history.pages) page\(history.pages == 1 ? "" : "s"), every transaction verified)", ""]
        for entry in history.entries {
            var line = "\(entry.transactionId)  \(entry.productId ?? "?")  bought \(entry.purchaseDate.map(ConsoleFormat.dateTime) ?? "?")"
            if let expires = entry.expiresDate { line += "  expires \(ConsoleFormat.dateTime(expires))" }
            if let revoked = entry.revocationDate { line += "  REFUNDED \(ConsoleFormat.dateTime(revoked))" }
            if let price = entry.price { line += "  \(price)" }
            line += entry.owner.map { "  (ledger: \($0))" } ?? "  (not in the ledger)"
            lines.append(line)
        }
        if history.entries.isEmpty { lines.append("(no transaction)") }
        for rejected in history.rejected { lines.append("not believed: \(rejected)") }
        return lines.joined(separator: "\n")
    }
}

/// Progress and outcomes of work at Apple, crossing from its task to the screen's thread.
final class AppleInbox: @unchecked Sendable {
    // `progress` and `outcome` are only touched while `lock` is held.
    private let lock = NSLock()
    private var progress: [String] = []
    private var outcome: AppleOutcome?

    func report(_ text: String) {
        lock.lock()
        progress.append(text)
        lock.unlock()
    }

    func finish(_ result: AppleOutcome) {
        lock.lock()
        outcome = result
        lock.unlock()
    }

    func take() -> (progress: [String], outcome: AppleOutcome?) {
        lock.lock()
        defer { lock.unlock() }
        let taken = (progress, outcome)
        progress = []
        outcome = nil
        return taken
    }
}
