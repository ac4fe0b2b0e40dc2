import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk transaction finish TX --reason TEXT [--dry-run] [--json]`: tells Apple a
/// delivered transaction is finished (Finish Transaction), then records when and by whom,
/// audited ("apple-finish-transaction"). What "delivered" means is the ledger's
/// (`PurchaseLedger.planTransactionFinish`, and the usage text); a transaction finished before
/// is answered "already finished at … by …" from the ledger without asking Apple again.
enum FinishCommand {
    static func finish(_ args: inout Arguments, _ options: StoreOptions) throws -> ExitStatus {
        let reason = try args.value("--reason")
        let dryRun = args.flag("--dry-run")
        guard let id = try args.finish(maxPositionals: 1).first else {
            throw CommandFailure.usage("transaction finish needs TRANSACTION_ID --reason TEXT")
        }
        guard dryRun || reason != nil else { throw CommandFailure.usage("transaction finish needs --reason TEXT (it is audited)") }
        let session = try AppleActionSession(options, command: "transaction finish", checking: [(id, "transaction id")])
        defer { session.close() }
        let plan = try session.ledger.planTransactionFinish(id)
        if let finished = plan.finished {
            report(plan, .alreadyFinished(finished), options)
            return .ok
        }
        if dryRun {
            if options.json {
                print(json(plan, finish: nil, askedApple: false).serialized())
            } else {
                plan.lines.forEach { print(($0 == plan.lines.first ? "" : "  ") + $0) }
                print("dry run: nothing asked of Apple")
            }
            return .ok
        }
        let actions = session.actions, operatorName = options.operatorName, text = reason ?? ""
        let outcome = try session.run { try await actions.finishTransaction(id, reason: text, operatorName: operatorName) }
        report(plan, outcome, options)
        return .ok
    }

    private static func report(_ plan: TransactionFinishPlan, _ outcome: TransactionFinishOutcome, _ options: StoreOptions) {
        let finish = outcome.finish
        if options.json {
            var asked = false
            if case .finished = outcome { asked = true }
            print(json(plan, finish: finish, askedApple: asked).serialized())
            return
        }
        switch outcome {
        case .finished:
            print("finished at Apple: \(plan.transactionId) (\(plan.customerId), \(plan.productId), \(plan.environment.rawValue.lowercased())) at \(RFC3339.format(finish.at)) by \(finish.by)")
        case .alreadyFinished:
            print("\(plan.transactionId) already finished at \(RFC3339.format(finish.at)) by \(finish.by): Apple was not asked again")
        }
    }

    static func json(_ plan: TransactionFinishPlan, finish: FinishedAtApple?, askedApple: Bool) -> JSONValue {
        .object([("transactionId", .string(plan.transactionId)), ("customerId", .string(plan.customerId)), ("productId", .string(plan.productId)),
                 ("environment", .string(plan.environment.rawValue)), ("orderId", .string(plan.orderId)),
                 ("finishedAtApple", .date(finish?.at)), ("finishedBy", .string(finish?.by)), ("askedApple", .bool(askedApple))])
    }
}
