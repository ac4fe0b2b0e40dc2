import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// Every builder's output through ReceiptCore's own front door (`ReceiptDecoder` then
/// `ReceiptVerifier`), trusting the test authority's roots. Artefact dates lie inside the shared
/// authority's validity (2020…2040), as verification happens at the artefact's own time.
@Suite("Built artefacts through ReceiptDecoder and ReceiptVerifier")
struct VerifierInteropTests {
    static let when = RFC3339.parse("2025-06-01T12:00:00Z") ?? .distantPast
    static let device = UUID(uuidString: "956328D9-CC6A-47F4-BE40-6953FB0AB6C7") ?? UUID()

    static func verdict(_ text: String, trust: TrustStore, device: UUID? = nil) throws -> Verdict {
        ReceiptVerifier(trust: trust, deviceIdentifier: device).verify(try ReceiptDecoder.decode(Array(text.utf8)))
    }

    static func unified() -> UnifiedReceiptBuilder {
        var builder = UnifiedReceiptBuilder(bundleId: "com.example.game", appVersion: "42", creationDate: when,
                                            purchases: [ReceiptPurchase(productId: "coins.100", transactionId: "1000000000000001",
                                                                        purchaseDate: when.addingTimeInterval(-60), productTypeCode: 1)])
        builder.deviceIdentifier = UnifiedReceiptBuilder.deviceIdentifier(device)
        return builder
    }

    static func legacy() -> LegacyReceiptBuilder {
        LegacyReceiptBuilder(purchaseInfo: LegacyPurchaseInfo(transactionId: "1000000046178817", productId: "com.example.coins",
                                                              bundleId: "com.example.game", bundleVersion: "20250601",
                                                              itemId: "521129812", purchaseDate: when))
    }

    static func transaction() -> TransactionPayload {
        TransactionPayload(transactionId: "2000000000000001", bundleId: "com.example.game", productId: "pro.monthly",
                           type: "Auto-Renewable Subscription", purchaseDate: when,
                           expiresDate: when.addingTimeInterval(30 * 86_400), signedDate: when)
    }

    @Test("a unified receipt from the test authority is valid, device hash included; others are not")
    func unified() throws {
        let ca = try TestCertificateAuthority.shared()
        let built = try Self.unified().build(signedBy: ca)
        let valid = try Self.verdict(built.base64, trust: ca.trustStore(), device: Self.device)
        #expect(valid.status == .valid, "\(valid.reason)")
        #expect(valid.extraAnchor == "receiptdesk Test Root CA")
        #expect(valid.chain == ["receiptdesk Test Receipt Signing", "receiptdesk Test WWDR Intermediate", "receiptdesk Test Root CA"])

        var sha1 = Self.unified()
        sha1.digest = .sha1
        #expect(try Self.verdict(try sha1.build(signedBy: ca).base64, trust: ca.trustStore()).status == .valid)

        let otherDevice = try Self.verdict(built.base64, trust: ca.trustStore(), device: UUID(uuidString: "00000000-0000-0000-0000-000000000001"))
        #expect(otherDevice.status == .invalid && otherDevice.reason.contains("device hash"), "\(otherDevice.reason)")

        var tampered = built.der
        let appVersion = DER.utf8String("42")  // field 3's value, inside the signed content
        let start = try #require((0...(tampered.count - appVersion.count)).first { tampered[$0..<($0 + appVersion.count)].elementsEqual(appVersion) })
        tampered[start + 2] = UInt8(ascii: "5")
        let changed = ReceiptVerifier(trust: ca.trustStore()).verify(try AppReceipt(derEncoded: tampered))
        #expect(changed.status == .invalid && changed.reason.contains("signature does not match"), "\(changed.reason)")

        let impostor = try Self.verdict(try Self.unified().build(signedBy: try TestCertificateAuthority.shared(.impostor)).base64,
                                        trust: try TrustStore.apple().adding(anchors: [ca.root]))
        #expect(impostor.status == .invalid && impostor.reason.contains("self-signed certificate in certificate chain"), "\(impostor.reason)")

        let unmarked = try TestCertificateAuthority.shared(.withoutAppleMarkers)
        let bare = try Self.verdict(try Self.unified().build(signedBy: unmarked).base64, trust: unmarked.trustStore())
        #expect(bare.status == .invalid && bare.reason.contains("lacks Apple's extension 1.2.840.113635.100.6.2.1"), "\(bare.reason)")
    }

