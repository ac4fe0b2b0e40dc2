import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

// Run on every backend (TestBackend.available): SQLite always, PostgreSQL when
// RECEIPTDESK_TEST_POSTGRES_URL names a test server (make test starts one).

@Suite("Ledger import on both backends: dedup, conflicts, invalid receipts")
struct ImportTests {
    @Test(arguments: TestBackend.available) func sameReceiptTwiceLeavesTheDatabaseAsAfterTheFirst(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let bytes = try f.receipt([LedgerFixture.purchase("1001"), LedgerFixture.purchase("1002", "com.example.coins.100", type: 1)])
        let first = try f.ledger.importArtefact(bytes, customer: "alice", source: "test", operatorName: "mei")
        #expect(first.changedDatabase)
        #expect(first.transactions.count == 2)
        let after = try f.dumpWithoutTrace()
        f.now = f.now.addingTimeInterval(60)
        let second = try f.ledger.importArtefact(bytes, customer: "alice", source: "test", operatorName: "mei")
        #expect(!second.changedDatabase)
        #expect(second.transactions.allSatisfy { $0.outcome == .duplicate })
        #expect(try f.dumpWithoutTrace() == after)
        #expect(try f.count("SELECT count(*) AS n FROM arrivals") == 2, "each repeat leaves a trace")
    }

