import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// Get App Transaction Info over loopback: any of the customer's transaction ids, original
/// transaction ids or app transaction id gives their signed app transaction, whose
/// `appTransactionId` every transaction of theirs carries too.
@Suite("Simulator Get App Transaction Info")
struct AppTransactionEndpointTests {
    @Test("any id of the account answers its app transaction; unknown ids are 404 4040010, non-numeric 400 4000006")
    func appTransactionInfo() throws {
        let fixture = try SimulatorFixture()
        let first = try fixture.state.mintSignedTransaction(environment: .sandbox, purchase: SimulatorFixture.monthly(SimulatorFixture.day(-3)),
                                                            account: "ann", signedDate: SimulatorFixture.now)
        let transaction = try SignedTransaction(compactJWS: first.jws)
        let appTransactionId = try #require(transaction.appTransactionId)
        #expect(appTransactionId == SimulatorRecords.appTransactionId(bundleId: fixture.state.bundleId, account: "ann", environment: .sandbox))
        #expect(appTransactionId.count == 18 && appTransactionId.allSatisfy(\.isNumber))
        #expect(appTransactionId != SimulatorRecords.appTransactionId(bundleId: fixture.state.bundleId, account: "ann", environment: .production),
                "each environment is another download")
        let verifier = ReceiptVerifier(trust: fixture.state.authority.trustStore())
        for id in [first.transaction.transactionId, appTransactionId] {
            let response = try fixture.api(.sandbox, "/inApps/v1/transactions/appTransactions/\(id)")
            #expect(response.status == 200, "\(id)")
            let app = try AppTransaction(compactJWS: try #require(try response.json().string("signedAppTransactionInfo")))
            #expect(verifier.verify(.appTransaction(app)).isValid)
            #expect(app.appTransactionId == appTransactionId && app.environment.environment == .sandbox && app.bundleId == fixture.state.bundleId)
        }
        let elsewhere = try fixture.api(.production, "/inApps/v1/transactions/appTransactions/\(appTransactionId)")
        #expect(try elsewhere.status == 404 && elsewhere.json().int("errorCode") == 4040010)
        let bad = try fixture.api(.sandbox, "/inApps/v1/transactions/appTransactions/abc")
        #expect(try bad.status == 400 && bad.json().int("errorCode") == 4000006)
    }

    /// API 1.20: transaction history, subscription statuses and refund look-up take any of a
    /// transaction id, an original transaction id or the app transaction id, and answer the same.
    @Test("history, statuses and refund look-up answer alike for any id of the account")
    func anyTransactionIdPaths() throws {
        let fixture = try SimulatorFixture()
        let first = try fixture.state.mintSignedTransaction(environment: .sandbox, purchase: SimulatorFixture.monthly(SimulatorFixture.day(-3)),
                                                            account: "bea", signedDate: SimulatorFixture.now)
        let appTransactionId = try #require(try SignedTransaction(compactJWS: first.jws).appTransactionId)
        // Signatures differ from answer to answer (ECDSA): compare what the answers say.
        func said(_ body: [UInt8]) -> String {
            let text = String(decoding: body, as: UTF8.self)
            return text.split(separator: "\"").filter { $0.hasPrefix("eyJ") }
                .compactMap { try? SignedTransaction(compactJWS: String($0)).purchase.transactionId }.joined(separator: ",")
                + (text.contains("lastTransactions") ? " statuses" : "")
        }
        for path in ["/inApps/v2/history/", "/inApps/v1/subscriptions/", "/inApps/v2/refund/lookup/"] {
            let byTransaction = try fixture.api(.sandbox, path + first.transaction.transactionId)
            let byApp = try fixture.api(.sandbox, path + appTransactionId)
            #expect(byTransaction.status == 200 && byApp.status == 200, "\(path): \(byApp.status)")
            #expect(said(byApp.body) == said(byTransaction.body), "\(path): the same answer from the app transaction id")
        }
        #expect(said(try fixture.api(.sandbox, "/inApps/v2/history/" + appTransactionId).body) == first.transaction.transactionId)
        let unknown = try fixture.api(.sandbox, "/inApps/v2/history/700000000000000001")
        #expect(try unknown.status == 404 && unknown.json().int("errorCode") == 4040010)
    }
}
