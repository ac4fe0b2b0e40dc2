import Foundation
import ReceiptCore

/// What to ask Apple about one stored artefact, read from the database, and Apple's answer
/// reduced to transactions the ledger can apply.
struct AppleQuestion: Sendable {
    enum Kind: Sendable {
        /// verifyReceipt with this base64 receipt-data.
        case verifyReceipt(String)
        /// The Server API's transaction history of this transaction id.
        case history(String, Environment?)
        /// Nothing can be asked, and why.
        case none(String)
    }

    let receiptId: Int64
    let customerId: String?
    let kind: Kind
    let local: [Purchase]
    let localEnvironment: Environment
    /// The verdict stored at import ("valid", "invalid", "unsigned", "unverifiable") and its reason.
    let localVerdict: String
    let localReason: String

    /// Reads the receipt and decides what to ask, given which services exist.
    static func load(_ receiptId: Int64, ledger: PurchaseLedger, service: AppleService) throws -> AppleQuestion {
        guard let row = try ledger.database.queryFirst("SELECT raw, customer_id, format, verdict, verdict_reason, erased_at FROM receipts WHERE receipt_id = ?",
                                                       [.integer(receiptId)]) else {
            throw StoreError(.notFound, "receipt #\(receiptId) not found")
        }
        if let erased = row.date("erased_at") {
            throw StoreError(.invalidRequest, "receipt #\(receiptId): its bytes were erased with the customer's personal data (\(RFC3339.format(erased))): nothing to ask Apple")
        }
        let raw = row.blob("raw") ?? []
        let customer = row.string("customer_id")
        let artefact = try ReceiptDecoder.decode(raw)
        let summary = artefact.summary
        func question(_ kind: Kind) -> AppleQuestion {
            AppleQuestion(receiptId: receiptId, customerId: customer, kind: kind, local: summary.purchases,
                          localEnvironment: summary.environment.environment, localVerdict: row.string("verdict") ?? "invalid",
                          localReason: row.string("verdict_reason") ?? "")
        }
        let anyTransaction = summary.purchases.compactMap { $0.originalTransactionId ?? $0.transactionId }.first
        let knownEnvironment: Environment? = [.production, .sandbox].contains(summary.environment.environment) ? summary.environment.environment : nil
        switch artefact {
        case .unified, .legacy:
            if service.api == .verifyReceipt, service.verifyReceipt != nil {
                return question(.verifyReceipt(receiptData(raw)))
            }
            if service.serverAPI != nil, let id = anyTransaction { return question(.history(id, knownEnvironment)) }
            if service.verifyReceipt != nil { return question(.verifyReceipt(receiptData(raw))) }
            return question(.none("no Apple service is configured"))
        case .transaction, .notification, .renewalInfo:
            guard service.serverAPI != nil else {
                return question(.none("a StoreKit 2 artefact needs the App Store Server API (configure appStore.serverAPI)"))
            }
            guard let id = anyTransaction ?? summary.renewal?.originalTransactionId else {
                return question(.none("it names no transaction to ask about"))
            }
            return question(.history(id, knownEnvironment))
        case .appTransaction:
            return question(.none("an app transaction carries no purchase to ask about"))
        case .verifyReceiptResponse:
            return question(.none("it is one of Apple's answers already"))
        }
    }

    /// The base64 receipt-data for verifyReceipt: the stored text when it is base64, else the bytes encoded.
    static func receiptData(_ raw: [UInt8]) -> String {
        let text = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        // Stored base64 is sent as it is; anything else (DER, plist text) is encoded.
        if raw.first != 0x30, (try? Base64.decode(text, "receipt")) != nil { return text.filter { !$0.isWhitespace } }
        return Data(raw).base64EncodedString()
    }
}