    @Test(arguments: TestBackend.available) func transactionsAlreadySeenThroughAnotherReceiptChangeNothing(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("2001"), LedgerFixture.purchase("2002")]),
                                        customer: "alice", source: "test", operatorName: "mei")
        let after = try f.dumpWithoutTrace()
        // StoreKit's repeated callback: a refreshed receipt (new bytes) with the same transactions.
        let refreshed = try f.receipt([LedgerFixture.purchase("2002"), LedgerFixture.purchase("2001")], created: "2025-05-02T00:00:00Z")
        let result = try f.ledger.importArtefact(refreshed, customer: "alice", source: "test", operatorName: "mei")
        #expect(!result.changedDatabase)
        #expect(try f.dumpWithoutTrace() == after)
        #expect(try f.ledger.transaction("2001")?.repeatArrivals == 1)
        // A later receipt with one new transaction records only that one.
        let later = try f.receipt([LedgerFixture.purchase("2001"), LedgerFixture.purchase("2003", bought: "2025-06-01T00:00:00Z")],
                                  created: "2025-06-01T00:00:00Z")
        let third = try f.ledger.importArtefact(later, customer: "alice", source: "test", operatorName: "mei")
        #expect(third.transactions.filter { $0.outcome == .duplicate }.map(\.transactionId) == ["2001"])
        #expect(try f.count("SELECT count(*) AS n FROM transactions") == 3)
        #expect(try f.count("SELECT count(*) AS n FROM transactions WHERE transaction_id = '2003' AND first_receipt_id = ?",
                            [.integer(third.receiptId ?? 0)]) == 1)
    }

    @Test(arguments: TestBackend.available) func aSecondCustomerOpensAConflictAndGetsNothing(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let bytes = try f.receipt([LedgerFixture.purchase("3001", "com.example.pro.lifetime", expires: nil, type: 0)])
        _ = try f.ledger.importArtefact(bytes, customer: "alice", source: "test", operatorName: "mei")
        let result = try f.ledger.importArtefact(bytes, customer: "bob", source: "test", operatorName: "mei")
        guard case .conflict(let owner, _) = result.transactions.first?.outcome else { Issue.record("no conflict"); return }
        #expect(owner == "alice")
        #expect(try f.ledger.conflicts().count == 1)
        #expect(try f.ledger.entitlements("bob", now: f.now).allSatisfy { !$0.isActive })
        #expect(try f.ledger.entitlements("alice", now: f.now).first { $0.name == "pro" }?.isActive == true)
        // Bob trying again opens nothing new (it leaves a trace, presented for bob).
        let before = try f.dumpWithoutTrace()
        let again = try f.ledger.importArtefact(bytes, customer: "bob", source: "test", operatorName: "mei")
        #expect(!again.changedDatabase)
        #expect(try f.dumpWithoutTrace() == before)
        #expect(try f.ledger.arrivals(ofTransaction: "3001").first?.presentedFor == "bob")
    }

    @Test(arguments: TestBackend.available) func invalidReceiptsAreStoredFlaggedAndGrantNothing(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        var builder = UnifiedReceiptBuilder(bundleId: "com.example.app", appVersion: "1", creationDate: LedgerFixture.date("2025-05-01T00:00:00Z"),
                                            purchases: [LedgerFixture.purchase("4001", "com.example.pro.lifetime", expires: nil, type: 0)])
        builder.receiptType = "Production"
        let forged = Array(try builder.build(signedBy: try TestCertificateAuthority.shared(.impostor)).base64.utf8)
        let result = try f.ledger.importArtefact(forged, customer: "mallory", source: "test", operatorName: "mei")
        #expect(result.verdict.status == .invalid)
        #expect(result.transactions.isEmpty)
        #expect(try f.count("SELECT count(*) AS n FROM receipts WHERE verdict = 'invalid'") == 1)
        #expect(try f.count("SELECT count(*) AS n FROM transactions") == 0)
        #expect(try f.ledger.entitlements("mallory", now: f.now).isEmpty)
        // A genuine receipt with the same transaction afterwards still counts.
        let genuine = try f.receipt([LedgerFixture.purchase("4001", "com.example.pro.lifetime", expires: nil, type: 0)])
        let real = try f.ledger.importArtefact(genuine, customer: "mallory", source: "test", operatorName: "mei")
        #expect(real.transactions.first?.outcome == .recorded(binding: .unbound, orderId: nil))
    }

    @Test(arguments: TestBackend.available) func oneReceiptWithManyTransactionsRecordsEachOnce(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let purchases = (0..<50).map { LedgerFixture.purchase(String(5000 + $0), "com.example.coins.100", bought: "2025-05-0\($0 % 9 + 1)T00:00:00Z", expires: nil, type: 1) }
        let result = try f.ledger.importArtefact(try f.receipt(purchases), customer: "carol", source: "test", operatorName: "mei")
        #expect(result.transactions.count == 50)
        #expect(try f.count("SELECT count(*) AS n FROM transactions WHERE customer_id = 'carol'") == 50)
        let coins = try #require(try f.ledger.entitlements("carol", now: f.now).first { $0.name == "coins" })
        #expect(coins.balance == 5000)
    }

    @Test(arguments: TestBackend.available) func sandboxPurchasesAreFlaggedAndGrantOnlyToTesters(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let bytes = try f.receipt([LedgerFixture.purchase("6001", "com.example.pro.lifetime", expires: nil, type: 0)], type: "ProductionSandbox")
        let result = try f.ledger.importArtefact(bytes, customer: "reviewer", source: "test", operatorName: "mei")
        #expect(result.environment == .sandbox)
        #expect(result.notes.contains { $0.contains("SANDBOX") })
        #expect(try f.ledger.entitlements("reviewer", now: f.now).first { $0.name == "pro" }?.isActive == false)
        try f.ledger.addCustomer("reviewer", isTester: true, operatorName: "mei")
        #expect(try f.ledger.entitlements("reviewer", now: f.now).first { $0.name == "pro" }?.isActive == true)
    }

    @Test(arguments: TestBackend.available) func paidToFreeCustomersKeepTheirFeatures(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        _ = try f.ledger.importArtefact(try f.receipt([], originalAppVersion: "41"), customer: "oldtimer", source: "test", operatorName: "mei")
        let pro = try #require(try f.ledger.entitlements("oldtimer", now: f.now).first { $0.name == "pro" })
        #expect(pro.isActive)
        #expect(pro.reason.contains("legacy paid purchase"))
        _ = try f.ledger.importArtefact(try f.receipt([], originalAppVersion: "43"), customer: "newcomer", source: "test", operatorName: "mei")
        #expect(try f.ledger.entitlements("newcomer", now: f.now).first { $0.name == "pro" }?.isActive != true)
        // The sandbox always says "1.0": flagged, not trusted.
        try f.ledger.addCustomer("reviewer", isTester: true, operatorName: "mei")
        _ = try f.ledger.importArtefact(try f.receipt([], type: "ProductionSandbox", originalAppVersion: "1.0"),
                                        customer: "reviewer", source: "test", operatorName: "mei")
        let sandbox = try f.ledger.entitlements("reviewer", now: f.now).first { $0.name == "pro" }
        #expect(sandbox?.isActive != true)
        #expect(sandbox?.sources.contains { $0.flags.contains { $0.contains("1.0") } } == true)
    }

    @Test(arguments: TestBackend.available) func garbageIsRefusedAndChangesNothing(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let before = try f.dump()
        #expect(throws: ReceiptError.self) {
            _ = try f.ledger.importArtefact(Array("not a receipt".utf8), customer: "alice", source: "test", operatorName: "mei")
        }
        #expect(throws: StoreError(.invalidInput, "")) {
            _ = try f.ledger.importArtefact(try f.receipt([]), customer: "", source: "test", operatorName: "mei")
        }
        #expect(try f.dump() == before)
    }
}

