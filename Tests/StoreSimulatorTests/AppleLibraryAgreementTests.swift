import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// Where receiptdesk once disagreed with Apple's app-store-server-library: fractional dates, app
/// transactions without signedDate, appAppleId, nested values that are not JWS, Xcode artefacts
/// given with their anchor, extra anchors named like Apple's roots, and claims of Xcode.
@Suite("Verification agrees with Apple's server library")
struct AppleLibraryAgreementTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Assets/Samples")

    static func sample(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: samples.appendingPathComponent(name)))
    }

    static let signed = Date(timeIntervalSince1970: 1_750_000_000)

    static func appTransaction(signedDate: Date?, receiptType: String = "Production", appAppleId: Int64? = 1234) -> AppTransactionPayload {
        var payload = AppTransactionPayload(bundleId: "com.example", applicationVersion: "42", originalApplicationVersion: "17",
                                            receiptCreationDate: Date(timeIntervalSince1970: 1_749_000_000),
                                            originalPurchaseDate: Date(timeIntervalSince1970: 1_700_000_000), receiptType: receiptType)
        payload.signedDate = signedDate
        payload.appAppleId = appAppleId
        return payload
    }

    @Test("fractional milliseconds and seconds are truncated to the millisecond, as Apple's library does")
    func fractionalDatesTruncate() throws {
        let artefact = try ReceiptDecoder.decode(try Self.sample("xcode-transaction.jws"))
        let purchase = try #require(artefact.summary.purchases.first)
        // The payload says 1697679936049.7297: Apple's tests expect …049.
        #expect(purchase.purchaseDate == Date(timeIntervalSince1970: 1_697_679_936.049))
        #expect(RFC3339.format(try #require(purchase.purchaseDate)) == "2023-10-19T01:45:36.049Z")
        #expect(RFC3339.format(try #require(purchase.expiresDate)) == "2023-11-19T01:45:36.049Z")
        #expect(RFC3339.format(try #require(RFC3339.parse("2023-10-19T01:45:49.7297Z"))) == "2023-10-19T01:45:49.729Z")
        #expect(RFC3339.format(try #require(RFC3339.parse("2023-10-19T01:45:49.9999999Z"))) == "2023-10-19T01:45:49.999Z")
        #expect(RFC3339.format(RFC3339.fromMilliseconds(1_697_679_936_999.999)) == "2023-10-19T01:45:36.999Z")
    }

    @Test("an app transaction without signedDate is validated at, and created at, its receiptCreationDate")
    func appTransactionFallsBackToReceiptCreationDate() throws {
        let ca = try TestCertificateAuthority.shared()
        let jws = try JWSBuilder(authority: ca).signedAppTransaction(Self.appTransaction(signedDate: nil))
        let artefact = try ReceiptDecoder.decode(Array(jws.utf8))
        let created = Date(timeIntervalSince1970: 1_749_000_000)
        #expect(artefact.summary.creationDate == created)
        let verdict = ReceiptVerifier(trust: ca.trustStore()).verify(artefact)
        #expect(verdict.status == .valid, "\(verdict.reason)")
        #expect(verdict.validationTime == created)
        // signedDate, when present, still wins.
        let dated = try ReceiptDecoder.decode(Array(try JWSBuilder(authority: ca).signedAppTransaction(Self.appTransaction(signedDate: Self.signed)).utf8))
        #expect(ReceiptVerifier(trust: ca.trustStore()).verify(dated).validationTime == Self.signed)
    }

    @Test("a Production notification or app transaction naming another appAppleId than the configured one is invalid; Sandbox ones are not checked")
    func appAppleIdIsChecked() throws {
        let ca = try TestCertificateAuthority.shared()
        let builder = JWSBuilder(authority: ca)
        func notification(_ environment: String, _ appAppleId: Int64?) throws -> DecodedArtefact {
            let payload = NotificationPayload(notificationType: "TEST", notificationUUID: UUID().uuidString, signedDate: Self.signed,
                                              data: NotificationData(appAppleId: appAppleId, bundleId: "com.example", environment: environment))
            return try ReceiptDecoder.decode(Array(try builder.signedNotification(payload).utf8))
        }
        let verifier = ReceiptVerifier(trust: ca.trustStore(), expectedBundleIds: ["com.example"], expectedAppAppleId: 1234)
        #expect(verifier.verify(try notification("Production", 1234)).status == .valid)
        let wrong = verifier.verify(try notification("Production", 1235))
        #expect(wrong.status == .invalid)
        #expect(wrong.reason.hasSuffix("; invalid app identifier: `data.appAppleId` is 1235, the configured appAppleId is 1234"), "\(wrong.reason)")
        #expect(verifier.verify(try notification("Production", nil)).status == .invalid)
        #expect(verifier.verify(try notification("Sandbox", 1235)).status == .valid)
        // Without a configured id nothing is checked.
        #expect(ReceiptVerifier(trust: ca.trustStore()).verify(try notification("Production", 1235)).status == .valid)

        let app = try ReceiptDecoder.decode(Array(try builder.signedAppTransaction(Self.appTransaction(signedDate: Self.signed, appAppleId: 99)).utf8))
        #expect(verifier.verify(app).status == .invalid)
        #expect(verifier.verify(app).reason.contains("`appAppleId` is 99"))
        // The configuration carries it to the verifier.
        let configured = ReceiptVerifier(trust: ca.trustStore(), configuration: StoreConfiguration(appAppleId: 1234))
        #expect(configured.verify(app).status == .invalid)
    }

    @Test("Apple's own sample notification: a Production verifier for appAppleId 1235 refuses it as Apple's tests do")
    func appleSampleNotification() throws {
        let root = try Certificate(der: try Self.sample("AppStoreServerLibraryTestCA.der"))
        let trust = TrustStore(anchors: [], legacyIntermediates: [], storeKitTesting: nil).adding(anchors: [root])
        let artefact = try ReceiptDecoder.decode(try Self.sample("testca-testNotification.jws"))
        // It is a Sandbox notification: the id is checked for Production only, as Apple's verifier does.
        #expect(ReceiptVerifier(trust: trust, expectedAppAppleId: 1235).verify(artefact).status == .valid)
    }

    @Test("a signed notification whose signedTransactionInfo or signedRenewalInfo is not a JWS is invalid",
          arguments: ["signedTransactionInfo", "signedRenewalInfo"])
    func nestedValueThatIsNotJWS(_ key: String) throws {
        let ca = try TestCertificateAuthority.shared()
        var data = NotificationData(bundleId: "com.example", environment: "Production")
        if key == "signedTransactionInfo" { data.signedTransactionInfo = .compact("not-a-jws") } else { data.signedRenewalInfo = .compact("{}") }
        let payload = NotificationPayload(notificationType: "DID_RENEW", notificationUUID: UUID().uuidString, signedDate: Self.signed, data: data)
        let artefact = try ReceiptDecoder.decode(Array(try JWSBuilder(authority: ca).signedNotification(payload).utf8))
        let verdict = ReceiptVerifier(trust: ca.trustStore()).verify(artefact)
        #expect(verdict.status == .invalid)
        #expect(verdict.reason == "data.\(key) is present but is not a compact JWS: nothing signed vouches for it")
        // Apple's unsigned sample (placeholder strings) still decodes, and is unsigned.
        let sample = try ReceiptDecoder.decode(try Self.sample("notification-payload.json"))
        #expect(ReceiptVerifier(trust: ca.trustStore()).verify(sample).status == .unsigned)
    }

    @Test("Xcode artefacts given with the StoreKit testing certificate as anchor are valid, naming it; without it they stay unverifiable",
          arguments: [("xcode-transaction.jws", "xcode-storekit-testing-jws.cer", "StoreKit Testing in Xcode"),
                      ("xcode-renewal-info.jws", "xcode-storekit-testing-jws.cer", "StoreKit Testing in Xcode"),
                      ("xcode-app-transaction.jws", "xcode-storekit-testing-jws.cer", "StoreKit Testing in Xcode"),
                      ("unified-xcode-ber.b64", "StoreKitTestCertificate.cer", "StoreKit")])
    func xcodeWithItsAnchor(_ sample: String, _ certificate: String, _ anchorName: String) throws {
        let artefact = try ReceiptDecoder.decode(try Self.sample(sample))
        let apple = try TrustStore.apple()
        let without = ReceiptVerifier(trust: apple).verify(artefact)
        #expect(without.status == .unverifiable)
        #expect(without.reason.contains("--trust-anchor"))
        let certificateURL = certificate.hasSuffix("jws.cer") ? Self.samples.appendingPathComponent(certificate)
            : Self.samples.deletingLastPathComponent().appendingPathComponent("Certificates/\(certificate)")
        let anchor = try Certificate(der: Array(try Data(contentsOf: certificateURL)))
        let with = ReceiptVerifier(trust: apple.adding(anchors: [anchor])).verify(artefact)
        #expect(with.status == .valid, "\(with.reason)")
        #expect(with.extraAnchor == anchorName)
        #expect(with.reason.contains("trusted through the extra anchor \"\(anchorName)\""))
        // Another anchor does not vouch for it, and says which anchor was tried.
        let other = try TestCertificateAuthority.shared()
        let wrong = ReceiptVerifier(trust: apple.adding(anchors: [other.ecRoot, other.root])).verify(artefact)
        #expect(wrong.status == .unverifiable)
        #expect(wrong.reason.contains("tried the extra anchor"), "\(wrong.reason)")
    }

    @Test("an extra anchor named exactly like Apple's root is still used, and the verdict names it")
    func extraAnchorWithAnAppleName() throws {
        let impostor = try TestCertificateAuthority.shared(.impostor)
        #expect(impostor.root.commonName == "Apple Root CA")
        let purchase = ReceiptPurchase(productId: "p", transactionId: "1", purchaseDate: Self.signed, productTypeCode: 0)
        let receipt = try UnifiedReceiptBuilder(bundleId: "com.example", appVersion: "1", creationDate: Self.signed, purchases: [purchase])
            .build(signedBy: impostor)
        let artefact = try ReceiptDecoder.decode(Array(receipt.base64.utf8))
        let apple = try TrustStore.apple()
        // Apple's own roots never vouch for the impostor.
        let refused = ReceiptVerifier(trust: apple).verify(artefact)
        #expect(refused.status == .invalid)
        // Given explicitly, its root is tried even though Apple's root carries the same name.
        let verdict = ReceiptVerifier(trust: apple.adding(anchors: [impostor.root, impostor.ecRoot])).verify(artefact)
        #expect(verdict.status == .valid, "\(verdict.reason)")
        #expect(verdict.extraAnchor == "Apple Root CA")
        #expect(verdict.reason.contains("extra anchor \"Apple Root CA\""))
        // A failure through both says which anchors were tried.
        let standard = try TestCertificateAuthority.shared()
        let failed = ReceiptVerifier(trust: apple.adding(anchors: [standard.root])).verify(artefact)
        #expect(failed.status == .invalid)
        #expect(failed.reason.contains("through the extra anchor \"receiptdesk Test Root CA\" alone"), "\(failed.reason)")
    }

    @Test("a JWS that claims Xcode, or claims Production with Xcode's key id, is described as a claim, never as signed by Xcode's key")
    func xcodeClaims() throws {
        let ca = try TestCertificateAuthority.shared()
        var builder = JWSBuilder(signingKey: try PrivateKey.generateP256(), certificates: nil)
        builder.extraHeader = [("kid", .string("Apple_Xcode_Key"))]
        for environment in ["Xcode", "Production"] {
            let payload = TransactionPayload(transactionId: "9", bundleId: "com.example", productId: "p", type: "Non-Consumable",
                                             purchaseDate: Self.signed, signedDate: Self.signed, environment: environment)
            let artefact = try ReceiptDecoder.decode(Array(try builder.signedTransaction(payload).utf8))
            let verdict = ReceiptVerifier(trust: ca.trustStore()).verify(artefact)
            #expect(!verdict.reason.contains("signed by Xcode"), "\(verdict.reason)")
            #expect(verdict.reason.contains("claims \(environment)"), "\(verdict.reason)")
            // A claim of Production must verify as Apple's, and this one cannot.
            #expect(verdict.status == (environment == "Xcode" ? .unverifiable : .invalid))
        }
    }
}
