import Foundation
import Testing
@testable import ReceiptCore

@Suite("StoreKit 2 JWS: real artefacts")
struct JWSRealTests {
    let verifier = ReceiptVerifier(trust: SampleFiles.apple)

    func testCATrust() throws -> TrustStore {
        SampleFiles.apple.adding(anchors: [try Certificate(der: try SampleFiles.bytes("AppStoreServerLibraryTestCA.der"))])
    }

    @Test func realSandboxTransaction() throws {
        let artefact = try ReceiptDecoder.decode(try SampleFiles.bytes("real-transaction-sandbox.jws"))
        guard case .transaction(let t) = artefact else { Issue.record("not a transaction: \(artefact.format)"); return }
        let p = t.purchase
        #expect(p.transactionId == "2000001024998954")
        #expect(p.originalTransactionId == "2000001024993299")
        #expect(p.webOrderLineItemId == "2000000113755461")
        #expect(t.bundleId == "com.loki-project.loki-messenger")
        #expect(p.productId == "com.getsession.org.pro_sub")
        #expect(t.subscriptionGroupIdentifier == "21752814")
        #expect(p.purchaseDate == SampleFiles.ms(1759302552000))
        #expect(p.originalPurchaseDate == SampleFiles.ms(1759301833000))
        #expect(p.expiresDate == SampleFiles.ms(1759302732000))
        #expect(p.quantity == 1)
        #expect(p.productType == .autoRenewable)
        #expect(p.ownershipType == "PURCHASED")
        #expect(t.transactionReason == "RENEWAL")
        #expect(t.price == 1990)
        #expect(t.currency == "AUD")
        #expect(t.storefront == "AUS")
        #expect(t.environment.environment == .sandbox)
        #expect(t.signedDate == SampleFiles.ms(1759302518835))
        let verdict = verifier.verify(artefact)
        #expect(verdict.status == .valid, "\(verdict.reason)")
        #expect(verdict.chain == ["Prod ECC Mac App Store and iTunes Store Receipt Signing",
                                  "Apple Worldwide Developer Relations Certification Authority", "Apple Root CA - G3"])
        #expect(verdict.validationTime == SampleFiles.ms(1759302518835))
    }

    @Test func realSandboxRenewalInfo() throws {
        let artefact = try ReceiptDecoder.decode(try SampleFiles.bytes("real-renewal-info-sandbox.jws"))
        guard case .renewalInfo(let r) = artefact else { Issue.record("not renewal info: \(artefact.format)"); return }
        #expect(r.originalTransactionId == "2000001024993299")
        #expect(r.autoRenewProductId == "com.getsession.org.pro_sub")
        #expect(r.productId == "com.getsession.org.pro_sub")
        #expect(r.autoRenewStatus == 1)
        #expect(r.recentSubscriptionStartDate == SampleFiles.ms(1759301832000))
        #expect(r.renewalDate == SampleFiles.ms(1759302732000))
        #expect(r.environment.environment == .sandbox)
        #expect(verifier.verify(artefact).status == .valid)
    }

    @Test func tamperedPayloadIsInvalid() throws {
        let text = try SampleFiles.text("real-transaction-sandbox.jws").trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = text.split(separator: ".").map(String.init)
        var payload = try Base64.decodeURL(parts[1], "payload")
        let needle = Array("\"quantity\":1".utf8)
        let index = try #require((0...(payload.count - needle.count)).first { Array(payload[$0..<($0 + needle.count)]) == needle })
        payload[index + needle.count - 1] = UInt8(ascii: "9")
        let forged = [parts[0], Base64.encodeURL(payload), parts[2]].joined(separator: ".")
        let artefact = try ReceiptDecoder.decode(Array(forged.utf8))
        #expect(artefact.summary.purchases.first?.quantity == 9)
        let verdict = verifier.verify(artefact)
        #expect(verdict.status == .invalid)
        #expect(verdict.reason.contains("ES256 signature does not verify"))
    }

    @Test func testCANotificationIsValidOnlyWithItsAnchorNamed() throws {
        let artefact = try ReceiptDecoder.decode(try SampleFiles.bytes("testca-testNotification.jws"))
        guard case .notification(let n) = artefact else { Issue.record("not a notification"); return }
        #expect(n.notificationType == "TEST")
        #expect(n.notificationUUID == "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6")
        #expect(n.appAppleId == 1234)
        #expect(n.bundleId == "com.example")
        #expect(n.environment.environment == .sandbox)
        #expect(n.signedDate == SampleFiles.ms(1681314324000))
        #expect(verifier.verify(artefact).status == .invalid, "Apple's roots alone do not trust the test CA")
        let withAnchor = ReceiptVerifier(trust: try testCATrust()).verify(artefact)
        #expect(withAnchor.status == .valid, "\(withAnchor.reason)")
        #expect(withAnchor.extraAnchor != nil)
        #expect(withAnchor.reason.contains("extra anchor"))
    }

    @Test func testCATransactionAndRenewal() throws {
        let trust = ReceiptVerifier(trust: try testCATrust())
        let transaction = try ReceiptDecoder.decode(try SampleFiles.bytes("testca-transactionInfo.jws"))
        #expect(transaction.format == .jwsTransaction)
        #expect(transaction.summary.environment.environment == .sandbox)
        #expect(trust.verify(transaction).status == .valid)
        let wrongBundle = ReceiptVerifier(trust: try testCATrust(), expectedBundleIds: ["com.example.x"]).verify(transaction)
        #expect(wrongBundle.status == .invalid)
        #expect(wrongBundle.reason.contains("invalid app identifier"))
        #expect(wrongBundle.reason.hasPrefix("ES256 signature and chain valid, through the extra anchor"), "\(wrongBundle.reason)")
        #expect(!wrongBundle.chain.isEmpty, "the chain that verified is kept")
        let renewal = try ReceiptDecoder.decode(try SampleFiles.bytes("testca-renewalInfo.jws"))
        #expect(renewal.format == .jwsRenewalInfo)
        #expect(renewal.summary.environment.environment == .sandbox)
        let wrong = try ReceiptDecoder.decode(try SampleFiles.bytes("testca-wrongBundleId.jws"))
        let verdict = ReceiptVerifier(trust: try testCATrust(), expectedBundleIds: ["com.example"]).verify(wrong)
        #expect(verdict.status == .invalid)
        #expect(verdict.reason.contains("com.example.wrong"))
    }

    @Test func missingX5CIsInvalidFormat() throws {
        let artefact = try ReceiptDecoder.decode(try SampleFiles.bytes("testca-missingX5CHeaderClaim.jws"))
        let verdict = ReceiptVerifier(trust: try testCATrust()).verify(artefact)
        #expect(verdict.status == .invalid)
        #expect(verdict.reason.contains("invalid JWS format"))
    }

    @Test func xcodeArtefactsAreUnverifiable() throws {
        let transaction = try ReceiptDecoder.decode(try SampleFiles.bytes("xcode-transaction.jws"))
        guard case .transaction(let t) = transaction else { Issue.record("not a transaction"); return }
        #expect(t.environment.environment == .xcode)
        #expect(t.purchase.transactionId == "0")
        #expect(t.purchase.originalTransactionId == "0")
        #expect(t.purchase.webOrderLineItemId == "0")
        #expect(t.bundleId == "com.example.naturelab.backyardbirds.example")
        #expect(t.purchase.productId == "pass.premium")
        #expect(t.subscriptionGroupIdentifier == "6F3A93AB")
        #expect(abs((t.purchase.purchaseDate?.timeIntervalSince1970 ?? 0) - 1697679936.049) < 0.001)
        #expect(abs((t.purchase.expiresDate?.timeIntervalSince1970 ?? 0) - 1700358336.049) < 0.001)
        #expect(t.storefront == "USA")
        #expect(t.transactionReason == "PURCHASE")
        #expect(verifier.verify(transaction).status == .unverifiable)

        let renewal = try ReceiptDecoder.decode(try SampleFiles.bytes("xcode-renewal-info.jws"))
        guard case .renewalInfo(let r) = renewal else { Issue.record("not renewal info"); return }
        #expect(r.originalTransactionId == "0")
        #expect(r.autoRenewProductId == "pass.premium")
        #expect(r.autoRenewStatus == 1)
        #expect(abs((r.renewalDate?.timeIntervalSince1970 ?? 0) - 1700358336.049) < 0.001)
        #expect(verifier.verify(renewal).status == .unverifiable)

        let app = try ReceiptDecoder.decode(try SampleFiles.bytes("xcode-app-transaction.jws"))
        guard case .appTransaction(let a) = app else { Issue.record("not an app transaction: \(app.format)"); return }
        #expect(a.bundleId == "com.example.naturelab.backyardbirds.example")
        #expect(a.applicationVersion == "1")
        #expect(a.originalApplicationVersion == "1")
        #expect(a.environment.environment == .xcode)
        #expect(verifier.verify(app).status == .unverifiable)
    }

    @Test func decodedPayloadJSONIsUnsigned() throws {
        let transaction = try ReceiptDecoder.decode(try SampleFiles.bytes("transaction-payload.json"))
        #expect(transaction.format == .jwsTransaction)
        #expect(transaction.summary.purchases.first?.transactionId == "23456")
        #expect(transaction.summary.purchases.first?.originalTransactionId == "12345")
        #expect(transaction.summary.purchases.first?.revocationDate != nil)
        #expect(verifier.verify(transaction).status == .unsigned)
        let notification = try ReceiptDecoder.decode(try SampleFiles.bytes("notification-payload.json"))
        #expect(notification.summary.notificationType == "SUBSCRIBED")
        #expect(notification.summary.subtype == "INITIAL_BUY")
        #expect(notification.summary.environment.environment == .localTesting)
        #expect(verifier.verify(notification).status == .unsigned)
    }

    @Test func signedPayloadWrapperIsANotification() throws {
        let jws = try SampleFiles.text("testca-testNotification.jws").trimmingCharacters(in: .whitespacesAndNewlines)
        let artefact = try ReceiptDecoder.decode(Array("{\"signedPayload\": \"\(jws)\"}".utf8))
        #expect(artefact.format == .notification)
        #expect(artefact.summary.notificationType == "TEST")
    }

    @Test(arguments: ["a.b.c.d", "a.b.c"])
    func malformedJWSIsRejected(_ text: String) throws {
        #expect(throws: ReceiptError.self) { _ = try CompactJWS(compact: text) }
    }
}