@Suite("Secrets never land in the database, on both backends")
struct SecretsTests {
    @Test(arguments: TestBackend.available) func aPastedVerifyReceiptRequestKeepsOnlyTheReceipt(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let receipt = String(decoding: try f.receipt([LedgerFixture.purchase("9001")]), as: UTF8.self)
        let secret = "c0ffee5ecret5hared0123456789abcd"
        let request = #"{"receipt-data": "\#(receipt)", "password": "\#(secret)", "exclude-old-transactions": true}"#
        let result = try f.ledger.importArtefact(Array(request.utf8), customer: "alice", source: "paste", operatorName: "mei")
        #expect(result.transactions.count == 1)
        #expect(!(try f.dump()).contains(secret))
        if backend == .sqlite {
            // Nothing in the file itself holds the secret either.
            try f.database.execute("PRAGMA wal_checkpoint(TRUNCATE)", [])
            let fileBytes = try Data(contentsOf: URL(fileURLWithPath: f.scratch.location))
            #expect(fileBytes.range(of: Data(secret.utf8)) == nil)
        }
        #expect(try f.count("SELECT count(*) AS n FROM receipts WHERE raw = ?", [.blob(Array(receipt.utf8))]) == 1)
    }
}

@Suite("Batch import on both backends")
struct BatchImportTests {
    @Test(arguments: TestBackend.available) func aBatchAppliesEachItemOrNoneOfIt(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let good1 = try f.receipt([LedgerFixture.purchase("12001")])
        let good2 = try f.receipt([LedgerFixture.purchase("12002", "com.example.coins.100", expires: nil, type: 1)], created: "2025-05-02T00:00:00Z")
        let items = [
            PurchaseLedger.ImportItem(bytes: good1, customer: "alice", source: "batch"),
            PurchaseLedger.ImportItem(bytes: Array("garbage".utf8), customer: "alice", source: "batch"),
            PurchaseLedger.ImportItem(bytes: good2, customer: "alice", orderId: "NO-SUCH-ORDER", source: "batch"),
            PurchaseLedger.ImportItem(bytes: good2, customer: "bob", source: "batch"),
            PurchaseLedger.ImportItem(bytes: good1, customer: "alice", source: "batch"),
        ]
        let results = try f.ledger.importBatch(items, operatorName: "mei")
        #expect(results.count == 5)
        #expect((try? results[0].get())?.changedDatabase == true)
        #expect((try? results[1].get()) == nil, "garbage fails alone")
        #expect((try? results[2].get()) == nil, "an unknown order fails alone, leaving no trace")
        #expect((try? results[3].get())?.transactions.first?.outcome == .recorded(binding: .unbound, orderId: nil))
        #expect((try? results[4].get())?.changedDatabase == false, "the repeat inside the batch is a duplicate")
        #expect(try f.count("SELECT count(*) AS n FROM transactions") == 2)
        #expect(try f.count("SELECT count(*) AS n FROM customers WHERE customer_id = 'bob'") == 1)
        #expect(try f.ledger.entitlements("bob", now: f.now).first { $0.name == "coins" }?.balance == 100)
        #expect(try f.count("SELECT count(*) AS n FROM entitlements WHERE customer_id = 'alice'") >= 1, "entitlements refreshed at the end")
        #expect(try AuditLog.verify(f.database).isIntact)
        #expect(try f.count("SELECT count(*) AS n FROM audit_log WHERE action = 'import'") == 2)
    }

    @Test func storedDatesAreFixedWidthUTC() {
        #expect(StoreDates.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(StoreDates.format(Date(timeIntervalSince1970: 1_766_774_387.5)) == "2025-12-26T18:39:47.500Z")
        #expect(StoreDates.format(Date(timeIntervalSince1970: 1_766_774_387.9996)) == "2025-12-26T18:39:48.000Z")
        #expect(StoreDates.parse("2025-12-26T18:39:47.500Z") == Date(timeIntervalSince1970: 1_766_774_387.5))
    }
}
