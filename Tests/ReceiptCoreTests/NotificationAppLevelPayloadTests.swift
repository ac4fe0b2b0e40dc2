import Foundation
import ReceiptCore
import Testing

/// Apple's own samples of the notifications that carry no `data` (apple/app-store-server-library
/// Tests/.../resources/models/signedRescindConsentNotification.json and
/// signedExternalPurchaseToken{,Sandbox}Notification.json, copied as facts): the app and
/// environment are read from `appData` or `externalPurchaseToken`, as Apple's verifier reads them.
@Suite("Notifications without `data`: appData and externalPurchaseToken")
struct NotificationAppLevelPayloadTests {
    static let rescindConsent = """
        {"notificationType":"RESCIND_CONSENT","notificationUUID":"002e14d5-51f5-4503-b5a8-c3a1af68eb20",
         "appData":{"appAppleId":41234,"bundleId":"com.example","environment":"LocalTesting",
                    "signedAppTransactionInfo":"signed_app_transaction_info_value"},
         "version":"2.0","signedDate":1698148900000}
        """
    static func token(_ id: String) -> String {
        """
        {"notificationType":"EXTERNAL_PURCHASE_TOKEN","subtype":"UNREPORTED","notificationUUID":"002e14d5-51f5-4503-b5a8-c3a1af68eb20",
         "version":"2.0","signedDate":1698148900000,
         "externalPurchaseToken":{"externalPurchaseId":"\(id)","tokenCreationDate":1698148950000,"appAppleId":55555,"bundleId":"com.example"}}
        """
    }

    static func notification(_ json: String) throws -> ServerNotification {
        guard case .notification(let n) = try ReceiptDecoder.decode(Array(json.utf8)) else {
            throw ReceiptError(.unknownFormat, "not decoded as a notification")
        }
        return n
    }

    @Test func rescindConsentReadsTheAppFromAppData() throws {
        let n = try Self.notification(Self.rescindConsent)
        #expect(n.type == .rescindConsent && n.notificationType == "RESCIND_CONSENT")
        #expect(n.bundleId == "com.example" && n.appAppleId == 41234 && n.environment.environment == .localTesting)
        #expect(n.appData?.rawEnvironment == "LocalTesting" && n.appData?.appTransaction == nil)
        // Apple's sample holds a placeholder where the signed app transaction goes: named, so a
        // signed notification carrying one is refused.
        #expect(n.nestedNotJWS == ["appData.signedAppTransactionInfo"])
        let tree = DecodedArtefact.notification(n).tree(now: Date(timeIntervalSince1970: 1_698_148_900))
        #expect(TreeTextRenderer.lines(tree).contains { $0.contains("appData") })
    }

    @Test func externalPurchaseTokenReadsTheEnvironmentFromTheId() throws {
        let production = try Self.notification(Self.token("b2158121-7af9-49d4-9561-1f588205523e"))
        #expect(production.type == .externalPurchaseToken && production.subtype == "UNREPORTED")
        #expect(production.bundleId == "com.example" && production.appAppleId == 55555)
        #expect(production.environment.environment == .production)
        #expect(production.externalPurchaseToken?.tokenCreationDate == Date(timeIntervalSince1970: 1_698_148_950))
        let sandbox = try Self.notification(Self.token("SANDBOX_b2158121-7af9-49d4-9561-1f588205523e"))
        #expect(sandbox.environment.environment == .sandbox)
    }

    @Test func everyTypeAppleNamesIsKnown() {
        for raw in ["METADATA_UPDATE", "MIGRATION", "PRICE_CHANGE", "RESCIND_CONSENT", "EXTERNAL_PURCHASE_TOKEN", "ONE_TIME_CHARGE"] {
            #expect(NotificationType(rawValue: raw) != nil, "\(raw)")
        }
    }
}
