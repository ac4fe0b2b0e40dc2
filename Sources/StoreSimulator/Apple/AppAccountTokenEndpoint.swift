import Foundation
import ReceiptCore

/// Set App Account Token:
///
///     PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken
///         {"appAccountToken":"<uuid>"}
///     → 200, empty body
///
/// A non-numeric id → 400 4000006; a token that is not a UUID → 400 4000033; unknown here →
/// 404 4040010; an id that is a renewal rather than an original → 400 4000187. The token
/// (lower-cased) goes on every transaction of the original, and later renewals copy it, so the
/// signed transactions and notifications minted afterwards carry it.
extension ServerAPIEndpoints {
    func setAppAccountToken(_ request: HTTPServerRequest, originalTransactionId original: String) throws -> HTTPServerResponse {
        _ = try validTransactionId(original)
        let token = try ServerAPIRequestBody(request).uuid("appAccountToken", else: .invalidAppAccountToken)
        try state.withRecords { records in
            guard let transaction = records.transaction(original, in: environment) else { throw ServerAPIError.transactionIdNotFound }
            guard transaction.originalTransactionId == original else { throw ServerAPIError.transactionIdNotOriginalTransactionId }
            for (id, other) in records.transactions where other.originalTransactionId == original {
                records.transactions[id]?.appAccountToken = token
            }
        }
        return HTTPServerResponse(status: 200)
    }
}
