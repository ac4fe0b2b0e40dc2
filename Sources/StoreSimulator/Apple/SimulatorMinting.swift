import Foundation
import ReceiptCore

/// A receipt the simulator minted and the transactions it registered for it.
public struct MintedReceipt: Sendable {
    /// The receipt as apps send it (`receipt-data`).
    public let base64: String
    /// The receipt's bytes (DER for a unified receipt, the plist text for a legacy one).
    public let bytes: [UInt8]
    /// Where it was issued.
    public let environment: SimulatorEnvironment
    /// Its transactions, as the simulator now knows them.
    public let transactions: [IssuedTransaction]
}

/// A signed StoreKit 2 transaction the simulator minted.
public struct MintedSignedTransaction: Sendable {
    /// The compact JWS.
    public let jws: String
    /// The transaction, as the simulator now knows it.
    public let transaction: IssuedTransaction
}

/// An App Store Server Notification V2 the simulator minted.
public struct MintedNotification: Sendable {
    /// The HTTP body Apple posts: `{"signedPayload":"<JWS>"}`.
    public let body: String
    /// The notification's JWS.
    public let signedPayload: String
    /// What the simulator recorded about it.
    public let record: NotificationRecord
}

/// Minting: artefacts signed by the simulator's authority, their transactions registered first so
/// that verifyReceipt and the Server API know them afterwards.
extension SimulatorState {
    /// A unified (iOS 7+) receipt holding `purchases`, each registered in `environment` under one
    /// account (`account`, else a new one). `creationDate` (default: the newest purchase date)
    /// must lie inside the authority's validity for the receipt to verify.
    public func mintUnifiedReceipt(environment: SimulatorEnvironment, purchases: [SimulatedPurchase], account: String? = nil,
                                   appVersion: String = "1.0", originalAppVersion: String = "1.0",
                                   creationDate: Date? = nil) throws -> MintedReceipt {
        let owner = account ?? newAccount()
        let issued = try purchases.map { try register($0, environment: environment, account: owner) }
        let created = creationDate ?? issued.map(\.purchaseDate).max() ?? authority.validFrom
        var builder = UnifiedReceiptBuilder(bundleId: bundleId, appVersion: appVersion, creationDate: created,
                                            purchases: issued.map(\.receiptPurchase))
        builder.receiptType = environment.receiptType
        builder.appItemId = environment == .production ? appAppleId : 0
        builder.originalAppVersion = originalAppVersion
        builder.originalPurchaseDate = issued.map(\.purchaseDate).min() ?? created
        let built = try builder.build(signedBy: authority)
        return MintedReceipt(base64: built.base64, bytes: built.der, environment: environment, transactions: issued)
    }

    /// An iOS 6 transaction receipt for one purchase, registered in `environment`, with a
    /// signature blob of `blobVersion` (2: the iTunes-Store-like chain; 3: the WWDR-like one).
    /// Production purchases name the app (`app-item-id`, `version-external-identifier`), as
    /// Apple's do; sandbox ones do not.
    public func mintLegacyReceipt(environment: SimulatorEnvironment, purchase: SimulatedPurchase, account: String? = nil,
                                  bundleVersion: String = "1.0", itemId: String = "500000001",
                                  blobVersion: UInt8 = 2) throws -> MintedReceipt {
        let issued = try register(purchase, environment: environment, account: account)
        var info = LegacyPurchaseInfo(transactionId: issued.transactionId, originalTransactionId: issued.originalTransactionId,
                                      productId: issued.productId, quantity: Int(issued.quantity), bundleId: issued.bundleId,
                                      bundleVersion: bundleVersion, itemId: itemId, purchaseDate: issued.purchaseDate,
                                      originalPurchaseDate: issued.originalPurchaseDate)
        info.expiresDate = issued.expiresDate
        info.webOrderLineItemId = issued.webOrderLineItemId
        info.appItemId = environment == .production ? String(appAppleId) : nil
        info.versionExternalIdentifier = environment == .production ? "834512001" : nil
        var builder = LegacyReceiptBuilder(purchaseInfo: info)
        builder.blobVersion = blobVersion
        builder.environment = environment == .sandbox ? "Sandbox" : nil
        let built = try builder.build(signedBy: authority)
        return MintedReceipt(base64: built.base64, bytes: built.bytes, environment: environment, transactions: [issued])
    }

    /// A signed StoreKit 2 transaction for `purchase`, registered in `environment`.
    public func mintSignedTransaction(environment: SimulatorEnvironment, purchase: SimulatedPurchase, account: String? = nil,
                                      signedDate: Date) throws -> MintedSignedTransaction {
        let issued = try register(purchase, environment: environment, account: account)
        return MintedSignedTransaction(jws: try signedTransaction(issued.transactionId, signedDate: signedDate), transaction: issued)
    }

    /// The JWS Apple would return today for a transaction the simulator knows (refunds included).
    public func signedTransaction(_ transactionId: String, signedDate: Date) throws -> String {
        guard let transaction = transaction(transactionId) else {
            throw SimulatorError(.invalidRequest, "transaction \(transactionId) was not issued by the simulator")
        }
        return try JWSBuilder(authority: authority).signedTransaction(transaction.payload(signedDate: signedDate))
    }
}
