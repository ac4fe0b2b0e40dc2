import AppStoreAPI
import Foundation
import ReceiptCore

/// One transaction of Apple's history, verified, with who owns it in the ledger.
public struct AppleHistoryEntry: Sendable, Equatable {
    public let transactionId: String
    public let originalTransactionId: String?
    public let productId: String?
    public let purchaseDate: Date?
    public let expiresDate: Date?
    public let revocationDate: Date?
    /// "9.99 EUR", nil when Apple gave no price.
    public let price: String?
    public let appAccountToken: String?
    /// The customer the ledger records it for; nil when the ledger does not hold it.
    public let owner: String?
}

/// Get Transaction History around one transaction, as the console and the command line show it.
public struct AppleHistory: Sendable {
    public let transactionId: String
    public let environment: Environment
    public let pages: Int
    public let entries: [AppleHistoryEntry]
    /// Signed transactions that did not verify, with why.
    public let rejected: [String]
}

/// What Look Up Order ID imported for a customer.
public struct AppleOrderImport: Sendable {
    public let orderId: String
    public let customerId: String
    public let environment: Environment
    /// Each transaction with its import result.
    public let imported: [(transactionId: String, result: ImportResult)]
    /// Signed transactions that did not verify, with why.
    public let rejected: [String]
}

/// Apple's reason codes for an extension, for callers that do not talk to Apple themselves.
public enum AppleExtendReasons {
    /// Every code with its words, in code order.
    public static var all: [(code: Int, words: String)] { ExtendReasonCode.allCases.map { ($0.rawValue, $0.words) } }
}

extension PurchaseLedger {
    /// `planRenewalExtension` with Apple's reason code as its number (0–3).
    public func planRenewalExtension(original: String, days: Int, reasonCodeNumber: Int) throws -> RenewalExtensionPlan {
        guard let code = ExtendReasonCode(rawValue: reasonCodeNumber) else {
            throw StoreError(.invalidInput, "Apple's extension reason code is 0–3; \(reasonCodeNumber) is not")
        }
        return try planRenewalExtension(original: original, days: days, reasonCode: code)
    }

    /// `planRenewalExtensionBatch` with Apple's reason code as its number (0–3).
    public func planRenewalExtensionBatch(customers: [String], days: Int, reasonCodeNumber: Int, reason: String) throws -> RenewalExtensionBatch {
        guard let code = ExtendReasonCode(rawValue: reasonCodeNumber) else {
            throw StoreError(.invalidInput, "Apple's extension reason code is 0–3; \(reasonCodeNumber) is not")
        }
        return try planRenewalExtensionBatch(customers: customers, days: days, reasonCode: code, reason: reason)
    }

    /// `planMassExtension` with Apple's reason code as its number (0–3).
    public func planMassExtension(productId: String, days: Int, reasonCodeNumber: Int, storefronts: [String],
                                  environment: Environment) throws -> MassExtensionPlan {
        guard let code = ExtendReasonCode(rawValue: reasonCodeNumber) else {
            throw StoreError(.invalidInput, "Apple's extension reason code is 0–3; \(reasonCodeNumber) is not")
        }
        return try planMassExtension(productId: productId, days: days, reasonCode: code, storefronts: storefronts, environment: environment)
    }
}

extension ConsumptionDraft {
    /// Throws a one-line `StoreError` naming the first field Apple would refuse (no consent, a
    /// value out of range, a token that is not a UUID).
    public func check() throws {
        do { try information.validate() } catch let error as AppStoreError {
            throw StoreError(.invalidInput, error.reason)
        }
    }
}

extension PurchaseLedger {
    /// The environment of the ledger's transaction named by any of its transaction id, original
    /// transaction id or app transaction id; nil when the ledger holds none of them.
    public func environment(ofAnyTransactionId id: String) throws -> Environment? {
        let row = try database.queryFirst("SELECT environment FROM transactions WHERE transaction_id = ?", [.text(id)])
            ?? database.queryFirst("SELECT environment FROM transactions WHERE original_transaction_id = ? LIMIT 1", [.text(id)])
            ?? database.queryFirst("SELECT environment FROM transactions WHERE app_transaction_id = ? LIMIT 1", [.text(id)])
        return row.flatMap { Environment(rawValue: $0.string("environment") ?? "") }
    }
}

extension AppleActions {
    /// Get Transaction History around `transactionId`, any of a transaction, original transaction
    /// or app transaction id as Apple takes them (its environment from the ledger when it holds
    /// it), each verified transaction marked with its owner in the ledger.
    public func transactionHistory(_ transactionId: String) async throws -> AppleHistory {
        let environment = try ledger.run { try $0.environment(ofAnyTransactionId: transactionId) }
        let list = try await client.transactionHistory(transactionId, environment: environment)
        let entries = try list.transactions.map { verified -> AppleHistoryEntry in
            let p = verified.transaction.purchase
            let owner = try p.transactionId.flatMap { id in try ledger.run { try $0.transaction(id)?.customerId } }
            return AppleHistoryEntry(transactionId: p.transactionId ?? "?", originalTransactionId: p.originalTransactionId, productId: p.productId,
                                     purchaseDate: p.purchaseDate, expiresDate: p.expiresDate, revocationDate: p.revocationDate,
                                     price: AppleMoney.format(verified.transaction.price, currency: verified.transaction.currency),
                                     appAccountToken: p.appAccountToken, owner: owner)
        }
        return AppleHistory(transactionId: transactionId, environment: list.environment, pages: list.pages, entries: entries,
                            rejected: list.rejected.map(\.description))
    }

    /// Look Up Order ID: the Apple order id from the customer's invoice email → its transactions,
    /// verified and imported for `customerId` (as `receiptdesk lookup-order`), the order id kept so
    /// a search for it finds them. Throws when Apple does not know the order.
    public func lookUpOrder(_ orderId: String, customerId: String, operatorName: String) async throws -> AppleOrderImport {
        try Validate.identifier(orderId, "Apple order id")
        guard try ledger.run({ try $0.customerExists(customerId) }) else {
            throw StoreError(.notFound, "no customer \(customerId): the order's transactions are imported for an existing customer")
        }
        let lookup = try await client.lookUpOrder(orderId)
        guard lookup.isValidOrder else {
            throw StoreError(.invalidInput, "Apple does not know order \(orderId) (status \(lookup.orderStatus)): check the id on the customer's email receipt")
        }
        var imported: [(String, ImportResult)] = []
        for verified in lookup.transactions {
            guard let jws = verified.transaction.jws?.text else { continue }
            let result = try ledger.run {
                try $0.importArtefact(Array(jws.utf8), customer: customerId, source: "lookup-order \(orderId)", operatorName: operatorName)
            }
            imported.append((verified.transactionId ?? "?", result))
        }
        let ids = lookup.transactions.compactMap(\.transactionId)
        _ = try ledger.run { try $0.recordAppleOrder(orderId, transactionIds: ids, operatorName: operatorName) }
        return AppleOrderImport(orderId: orderId, customerId: customerId, environment: lookup.environment, imported: imported,
                                rejected: lookup.rejected.map(\.description))
    }
}
