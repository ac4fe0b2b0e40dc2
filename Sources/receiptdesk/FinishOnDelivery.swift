import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore

/// `import` with `appStore.finishOnDelivery` on: each consumable it newly credited to a merchant
/// order is finished at Apple (`AppleActions.finishTransaction`, audited, once) after the files
/// are in the ledger. A transaction the ledger did not deliver (a sandbox purchase of a customer
/// who is not a tester, say) is left unfinished with a note; Apple failing leaves it for
/// `transaction finish` and decides the exit status when the import itself went well.
struct FinishOnDelivery {
    /// A transaction to finish and the file that credited it.
    struct Credit {
        /// The file's place in the import's list.
        let index: Int
        let file: String
        let transactionId: String
        let orderId: String
    }

    /// What became of one credit: finished (and when), left as not delivered, or failed at Apple.
    enum Result {
        case finished(FinishedAtApple)
        case notDelivered(String)
        case failed(CommandFailure)
    }

    /// The consumables of `result` newly recorded and bound to an order.
    static func credits(_ index: Int, _ file: String, _ result: ImportResult, configuration: StoreConfiguration) -> [Credit] {
        result.transactions.compactMap { report in
            guard case .recorded(_, let order?) = report.outcome, configuration.products[report.productId]?.type == .consumable else { return nil }
            return Credit(index: index, file: file, transactionId: report.transactionId, orderId: order)
        }
    }

    /// Finishes `credits` in order; one result per credit.
    static func run(_ credits: [Credit], ledger: PurchaseLedger, options: StoreOptions) throws -> [Result] {
        guard !credits.isEmpty else { return [] }
        let connection = try AppleConnection.open(options.configuration, baseTrust: options.trust)
        defer { connection.close() }
        guard let client = connection.service.serverAPI else {
            throw CommandFailure.usage("appStore.finishOnDelivery needs the App Store Server API: configure appStore.serverAPI (keyId, issuerId, privateKeyFile)")
        }
        let actions = AppleActions(ledger: LedgerLock(ledger), client: client)
        let operatorName = options.operatorName
        return credits.map { credit in
            let reason = "finishOnDelivery: credited to order \(credit.orderId) by import of \((credit.file as NSString).lastPathComponent)"
            do {
                let outcome = try runThrowing { try await actions.finishTransaction(credit.transactionId, reason: reason, operatorName: operatorName) }
                return .finished(outcome.finish)
            } catch let refusal as StoreError where refusal.code == .invalidRequest {
                return .notDelivered(refusal.reason)
            } catch {
                return .failed(CommandFailure.from(error))
            }
        }
    }

    /// The result in one line, for text output.
    static func line(_ credit: Credit, _ result: Result) -> String {
        switch result {
        case .finished(let finish):
            return "\(credit.file): finished at Apple: \(credit.transactionId) (order \(credit.orderId)) at \(RFC3339.format(finish.at))"
        case .notDelivered(let why):
            return "\(credit.file): note: not finished at Apple: \(why)"
        case .failed(let failure):
            return "\(credit.file): \(credit.transactionId) not finished at Apple: \(failure.message); finish it with `receiptdesk transaction finish \(credit.transactionId) --reason …`"
        }
    }

    /// The result as JSON members of the file's report.
    static func json(_ credit: Credit, _ result: Result) -> JSONValue {
        var members: [(String, JSONValue)] = [("transactionId", .string(credit.transactionId)), ("orderId", .string(credit.orderId))]
        switch result {
        case .finished(let finish): members += [("finishedAtApple", .date(finish.at)), ("finishedBy", .string(finish.by))]
        case .notDelivered(let why): members.append(("notDelivered", .string(why)))
        case .failed(let failure): members.append(("error", .string(failure.message)))
        }
        return .object(members)
    }
}
