import Foundation
import PurchaseStore
import ReceiptCore

/// The controller's side of work at Apple: the plan the operator confirmed and the running task,
/// whose progress and outcome arrive through the inbox at a tick.
final class AppleDesk {
    let inbox = AppleInbox()
    var task: Task<Void, Never>?
    /// The request whose preview is on screen, with the ledger's plan it showed.
    var pending: (request: AppleRequest, plan: ApplePlan)?

    deinit { task?.cancel() }
}

extension ConsoleController {
    /// Runs the Apple effects; false when `effect` is not one.
    func runApple(_ effect: ConsoleEffect) -> Bool {
        let lock = environment.lock
        switch effect {
        case .preview(.apple(let request)):
            previewApple(request)
        case .apply(.apple(let request)):
            startApple(request)
        case .loadRefunds(let all):
            do {
                dispatch(.refundsLoaded(try lock.run { try $0.refundRequests(all: all) }, all: all))
            } catch {
                dispatch(.changeFailed("refund requests: \(ConsoleFailure(error).message)"))
            }
        case .openConsumption(let requestId):
            guard !environment.readOnly else { return refuse("read-only: sending consumption information is not available; nothing changed") }
            do {
                let draft = try lock.run { try $0.consumptionDraft(requestId) }
                dispatch(.formOpened(AppleForms.consumptionForm(draft)))
            } catch {
                dispatch(.changeFailed("refund request #\(requestId): \(ConsoleFailure(error).message)"))
            }
        case .prepareForm(.extend, let customer?):
            guard !environment.readOnly else { return refuse("read-only: nothing changes here") }
            do {
                let choices = try lock.run { try ExtendChoices.subscriptions(of: customer, ledger: $0) }
                if let form = AppleForms.extendForm(customer: customer, subscriptions: choices) {
                    dispatch(.formOpened(form))
                } else {
                    dispatch(.refused("\(customer) has no auto-renewable subscription to extend"))
                }
            } catch {
                dispatch(.refused(ConsoleFailure(error).message))
            }
        case .prepareForm(.offer, let customer?):
            guard !environment.readOnly else { return refuse("read-only: nothing changes here") }
            do {
                let choices = try lock.run { try OfferChoices.subscriptions(of: customer, ledger: $0) }
                if let form = AppleForms.offerForm(customer: customer, choices: choices) {
                    dispatch(.formOpened(form))
                } else {
                    dispatch(.refused("\(customer) has no auto-renewable subscription: an offer is signed for a subscription product"))
                }
            } catch {
                dispatch(.refused(ConsoleFailure(error).message))
            }
        default:
            return false
        }
        return true
    }

    private func refuse(_ text: String) -> Bool {
        dispatch(.refused(text))
        return true
    }

    private func previewApple(_ request: AppleRequest) {
        guard !environment.readOnly else { return dispatch(.refused("read-only: \(request.name) is not available; nothing changed")) }
        let now = state.now
        do {
            let (confirmation, plan) = try DisplayZone.$current.withValue(state.shownZone) {
                try environment.lock.run { try ApplePreview.prepare(request, ledger: $0, now: now) }
            }
            appleDesk.pending = (request, plan)
            dispatch(.previewReady(confirmation))
        } catch {
            dispatch(.refused("\(request.name) refused: \(AppleJob.describe(error))"))
        }
    }

    /// Starts `request` at Apple on a task of its own (one at a time).
    private func startApple(_ request: AppleRequest) {
        let plan = appleDesk.pending.flatMap { $0.request == request ? $0.plan : nil } ?? .none
        appleDesk.pending = nil
        if case .history = request {} else if environment.readOnly {
            return dispatch(.changeFailed("read-only: \(request.name) is not available; nothing changed"))
        }
        guard state.appleJob == nil, appleDesk.task == nil else {
            return dispatch(.changeFailed("\(request.name): \(state.appleJob?.label ?? "another request") is still running at Apple; nothing was asked"))
        }
        guard let actions = environment.appleActions else {
            return dispatch(.changeFailed("\(request.name) needs the App Store Server API: configure appStore.serverAPI (keyId, issuerId, privateKeyFile); nothing was asked"))
        }
        let job = AppleJob(actions: actions, request: request, plan: plan, operatorName: environment.operatorName,
                           pollInterval: environment.applePollInterval, maxPolls: environment.appleMaxPolls, zone: state.shownZone)
        let inbox = appleDesk.inbox
        dispatch(.appleStarted(request))
        appleDesk.task = Task.detached {
            let outcome = await job.run { inbox.report($0) }
            inbox.finish(outcome)
        }
    }

    /// Collects Apple's progress and outcome; returns whether anything arrived.
    func collectApple() -> Bool {
        let (progress, outcome) = appleDesk.inbox.take()
        if let last = progress.last { dispatch(.appleProgress(last)) }
        if let outcome {
            appleDesk.task = nil
            dispatch(.appleFinished(outcome))
        }
        return !progress.isEmpty || outcome != nil
    }
}

/// The customer's subscriptions an extension can choose from: Apple's states first, then
/// auto-renewable purchases Apple has not reported on.
enum ExtendChoices {
    static func subscriptions(of customer: String, ledger: PurchaseLedger) throws -> [(original: String, label: String)] {
        var out: [(String, String)] = []
        for state in try ledger.subscriptionStates(of: customer) {
            let expires = state.expiresDate.map { " · expires " + ConsoleFormat.date($0) } ?? ""
            out.append((state.originalTransactionId, "\(state.productId ?? "?") \(state.originalTransactionId) · \(state.statusName)\(expires)"))
        }
        let known = Set(out.map(\.0))
        let summary = try ledger.customerSummary(customer)
        for t in summary.transactions where t.productType == "auto-renewable" {
            let original = t.originalTransactionId ?? t.transactionId
            guard !known.contains(original), !out.contains(where: { $0.0 == original }) else { continue }
            out.append((original, "\(t.productId) \(original) · not reported by Apple yet"))
        }
        return out
    }
}

/// The customer's subscriptions an offer can be signed for: Apple's states first (with the
/// win-back offers Apple says they may redeem), then auto-renewable purchases Apple has not
/// reported on.
enum OfferChoices {
    static func subscriptions(of customer: String, ledger: PurchaseLedger) throws -> [OfferChoice] {
        var out: [OfferChoice] = []
        for state in try ledger.subscriptionStates(of: customer) {
            guard let product = state.productId else { continue }
            let winBack = state.eligibleWinBackOfferIds.isEmpty ? "" : " · win-back: " + state.eligibleWinBackOfferIds.joined(separator: " ")
            out.append(OfferChoice(productId: product, originalTransactionId: state.originalTransactionId,
                                   label: "\(product) · \(state.statusName)\(winBack) · original \(state.originalTransactionId)"))
        }
        for t in try ledger.customerSummary(customer).transactions.reversed() where t.productType == "auto-renewable" {
            let original = t.originalTransactionId ?? t.transactionId
            guard !out.contains(where: { $0.originalTransactionId == original }) else { continue }
            out.append(OfferChoice(productId: t.productId, originalTransactionId: original,
                                   label: "\(t.productId) · not reported by Apple yet · original \(original)"))
        }
        return out
    }
}
