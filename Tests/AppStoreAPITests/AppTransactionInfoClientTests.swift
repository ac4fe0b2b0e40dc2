import Foundation
import StoreSimulator
import Testing
@testable import AppStoreAPI
@testable import ReceiptCore

/// Get App Transaction Info (`GET /inApps/v1/transactions/appTransactions/{anyTransactionId}`):
/// the path, the verified answer, Apple's error codes for it by name, and a forged answer refused.
@Suite("AppStore: Get App Transaction Info")
struct AppTransactionInfoClientTests {
    typealias F = ServerAPIFixtures

    static func appTransaction(environment: String = "Production", bundleId: String = "com.example.game",
                               builder: JWSBuilder? = nil) throws -> String {
        var payload = AppTransactionPayload(bundleId: bundleId, applicationVersion: "42", originalApplicationVersion: "17",
                                            receiptCreationDate: F.now, originalPurchaseDate: F.now.addingTimeInterval(-86_400),
                                            receiptType: environment)
        payload.signedDate = F.now
        payload.appTransactionId = "704897469903383919"
        return try (builder ?? JWSBuilder(authority: try TestCertificateAuthority.shared())).signedAppTransaction(payload)
    }

    static func answer(_ jws: String) -> ScriptedTransport.Step {
        ScriptedTransport.json(#"{"signedAppTransactionInfo":"\#(jws)"}"#)
    }

    @Test func anyTransactionIdGivesTheVerifiedAppTransaction() async throws {
        let transport = ScriptedTransport([Self.answer(try Self.appTransaction())])
        let info = try await F.client(transport).0.appTransactionInfo("2000000000000042")
        #expect(info.appTransaction.appTransaction.appTransactionId == "704897469903383919")
        #expect(info.appTransaction.verdict.status == .valid && info.environment == .production)
        #expect(info.attempts.first?.endpoint == "http://127.0.0.1:9/production/inApps/v1/transactions/appTransactions/2000000000000042")
    }

    @Test func applesErrorsAreNamed() async throws {
        // Apple's library test resource appTransactionDoesNotExistError.json.
        let missing = ScriptedTransport.json(#"{"errorCode": 4040019, "errorMessage": "No AppTransaction exists for the customer."}"#, status: 404)
        let transport = ScriptedTransport([missing])
        do {
            _ = try await F.client(transport).0.appTransactionInfo("2000000000000042", environment: .production)
            Issue.record("an error answer was accepted")
        } catch let error as AppStoreError {
            #expect(error.apiError == .appTransactionDoesNotExist && error.apiError?.name == "appTransactionDoesNotExist")
            #expect(error.reason.contains("No AppTransaction exists for the customer."), "\(error.reason)")
        }
        #expect(transport.requests.count == 1, "4040019 is not retried, nor asked of the other environment")
        for code: Int64 in [4000006, 4040010, 4040019, 4290000, 5000000, 5000001] {
            #expect(AppStoreAPIErrorCode(rawValue: code).isKnown, "\(code)")
        }
    }

    @Test func aForgedOrForeignAppTransactionIsRefused() async throws {
        let impostor = JWSBuilder(authority: try TestCertificateAuthority.shared(.impostor))
        for jws in [try Self.appTransaction(builder: impostor), try Self.appTransaction(bundleId: "com.example.other"),
                    try Self.appTransaction(environment: "Sandbox")] {
            let transport = ScriptedTransport([Self.answer(jws)])
            do {
                _ = try await F.client(transport).0.appTransactionInfo("2000000000000042", environment: .production)
                Issue.record("a forged or foreign app transaction was accepted")
            } catch let error as AppStoreError {
                #expect(error.code == .unverified, "\(error)")
            }
        }
    }
}
