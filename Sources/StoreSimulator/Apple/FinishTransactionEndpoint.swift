import Foundation
import ReceiptCore

/// Finish Transaction (App Store Server API 1.20):
///
///     POST /inApps/v1/transactions/{transactionId}/finish
///     → 200, empty body
///
/// No request body. A non-numeric id → 400 4000006; unknown in this environment → 404 4040010.
/// Finishing a finished transaction is answered 200 again, as Apple does (it is idempotent):
/// the first finish's date stays, the count of requests grows (`TransactionFinish`), all under
/// the state's lock.
extension ServerAPIEndpoints {
    func finishTransaction(transactionId: String) throws -> HTTPServerResponse {
        _ = try validTransactionId(transactionId)
        let at = SimulatorRecords.wholeMilliseconds(now)
        try state.withRecords { records in
            guard records.transaction(transactionId, in: environment) != nil else { throw ServerAPIError.transactionIdNotFound }
            if var finish = records.finishedTransactions[transactionId] {
                finish.requests += 1
                finish.lastRequestDate = at
                records.finishedTransactions[transactionId] = finish
            } else {
                records.finishedTransactions[transactionId] = TransactionFinish(transactionId: transactionId, environment: environment,
                                                                                finishedDate: at, requests: 1, lastRequestDate: at)
            }
        }
        return HTTPServerResponse(status: 200)
    }
}
