import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// The notification types Apple added since 2024 (App Store Server Notifications 2.10–2.19):
/// Advanced Commerce's METADATA_UPDATE, MIGRATION and PRICE_CHANGE (about a subscription, in
/// `data`), RESCIND_CONSENT (about an account, in `appData`) and EXTERNAL_PURCHASE_TOKEN /
/// UNREPORTED (about a token, in `externalPurchaseToken`): each decoded, verified, applied or
/// recorded, on both backends; forged ones refused.
@Suite("Notification types added since 2024")
struct NewNotificationTypesTests {
    static func day(_ n: Double) -> Date { LedgerFixture.date("2025-01-01T00:00:00Z").addingTimeInterval(n * 86_400) }

    /// A ledger where eva bought the monthly subscription at the simulator (account "eva").
    struct Subscriber {
        let f: BackendLedgerFixture
        let state: SimulatorState
        let original: String

        init(_ backend: TestBackend) throws {
            f = try BackendLedgerFixture(backend, now: "2025-01-01T00:00:00Z")
            state = SimulatorState(authority: f.authority, bundleId: "com.example.app")
            var purchase = SimulatedPurchase(productId: "com.example.pro.monthly", type: .autoRenewable, purchaseDate: NewNotificationTypesTests.day(0),
                                             expiresDate: NewNotificationTypesTests.day(30))
            purchase.price = 4990
            purchase.currency = "EUR"
            let receipt = try state.mintUnifiedReceipt(environment: .production, purchases: [purchase], account: "eva")
            _ = try f.ledger.importArtefact(Array(receipt.base64.utf8), customer: "eva", source: "test", operatorName: "mei")
            original = try #require(receipt.transactions.first?.transactionId)
        }

        func apply(_ minted: MintedNotification, at day: Double) throws -> NotificationResult {
            f.now = NewNotificationTypesTests.day(day)
            return try f.ledger.applyNotification(Array(minted.body.utf8), operatorName: "apple")
        }

        func pro() throws -> Bool { try f.ledger.entitlements("eva", now: f.now).first { $0.name == "pro" }?.isActive ?? false }

        func appTransactionId(ofTransaction id: String) throws -> String? {
            try f.database.queryFirst("SELECT app_transaction_id FROM transactions WHERE transaction_id = ?", [.text(id)])?
                .string("app_transaction_id")
        }
    }

    @Test(arguments: TestBackend.available) func advancedCommerceChangesAreRecordedAndChangeNoAccess(_ backend: TestBackend) throws {
        let s = try Subscriber(backend)
        #expect(try s.appTransactionId(ofTransaction: s.original) == nil, "a unified receipt names no app transaction")
        for (type, day) in [("MIGRATION", 2.0), ("METADATA_UPDATE", 3.0), ("PRICE_CHANGE", 4.0)] {
            let minted = try s.state.advancedCommerceChange(type, originalTransactionId: s.original, renewalPrice: type == "PRICE_CHANGE" ? 6990 : nil,
                                                            date: Self.day(day))
            let decoded = try ServerNotification(compactJWS: minted.signedPayload)
            #expect(decoded.type?.rawValue == type && decoded.transaction != nil && decoded.renewalInfo != nil)
            #expect(ReceiptVerifier(trust: s.f.trust, expectedBundleIds: ["com.example.app"]).verify(decoded).status == .valid)
            let result = try s.apply(minted, at: day)
            #expect(result.applied && result.customerId == "eva", "\(type): \(result.outcome)")
            #expect(try s.pro(), "\(type) changes no access")
        }
        let kinds = try s.f.ledger.subscriptionEvents(of: "eva").map(\.kind)
        #expect(kinds == ["migrated", "metadata update", "price change"], "\(kinds)")
        #expect(try s.f.ledger.subscriptionEvents(of: "eva").last?.detail.contains("6.99 EUR") == true)
        let state = try #require(try s.f.ledger.subscriptionState(original: s.original))
        #expect(state.renewalPrice == 6990)
        // The signed transaction named the app download: the receipt's row learnt it.
        let expected = SimulatorRecords.appTransactionId(bundleId: "com.example.app", account: "eva", environment: .production)
        #expect(try s.appTransactionId(ofTransaction: s.original) == expected)
    }

