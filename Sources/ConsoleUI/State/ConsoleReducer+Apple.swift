import Foundation
import PurchaseStore
import ReceiptCore

/// The actions at Apple: which customer, subscription or transaction each applies to, and what
/// the screen shows while Apple works and when it answered.
extension ConsoleReducer {
    static func runApple(_ state: inout ConsoleState, _ command: Command) -> [ConsoleEffect] {
        if let job = state.appleJob, command != .refunds {
            state.message = StatusMessage(text: "\(job.label) is still running at Apple: wait for its answer", kind: .error)
            return []
        }
        func refuse(_ text: String) -> [ConsoleEffect] {
            state.message = StatusMessage(text: text, kind: .error)
            return []
        }
        switch command {
        case .appleStatus:
            guard let customer = state.selectedCustomer else { return refuse("apple-status: select a customer (or something of theirs) first") }
            return [.apply(.apple(.refresh(customer: customer)))]
        case .extend:
            guard let customer = state.selectedCustomer else { return refuse("extend: select a customer (or something of theirs) first") }
            return [.prepareForm(.extend, customer: customer)]
        case .setToken:
            guard let id = selectedTransaction(state, original: true) else {
                return refuse("set-token: select a transaction (or a subscription in the customer view) first")
            }
            state.mode = .form(AppleForms.tokenForm(original: id))
            return []
        case .history:
            guard let id = selectedTransaction(state, original: false) else {
                return refuse("history: select a transaction (or a subscription in the customer view) first")
            }
            return [.apply(.apple(.history(transactionId: id)))]
        case .lookupOrder:
            guard let customer = state.selectedCustomer else { return refuse("lookup-order: select a customer first: the order's transactions are imported for them") }
            state.mode = .form(AppleForms.lookUpForm(customer: customer))
            return []
        case .massExtend:
            guard let form = AppleForms.massExtendForm(products: state.subscriptionProducts) else {
                return refuse("mass-extend: the catalogue has no auto-renewable product")
            }
            state.mode = .form(form)
            return []
        case .notifications:
            state.mode = .form(AppleForms.notificationsForm())
            return []
        case .refunds:
            state.mode = .refunds(RefundQueueState())
            return [.loadRefunds(all: false)]
        case .offer:
            guard let customer = state.selectedCustomer else { return refuse("offer: select a customer (or something of theirs) first") }
            return [.prepareForm(.offer, customer: customer)]
        default:
            return []
        }
    }

    /// The transaction an action applies to: the open transaction (its original when asked),
    /// the selected row of the Transactions tab, or the transaction or subscription line under
    /// the cursor in the customer view.
    static func selectedTransaction(_ state: ConsoleState, original: Bool) -> String? {
        if case .transaction(let t) = state.detail.model, state.detail.target == .transaction(t.record.transactionId) {
            return original ? t.record.originalTransactionId ?? t.record.transactionId : t.record.transactionId
        }
        if state.focus == .detail, case .customer = state.detail.model {
            let lines = DetailLines.build(state)
            if lines.indices.contains(state.detail.cursor), case .open(.transaction(let id))? = lines[state.detail.cursor].action { return id }
        }
        if case .transaction(_, let t)? = state.list.selectedRow {
            return original ? t.record.originalTransactionId ?? t.record.transactionId : t.record.transactionId
        }
        return nil
    }

    /// Apple's progress and answers.
    static func reduceApple(_ state: inout ConsoleState, _ action: ConsoleAction) -> [ConsoleEffect] {
        switch action {
        case .refundsLoaded(let requests, let all):
            RefundQueueLogic.loaded(&state, requests, all: all)
            return []
        case .appleStarted(let request):
            state.appleJob = AppleJobState(label: request.label, startedTick: state.tick)
            if case .confirm = state.mode { state.mode = .browse }
            state.message = StatusMessage(text: "\(request.label) with \(state.header.appleLabel)… (the console stays usable)", kind: .info)
            return []
        case .appleProgress(let text):
            state.appleJob?.progress = text
            state.message = StatusMessage(text: text, kind: .info)
            return []
        case .appleFinished(let outcome):
            state.appleJob = nil
            state.message = outcome.message
            if case .extendBatch(_, let tagged, _, _, _) = outcome.request, !tagged.isEmpty { state.tags = [:] }  // what was tagged was acted on
            if let pager = outcome.pager {
                // A value shown once (an offer signature) cannot wait for another time: it replaces
                // whatever is open. Anything else is shown only over the browsing screen.
                if case .browse = state.mode { state.mode = .pager(pager) } else if pager.shownOnce { state.mode = .pager(pager) }
            }
            guard outcome.changed else { return [] }
            var effects = refreshAll(&state)
            if case .refunds(let queue) = state.mode { effects.append(.loadRefunds(all: queue.all)) }
            return effects
        default:
            return []
        }
    }
}