    @Test("a legacy receipt decodes field for field and is valid; unsigned and corrupted ones are not")
    func legacy() throws {
        let ca = try TestCertificateAuthority.shared()
        var builder = Self.legacy()
        builder.purchaseInfo.uniqueVendorIdentifier = "A1B2C3D4-0000-0000-0000-000000000000"
        let built = try builder.build(signedBy: ca)
        let receipt = try LegacyReceipt(base64: built.base64)
        #expect(receipt.transactionId == "1000000046178817")
        #expect(receipt.originalTransactionId == "1000000046178817")
        #expect(receipt.productId == "com.example.coins")
        #expect(receipt.quantity == 1)
        #expect(receipt.bundleId == "com.example.game")
        #expect(receipt.bundleVersion == "20250601")
        #expect(receipt.itemId == "521129812")
        #expect(receipt.purchaseDate == Self.when)
        #expect(receipt.originalPurchaseDate == Self.when)
        #expect(receipt.uniqueVendorIdentifier == "A1B2C3D4-0000-0000-0000-000000000000")
        #expect(receipt.environment.environment == .sandbox)
        #expect(receipt.pod == "100" && receipt.signingStatus == "0")
        #expect(receipt.purchaseInfoBytes == built.purchaseInfo)

        let valid = try Self.verdict(built.base64, trust: ca.trustStore())
        #expect(valid.status == .valid, "\(valid.reason)")
        #expect(valid.chain.last == "receiptdesk Test Root CA")

        builder.signature = .omitted
        #expect(try Self.verdict(try builder.build(signedBy: ca).base64, trust: ca.trustStore()).status == .unsigned)
        builder.signature = .corrupted
        let corrupted = try Self.verdict(try builder.build(signedBy: ca).base64, trust: ca.trustStore())
        #expect(corrupted.status == .invalid && corrupted.reason.contains("signature does not match"), "\(corrupted.reason)")

        builder.signature = .signed
        builder.environment = nil
        // Dropping the envelope's key does not make a sandbox purchase production: purchase-info has no app-item-id.
        #expect(try LegacyReceipt(base64: try builder.build(signedBy: ca).base64).environment.environment == .sandbox)
        builder.purchaseInfo.appItemId = "1234567890"
        builder.purchaseInfo.versionExternalIdentifier = "834512"
        #expect(try LegacyReceipt(base64: try builder.build(signedBy: ca).base64).environment.environment == .production)
    }

    @Test("JWS transactions and notifications decode and are valid; the impostor's are not")
    func jws() throws {
        let ca = try TestCertificateAuthority.shared()
        var payload = Self.transaction()
        payload.appAccountToken = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        let jws = try JWSBuilder(authority: ca).signedTransaction(payload)
        let transaction = try SignedTransaction(compactJWS: jws)
        #expect(transaction.purchase.transactionId == "2000000000000001")
        #expect(transaction.purchase.productId == "pro.monthly")
        #expect(transaction.purchase.purchaseDate == Self.when)
        #expect(transaction.purchase.expiresDate == Self.when.addingTimeInterval(30 * 86_400))
        #expect(transaction.purchase.productType == .autoRenewable)
        #expect(transaction.purchase.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(transaction.bundleId == "com.example.game")
        #expect(transaction.environment.environment == .sandbox)
        #expect(transaction.signedDate == Self.when)
        let valid = try Self.verdict(jws, trust: ca.trustStore())
        #expect(valid.status == .valid, "\(valid.reason)")

        let notification = NotificationPayload(
            notificationType: "DID_RENEW", notificationUUID: "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6", signedDate: Self.when,
            data: NotificationData(appAppleId: 1234, bundleId: "com.example.game", bundleVersion: "42",
                                   signedTransactionInfo: .payload(payload),
                                   signedRenewalInfo: .payload(RenewalInfoPayload(originalTransactionId: "2000000000000001",
                                                                                  productId: "pro.monthly", signedDate: Self.when)),
                                   status: 1))
        let body = try JWSBuilder(authority: ca).notificationBody(notification)
        let decoded = try ServerNotification(compactJWS: try JWSBuilder(authority: ca).signedNotification(notification))
        #expect(decoded.notificationType == "DID_RENEW")
        #expect(decoded.notificationUUID == "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6")
        #expect(decoded.version == "2.0")
        #expect(decoded.appAppleId == 1234)
        #expect(decoded.bundleVersion == "42")
        #expect(decoded.status == 1)
        #expect(decoded.transaction?.purchase.transactionId == "2000000000000001")
        #expect(decoded.renewalInfo?.productId == "pro.monthly")
        let notificationVerdict = try Self.verdict(body, trust: ca.trustStore())
        #expect(notificationVerdict.status == .valid, "\(notificationVerdict.reason)")

        // A valid outer notification carrying an impostor-signed transaction is refused for it.
        let impostorJWS = try JWSBuilder(authority: try TestCertificateAuthority.shared(.impostor)).signedTransaction(payload)
        var mixed = notification
        mixed.data?.signedTransactionInfo = .compact(impostorJWS)
        let mixedVerdict = try Self.verdict(try JWSBuilder(authority: ca).notificationBody(mixed), trust: ca.trustStore())
        #expect(mixedVerdict.status == .invalid && mixedVerdict.reason.hasPrefix("data.signedTransactionInfo"), "\(mixedVerdict.reason)")
        #expect(try Self.verdict(impostorJWS, trust: try TrustStore.apple()).status == .invalid)

        var corrupt = JWSBuilder(authority: ca)
        corrupt.corruptSignature = true
        let bad = try Self.verdict(try corrupt.signedTransaction(payload), trust: ca.trustStore())
        #expect(bad.status == .invalid && bad.reason.contains("ES256 signature does not verify"), "\(bad.reason)")
    }
}
