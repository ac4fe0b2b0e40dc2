import Foundation
import PurchaseStore
import ReceiptCore

/// Builds the preview of a request to Apple from the ledger's plan (`lines`), which checks it
/// first: a request Apple's rules forbid (a third extension this year, 91 days, an expired
/// subscription, a token of another customer's order, no consent) is refused here in the
/// ledger's one line, before anything is asked.
enum ApplePreview {
    static func prepare(_ request: AppleRequest, ledger: PurchaseLedger, now: Date) throws -> (Confirmation, ApplePlan) {
        let change = PendingChange.apple(request)
        switch request {
        case .extend(_, let original, let days, let code, let reason):
            let plan = try ledger.planRenewalExtension(original: original, days: days, reasonCodeNumber: code)
            return (Confirmation(change: change, title: "Extend at Apple: preview",
                                 lines: styled(plan.lines) + tail(reason, writes: "asks Apple (Extend a Subscription Renewal Date), reads the new state back; audit entry \"apple-extend\"")),
                    .extend(plan))
        case .setToken(let original, let token, let reason):
            let plan = try ledger.planAppAccountToken(original: original, token: token)
            return (Confirmation(change: change, title: "Set app account token: preview",
                                 lines: styled(plan.lines) + tail(reason, writes: "every transaction of \(plan.originalTransactionId) carries the token; audit entry \"apple-set-token\"")),
                    .token(plan))
        case .massExtend(let product, let days, let code, let environment, let storefronts, let reason):
            let plan = try ledger.planMassExtension(productId: product, days: days, reasonCodeNumber: code, storefronts: storefronts,
                                                    environment: environment)
            return (Confirmation(change: change, title: "Mass extension: preview",
                                 lines: styled(plan.lines) + tail(reason, writes: "the request before Apple is asked, then its progress as polled; audit entry \"apple-mass-extend\"")),
                    .mass(plan))
        case .consumption(let requestId, let choices, let reason):
            let draft = AppleForms.applying(choices, to: try ledger.consumptionDraft(requestId))
            guard draft.request.status == .open else {
                throw ConsoleFailure("refund request #\(requestId) is \(draft.request.status.rawValue), not open: nothing to send")
            }
            try draft.check()
            let timing = draft.request.timing(at: now)
            var lines = styled(draft.lines)
            lines.insert([Span("  "), Span(timing + " (deadline \(ConsoleFormat.dateTimeZoned(draft.request.deadline)))",
                                           draft.request.isOverdue(at: now) ? CellStyle(.danger, bold: true) : CellStyle(.warning))], at: 1)
            return (Confirmation(change: change, title: "Send consumption information: review",
                                 lines: lines + tail(reason, writes: "sent to Apple (Send Consumption Information); the request marked sent; audit entry \"apple-consumption\"")),
                    .consumption(draft))
        case .lookUpOrder(let customer, let orderId):
            guard try ledger.customerExists(customer) else { throw ConsoleFailure("no customer \(customer)") }
            return (Confirmation(change: change, title: "Look up order: preview", lines: styled([
                "Ask Apple for order \(orderId) (Look Up Order ID)",
                "its transactions are verified and imported for customer \(customer); ones another customer owns open a conflict",
                "the order id is kept, so a search for it finds them",
            ]) + tail(nil, writes: "receipts and transactions, entitlements recomputed; audit entries \"import\"")), .none)
        case .fetchNotifications(let start, let end, let environment):
            return (Confirmation(change: change, title: "Notification history: preview", lines: styled([
                "Fetch what Apple sent (\(environment.rawValue.lowercased())) from \(ConsoleFormat.dateTimeZoned(start)) to \(ConsoleFormat.dateTimeZoned(end))",
                "each notification is verified and applied once (by its notificationUUID); the pages read so far are kept, so an interrupted fetch resumes",
            ]) + tail(nil, writes: "what the notifications say; audit entry \"apple-notification-history\"")), .none)
        case .testNotification(let environment):
            return (Confirmation(change: change, title: "Test notification: preview", lines: styled([
                "Ask Apple (\(environment.rawValue.lowercased())) to send a TEST notification to the server URL configured at Apple",
                "then read how it was delivered",
            ]) + tail(nil, writes: "the test notification's token; audit entry")), .none)
        case .offer(let customer, let product, let offer, let transaction, let reason):
            let plan = try ledger.planOfferSignature(customerId: customer, productId: product, offerIdentifier: offer, transactionId: transaction)
            return (Confirmation(change: change, title: "Sign an offer: preview",
                                 lines: styled(plan.lines) + tail(reason, writes: "one audit entry \"apple-offer-signature\": what was offered, to whom, why, and the token's SHA-256 (never the token)")),
                    .offer(plan))
        case .extendBatch:
            return try GoodwillAtApple.prepare(request, ledger: ledger, now: now)
        case .refresh, .history:
            return (Confirmation(change: change, title: request.name, lines: []), .none)
        }
    }

    /// The plan's lines: the first bold, the rest indented.
    static func styled(_ texts: [String]) -> [StyledLine] {
        texts.enumerated().map { index, text in index == 0 ? [Span(text, .bold)] : [Span("  " + text)] }
    }

    static func tail(_ reason: String?, writes: String) -> [StyledLine] {
        var lines: [StyledLine] = []
        if let reason { lines.append([Span("  reason: ", .muted), Span("\"\(reason)\"")]) }
        return lines + [[], [Span("Writes: ", .muted), Span(writes)]]
    }
}
