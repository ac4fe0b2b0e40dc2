import Foundation
import ReceiptCore
import StoreSimulator

/// Generated seed inputs, forged by the StoreSimulator's test CA from readable values, so the
/// fuzzers start from well-formed artefacts of every kind (several purchases, every JWS kind).
enum FuzzSeeds {
    static let date = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01T00:00:00Z

    /// FNV-1a of the bytes: a stable file name for a seed.
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    static func purchases(_ count: Int) -> [ReceiptPurchase] {
        var result: [ReceiptPurchase] = []
        for index in 0..<count {
            let subscription = index % 2 == 0
            let bought: Date = date.addingTimeInterval(Double(index) * 86_400)
            let expires: Date? = subscription ? bought.addingTimeInterval(30 * 86_400) : nil
            let id = String(1_000_000_000_000_000 + index)
            result.append(ReceiptPurchase(productId: subscription ? "pro.monthly" : "金币礼包", transactionId: id,
                                          originalTransactionId: "1000000000000000", purchaseDate: bought, expiresDate: expires,
                                          productTypeCode: subscription ? 3 : 1))
        }
        return result
    }

    /// Unified receipts (DER) with 0, 1 and 3 purchases, one BER-free SHA-1 variant.
    static func unified() throws -> [[UInt8]] {
        let authority = try TestCertificateAuthority.shared()
        var result: [[UInt8]] = []
        for count in [0, 1, 3] {
            var builder = UnifiedReceiptBuilder(bundleId: "com.example.app", appVersion: "60", creationDate: date, purchases: purchases(count))
            builder.receiptType = count == 1 ? "Production" : "ProductionSandbox"
            builder.includeUndocumentedAttributes = count == 3
            result.append(try builder.build(signedBy: authority).der)
        }
        return result
    }

    /// Legacy iOS 6 receipts as plist text.
    static func legacy() throws -> [[UInt8]] {
        let authority = try TestCertificateAuthority.shared()
        let info = LegacyPurchaseInfo(transactionId: "1000000046178817", productId: "com.example.coins", bundleId: "com.example.app",
                                      bundleVersion: "20120427", itemId: "521129812", purchaseDate: date)
        var unsigned = LegacyReceiptBuilder(purchaseInfo: info)
        unsigned.environment = nil
        return [Array(try LegacyReceiptBuilder(purchaseInfo: info).build(signedBy: authority).plist.utf8),
                Array(try unsigned.build(signedBy: authority).plist.utf8)]
    }

    /// A signed transaction, and a notification body that carries it.
    static func jws() throws -> [[UInt8]] {
        let builder = JWSBuilder(authority: try TestCertificateAuthority.shared())
        var transaction = TransactionPayload(transactionId: "2000001024998954", originalTransactionId: "2000001024993299",
                                             bundleId: "com.example.app", productId: "pro.monthly", type: "Auto-Renewable Subscription",
                                             purchaseDate: date, expiresDate: date.addingTimeInterval(30 * 86_400), signedDate: date)
        transaction.appAccountToken = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        let signed = try builder.signedTransaction(transaction)
        let notification = NotificationPayload(notificationType: "DID_RENEW", notificationUUID: "0b8c5cd5-1e0a-4f3e-9b7b-6c1f6f6b3f55",
                                               signedDate: date,
                                               data: NotificationData(bundleId: "com.example.app", signedTransactionInfo: .payload(transaction)))
        return [Array(signed.utf8), Array(try builder.notificationBody(notification).utf8)]
    }
}