    @Test(arguments: TestBackend.available) func rescindedConsentIsRecordedForTheCustomerWithoutChangingWhatTheyOwn(_ backend: TestBackend) throws {
        let s = try Subscriber(backend)
        _ = try s.apply(s.state.setAutoRenew(originalTransactionId: s.original, enabled: false, date: Self.day(1)), at: 1)  // names the app download
        let minted = try s.state.rescindConsent(account: "eva", environment: .production, date: Self.day(5))
        let decoded = try ServerNotification(compactJWS: minted.signedPayload)
        let appTransactionId = SimulatorRecords.appTransactionId(bundleId: "com.example.app", account: "eva", environment: .production)
        #expect(decoded.type == .rescindConsent && decoded.bundleId == "com.example.app" && decoded.environment.environment == .production)
        #expect(decoded.appData?.appTransaction?.appTransactionId == appTransactionId && decoded.transaction == nil)
        // No `data.bundleId`: the app is the one `appData` names, and it is this app.
        #expect(ReceiptVerifier(trust: s.f.trust, expectedBundleIds: ["com.example.app"]).verify(decoded).status == .valid)
        let before = try s.f.ledger.entitlements("eva", now: Self.day(5)).map(\.reasonAfterName)
        let result = try s.apply(minted, at: 5)
        #expect(result.applied && result.customerId == "eva" && result.changes.isEmpty, "\(result.outcome)")
        #expect(result.outcome.hasPrefix("consent rescinded: a parent or guardian withdrew consent for customer eva's use of the app (app transaction \(appTransactionId))"),
                "\(result.outcome)")
        #expect(result.outcome.contains("purchases and entitlements are unchanged"))
        #expect(try s.f.ledger.entitlements("eva", now: Self.day(5)).map(\.reasonAfterName) == before)
        #expect(try s.pro())
        let row = try #require(try s.f.database.queryFirst("SELECT customer_id, app_transaction_id, outcome FROM notifications WHERE notification_uuid = ?",
                                                            [.text(minted.record.notificationUUID)]))
        #expect(row.string("customer_id") == "eva" && row.string("app_transaction_id") == appTransactionId)
        // Sent again: once only.
        #expect(try !s.apply(minted, at: 6).applied)
        // An account nobody here knows: recorded, for no one.
        let other = try s.state.mintSignedTransaction(environment: .production,
                                                      purchase: SimulatedPurchase(productId: "com.example.pro.lifetime", type: .nonConsumable,
                                                                                  purchaseDate: Self.day(2)),
                                                      account: "zoe", signedDate: Self.day(2))
        _ = other
        let stranger = try s.apply(s.state.rescindConsent(account: "zoe", environment: .production, date: Self.day(7)), at: 7)
        #expect(stranger.applied && stranger.customerId == nil && stranger.outcome.hasPrefix("consent rescinded"), "\(stranger.outcome)")
    }

    @Test(arguments: TestBackend.available) func anUnreportedExternalPurchaseTokenIsRecorded(_ backend: TestBackend) throws {
        let s = try Subscriber(backend)
        let minted = try s.state.unreportedExternalPurchaseToken(externalPurchaseId: "b2158121-7af9-49d4-9561-1f588205523e",
                                                                 tokenCreationDate: Self.day(1), environment: .sandbox, date: Self.day(11))
        let decoded = try ServerNotification(compactJWS: minted.signedPayload)
        #expect(decoded.type == .externalPurchaseToken && decoded.subtype == "UNREPORTED")
        #expect(decoded.externalPurchaseToken?.externalPurchaseId == "SANDBOX_b2158121-7af9-49d4-9561-1f588205523e")
        #expect(decoded.environment.environment == .sandbox && decoded.bundleId == "com.example.app")
        #expect(ReceiptVerifier(trust: s.f.trust, expectedBundleIds: ["com.example.app"]).verify(decoded).status == .valid)
        let result = try s.apply(minted, at: 11)
        #expect(result.applied && result.customerId == nil && result.changes.isEmpty)
        #expect(result.outcome == "external purchase token SANDBOX_b2158121-7af9-49d4-9561-1f588205523e created 2025-01-02T00:00:00Z was never reported to Apple: report it with the External Purchase Server API; nothing owned changes",
                "\(result.outcome)")
    }

    @Test(arguments: TestBackend.available) func forgedOnesAreRefused(_ backend: TestBackend) throws {
        let s = try Subscriber(backend)
        let genuine = JWSBuilder(authority: s.f.authority)
        let records = s.state.snapshot()
        let app = try #require(records.appTransaction(account: "eva", environment: .production, signedDate: Self.day(5)))
        func rescind(_ appData: NotificationAppDataPayload) -> NotificationPayload {
            var payload = NotificationPayload(notificationType: "RESCIND_CONSENT", notificationUUID: UUID().uuidString.lowercased(),
                                              signedDate: Self.day(5), data: nil)
            payload.appData = appData
            return payload
        }
        func refusal(_ body: String) -> String {
            do {
                _ = try s.f.ledger.applyNotification(Array(body.utf8), operatorName: "apple")
                return "applied"
            } catch let error as StoreError {
                return error.code == .notVerified ? error.reason : "\(error)"
            } catch {
                return "\(error)"
            }
        }
        // The app transaction inside signed by someone else.
        let impostor = try JWSBuilder(authority: TestCertificateAuthority.shared(.impostor)).signedAppTransaction(app)
        let forgedInside = try genuine.notificationBody(rescind(NotificationAppDataPayload(appAppleId: records.appAppleId, bundleId: "com.example.app",
                                                                                           environment: "Production",
                                                                                           signedAppTransactionInfo: .compact(impostor))))
        #expect(refusal(forgedInside).contains("appData.signedAppTransactionInfo"), "\(refusal(forgedInside))")
        // Another app's consent.
        let otherApp = try genuine.notificationBody(rescind(NotificationAppDataPayload(appAppleId: records.appAppleId, bundleId: "com.example.other",
                                                                                       environment: "Production", signedAppTransactionInfo: .payload(app))))
        #expect(refusal(otherApp).contains("invalid app identifier"), "\(refusal(otherApp))")
        // Not a JWS where the app transaction belongs.
        let unsigned = try genuine.notificationBody(rescind(NotificationAppDataPayload(appAppleId: records.appAppleId, bundleId: "com.example.app",
                                                                                       environment: "Production",
                                                                                       signedAppTransactionInfo: .compact("signed_app_transaction_info_value"))))
        #expect(refusal(unsigned).contains("appData.signedAppTransactionInfo is present but is not a compact JWS"), "\(refusal(unsigned))")
        // The whole notification signed by someone else.
        let outer = try JWSBuilder(authority: TestCertificateAuthority.shared(.impostor))
            .notificationBody(rescind(NotificationAppDataPayload(appAppleId: records.appAppleId, bundleId: "com.example.app", environment: "Production",
                                                                 signedAppTransactionInfo: .payload(app))))
        #expect(refusal(outer) != "applied")
        #expect(try s.f.database.queryFirst("SELECT count(*) AS n FROM notifications WHERE notification_type = 'RESCIND_CONSENT'", [])?.int("n") == 0)
    }
}
