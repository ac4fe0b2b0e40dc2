import Foundation
import ReceiptCore
import StoreSimulator
import Testing

@Suite("JWS builder")
struct JWSBuilderTests {
    static let signed = Date(timeIntervalSince1970: 1_759_302_518.835)
    static let purchased = Date(timeIntervalSince1970: 1_759_302_552)

    /// A compact JWS taken apart: header and payload JSON, signature bytes, signing input.
    struct Parts {
        let header: [String: Any]
        let payload: [String: Any]
        let payloadBytes: [UInt8]
        let signature: [UInt8]
        let signingInput: String
    }

    static func base64URL(_ text: Substring) throws -> [UInt8] {
        #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Array(try #require(Data(base64Encoded: standard)))
    }

    static func parts(_ jws: String) throws -> Parts {
        let pieces = jws.split(separator: ".", omittingEmptySubsequences: false)
        try #require(pieces.count == 3)
        let header = try base64URL(pieces[0])
        let payload = try base64URL(pieces[1])
        return Parts(header: try #require(try JSONSerialization.jsonObject(with: Data(header)) as? [String: Any]),
                     payload: try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]),
                     payloadBytes: payload, signature: try base64URL(pieces[2]),
                     signingInput: pieces[0] + "." + pieces[1])
    }

    /// Checks the signature with x5c[0]'s key and returns the x5c certificates.
    static func verifiedChain(_ parts: Parts) throws -> [Certificate] {
        let x5c = try #require(parts.header["x5c"] as? [String])
        let certificates = try x5c.map { try Certificate(der: try #require(Data(base64Encoded: $0))) }
        let key = try #require(certificates.first).publicKey()
        #expect(parts.signature.count == 64)
        #expect(key.verifyES256(rawSignature: parts.signature, message: Array(parts.signingInput.utf8)))
        return certificates
    }

    static func transaction() -> TransactionPayload {
        var transaction = TransactionPayload(transactionId: "2000001024998954", originalTransactionId: "2000001024993299",
                                             bundleId: "com.example.game", productId: "pro.monthly",
                                             type: "Auto-Renewable Subscription", purchaseDate: purchased,
                                             originalPurchaseDate: Date(timeIntervalSince1970: 1_759_301_833),
                                             expiresDate: Date(timeIntervalSince1970: 1_759_302_732), signedDate: signed)
        transaction.webOrderLineItemId = "2000000113755461"
        transaction.subscriptionGroupIdentifier = "21752814"
        transaction.appAccountToken = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        transaction.revocationDate = Date(timeIntervalSince1970: 1_759_400_000)
        transaction.revocationReason = 1
        transaction.price = 1990
        transaction.currency = "AUD"
        transaction.extraMembers = [("futureField", .array([.int(1), .null]))]
        return transaction
    }

    @Test("a signed transaction has three parts, Apple's header, the payload, and a verifying signature")
    func signedTransaction() throws {
        let ca = try TestCertificateAuthority.shared()
        let jws = try JWSBuilder(authority: ca).signedTransaction(Self.transaction())
        let parts = try Self.parts(jws)
        #expect(parts.header["alg"] as? String == "ES256")
        #expect(parts.header.count == 2)
        let certificates = try Self.verifiedChain(parts)
        #expect(certificates.map(\.der) == [ca.ecLeaf.der, ca.ecIntermediate.der, ca.ecRoot.der])
        #expect(try ca.ecLeaf.publicKey().verifyES256(rawSignature: parts.signature, message: Array(parts.signingInput.utf8)))

        let p = parts.payload
        #expect(p["transactionId"] as? String == "2000001024998954")
        #expect(p["originalTransactionId"] as? String == "2000001024993299")
        #expect(p["bundleId"] as? String == "com.example.game")
        #expect(p["productId"] as? String == "pro.monthly")
        #expect(p["purchaseDate"] as? Int == 1_759_302_552_000)
        #expect(p["originalPurchaseDate"] as? Int == 1_759_301_833_000)
        #expect(p["expiresDate"] as? Int == 1_759_302_732_000)
        #expect(p["signedDate"] as? Int == 1_759_302_518_835)
        #expect(p["revocationDate"] as? Int == 1_759_400_000_000)
        #expect(p["revocationReason"] as? Int == 1)
        #expect(p["quantity"] as? Int == 1)
        #expect(p["type"] as? String == "Auto-Renewable Subscription")
        #expect(p["appAccountToken"] as? String == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(p["environment"] as? String == "Sandbox")
        #expect(p["inAppOwnershipType"] as? String == "PURCHASED")
        #expect(p["price"] as? Int == 1990)
        #expect(p["futureField"] as? [Any] != nil)
        // Member order is Apple's, so the text is stable.
        let text = String(decoding: parts.payloadBytes, as: UTF8.self)
        #expect(text.hasPrefix("{\"transactionId\":\"2000001024998954\",\"originalTransactionId\":\"2000001024993299\",\"webOrderLineItemId\""))
        #expect(text == Self.transaction().json.serialized())

        // The x5c chain verifies against the authority's EC root at the signed date.
        let chain = ChainVerifier.verify(leaf: certificates[0].der[...], intermediates: certificates.dropFirst().map { $0.der[...] },
                                         at: Self.signed, policy: .appStore, store: ca.trustStore())
        #expect(throws: Never.self) { try chain.get() }
    }

    @Test("renewal info and app transaction payloads")
    func otherPayloads() throws {
        let builder = JWSBuilder(authority: try TestCertificateAuthority.shared())
        var renewal = RenewalInfoPayload(originalTransactionId: "2000001024993299", productId: "pro.monthly", signedDate: Self.signed)
        renewal.renewalDate = Date(timeIntervalSince1970: 1_759_302_732)
        renewal.renewalPrice = 1990
        renewal.expirationIntent = 1
        let renewalParts = try Self.parts(try builder.signedRenewalInfo(renewal))
        _ = try Self.verifiedChain(renewalParts)
        #expect(renewalParts.payload["autoRenewProductId"] as? String == "pro.monthly")
        #expect(renewalParts.payload["autoRenewStatus"] as? Int == 1)
        #expect(renewalParts.payload["renewalDate"] as? Int == 1_759_302_732_000)
        #expect(renewalParts.payload["expirationIntent"] as? Int == 1)

        var app = AppTransactionPayload(bundleId: "com.example.game", applicationVersion: "42", originalApplicationVersion: "17",
                                        receiptCreationDate: Self.signed, originalPurchaseDate: Self.purchased)
        app.appAppleId = 1234
        app.signedDate = Self.signed
        let appParts = try Self.parts(try builder.signedAppTransaction(app))
        _ = try Self.verifiedChain(appParts)
        #expect(appParts.payload["receiptType"] as? String == "Sandbox")
        #expect(appParts.payload["originalApplicationVersion"] as? String == "17")
        #expect(appParts.payload["appAppleId"] as? Int == 1234)
        #expect(appParts.payload["receiptCreationDate"] as? Int == 1_759_302_518_835)
    }

    @Test("a notification nests signed transaction and renewal info and posts as signedPayload")
    func notification() throws {
        let ca = try TestCertificateAuthority.shared()
        let builder = JWSBuilder(authority: ca)
        let notification = NotificationPayload(
            notificationType: "SUBSCRIBED", subtype: "INITIAL_BUY", notificationUUID: "002e14d5-51f5-4503-b5a8-c3a1af68eb20",
            signedDate: Self.signed,
            data: NotificationData(appAppleId: 41234, bundleId: "com.example.game", bundleVersion: "1.2.3",
                                   signedTransactionInfo: .payload(Self.transaction()),
                                   signedRenewalInfo: .payload(RenewalInfoPayload(originalTransactionId: "2000001024993299",
                                                                                  productId: "pro.monthly", signedDate: Self.signed)),
                                   status: 1))
        let body = try builder.notificationBody(notification)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String])
        #expect(Array(object.keys) == ["signedPayload"])
        let outer = try Self.parts(try #require(object["signedPayload"]))
        _ = try Self.verifiedChain(outer)
        #expect(outer.payload["notificationType"] as? String == "SUBSCRIBED")
        #expect(outer.payload["subtype"] as? String == "INITIAL_BUY")
        #expect(outer.payload["notificationUUID"] as? String == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        #expect(outer.payload["version"] as? String == "2.0")
        #expect(outer.payload["signedDate"] as? Int == 1_759_302_518_835)
        let data = try #require(outer.payload["data"] as? [String: Any])
        #expect(data["appAppleId"] as? Int == 41234)
        #expect(data["bundleVersion"] as? String == "1.2.3")
        #expect(data["environment"] as? String == "Sandbox")
        #expect(data["status"] as? Int == 1)
        let nested = try Self.parts(try #require(data["signedTransactionInfo"] as? String))
        _ = try Self.verifiedChain(nested)
        #expect(nested.payload["transactionId"] as? String == "2000001024998954")
        let renewal = try Self.parts(try #require(data["signedRenewalInfo"] as? String))
        _ = try Self.verifiedChain(renewal)
        #expect(renewal.payload["productId"] as? String == "pro.monthly")

        // A nested JWS from elsewhere is used as given.
        let foreign = try JWSBuilder(authority: try TestCertificateAuthority.shared(.impostor)).signedTransaction(Self.transaction())
        var mixed = notification
        mixed.data?.signedTransactionInfo = .compact(foreign)
        mixed.data?.signedRenewalInfo = nil
        let mixedData = try #require(try Self.parts(try builder.signedNotification(mixed)).payload["data"] as? [String: Any])
        #expect(mixedData["signedTransactionInfo"] as? String == foreign)
        #expect(mixedData["signedRenewalInfo"] == nil)
    }

    @Test("header and signature options for negative tests")
    func negativeOptions() throws {
        let ca = try TestCertificateAuthority.shared()
        var builder = JWSBuilder(authority: ca)
        builder.corruptSignature = true
        let corrupted = try Self.parts(try builder.sign(.object([("a", .int(1))])))
        #expect(!(try ca.ecLeaf.publicKey().verifyES256(rawSignature: corrupted.signature, message: Array(corrupted.signingInput.utf8))))

        builder = JWSBuilder(authority: ca)
        builder.algorithm = "HS256"
        builder.certificates = nil
        builder.extraHeader = [("kid", .string("Apple_Xcode_Key")), ("x5cwrong", .array([]))]
        let header = try Self.parts(try builder.sign(.object([]))).header
        #expect(header["alg"] as? String == "HS256")
        #expect(header["x5c"] == nil)
        #expect(header["kid"] as? String == "Apple_Xcode_Key")
        #expect(header["x5cwrong"] != nil)

        let raw = try JWSBuilder(authority: ca).sign(payloadBytes: Array("not json".utf8))
        #expect(try Self.base64URL(raw.split(separator: ".")[1]) == Array("not json".utf8))

        // Dates beyond Int64 milliseconds clamp instead of trapping.
        var extreme = Self.transaction()
        extreme.purchaseDate = Date(timeIntervalSince1970: 1e300)
        extreme.expiresDate = Date(timeIntervalSince1970: -1e300)
        extreme.revocationDate = Date(timeIntervalSince1970: .nan)
        let clamped = try Self.parts(try JWSBuilder(authority: ca).signedTransaction(extreme)).payload
        #expect(clamped["purchaseDate"] as? Int == Int.max)
        #expect(clamped["expiresDate"] as? Int == Int.min)
        #expect(clamped["revocationDate"] as? Int == 0)

        let rsa = JWSBuilder(signingKey: ca.receiptLeafKey, certificates: ca.receiptChain.certificates)
        #expect(throws: ReceiptError(.configuration, "")) { try rsa.sign(.object([])) }
    }

    @Test("the impostor's JWS verifies with its own key but not through the test root")
    func impostorJWS() throws {
        let impostor = try TestCertificateAuthority.shared(.impostor)
        let parts = try Self.parts(try JWSBuilder(authority: impostor).signedTransaction(Self.transaction()))
        let certificates = try Self.verifiedChain(parts)
        #expect(certificates.map(\.commonName) == ["Prod ECC Mac App Store and iTunes Store Receipt Signing",
                                                   "Apple Worldwide Developer Relations Certification Authority", "Apple Root CA - G3"])
        for store in [try TestCertificateAuthority.shared().trustStore(), try TrustStore.apple()] {
            let chain = ChainVerifier.verify(leaf: certificates[0].der[...], intermediates: [certificates[1].der[...]],
                                             at: Self.signed, policy: .appStore, store: store)
            #expect(throws: ChainFailure.self) { try chain.get() }
        }
    }
}
