import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// Several operators, each on their own connection (a thread each, like separate processes to
/// the server), importing and granting at once on the same database.
@Suite("Operators racing on one database, both backends")
struct PostgresConcurrencyTests {
    static let receiptCount = 8
    static let operatorCount = 4

    static func transactionIds(_ receipt: Int) -> [String] { ["race-\(receipt)-a", "race-\(receipt)-b"] }

    @Test(arguments: TestBackend.available)
    func operatorsImportingAndGrantingAtOnceKeepTheLedgerWhole(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let receipts = try (0..<Self.receiptCount).map { index in
            try f.receipt(Self.transactionIds(index).map { LedgerFixture.purchase($0, "com.example.pro.lifetime", expires: nil, type: 0) })
        }
        let location = f.scratch.location
        let trust = f.authority.trustStore()
        let configuration = f.configuration
        let now = f.now
        let outcomes = Outcomes()
        let changes = Outcomes()
        let group = DispatchGroup()
        for worker in 0..<Self.operatorCount {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    let ledger = PurchaseLedger(database: try PurchaseDatabase.open(location), configuration: configuration,
                                                verifier: ReceiptVerifier(trust: trust, expectedBundleIds: Set(configuration.bundleIds)),
                                                clock: { now })
                    // Each operator walks the receipts in its own order.
                    for step in 0..<Self.receiptCount {
                        let index = (step * (2 * worker + 1) + worker) % Self.receiptCount
                        let own = try ledger.importArtefact(receipts[index], customer: "cust-\(index)", source: "race", operatorName: "op\(worker)")
                        if own.changedDatabase { changes.add("import") }
                        let claim = try ledger.importArtefact(receipts[(index + worker) % Self.receiptCount], customer: "claimant-\(worker)",
                                                              source: "race", operatorName: "op\(worker)")
                        if claim.changedDatabase { changes.add("import") }
                        do {
                            _ = try ledger.grant(customer: "cust-\(index)", entitlement: "coins", until: nil, reason: "race", operatorName: "op\(worker)")
                            changes.add("grant")
                            outcomes.add("granted")
                        } catch let error as StoreError where error.code == .alreadyExists {
                            outcomes.add("alreadyExists")
                        }
                    }
                } catch {
                    outcomes.add("failed: \(error)")
                }
            }
        }
        group.wait()
        let failures = outcomes.values.filter { $0.hasPrefix("failed") }
        #expect(failures.isEmpty, "\(failures)")
        #expect(outcomes.values.filter { $0 == "granted" }.count == Self.receiptCount, "one grant per customer")
        #expect(outcomes.values.filter { $0 == "alreadyExists" }.count == Self.receiptCount * (Self.operatorCount - 1))

        // Every transaction recorded once, for one owner; every other claimant has one conflict about it.
        let allIds = (0..<Self.receiptCount).flatMap(Self.transactionIds)
        #expect(try f.count("SELECT count(*) AS n FROM transactions") == Int64(allIds.count))
        #expect(try f.count("SELECT count(*) AS n FROM grants WHERE revoked_at IS NULL") == Int64(Self.receiptCount))
        #expect(try f.count("SELECT count(*) AS n FROM (SELECT customer_id FROM grants GROUP BY customer_id, entitlement HAVING count(*) > 1) AS twice") == 0)
        // Entitlements recomputed by racing writers are each customer's one set, never two interleaved.
        #expect(try f.count("""
            SELECT count(*) AS n FROM (SELECT customer_id FROM entitlements
            GROUP BY customer_id, entitlement, source, coalesce(transaction_id, ''), coalesce(grant_id, 0) HAVING count(*) > 1) AS twice
            """) == 0)
        // Every customer imported every receipt: cust-i its own, each claimant all of them.
        let claimants = (0..<Self.operatorCount).map { "claimant-\($0)" }
        for index in 0..<Self.receiptCount {
            for id in Self.transactionIds(index) {
                let owner = try #require(try f.ledger.transaction(id)?.customerId)
                let everyone = Set(["cust-\(index)"] + claimants)
                #expect(everyone.contains(owner))
                let conflicted = try f.database.query("SELECT owner_customer_id, claimant_customer_id FROM conflicts WHERE transaction_id = ?", [.text(id)])
                #expect(conflicted.allSatisfy { $0.string("owner_customer_id") == owner })
                #expect(conflicted.compactMap { $0.string("claimant_customer_id") }.sorted() == everyone.subtracting([owner]).sorted(),
                        "exactly one conflict for each customer who is not the owner")
            }
        }
        // Each change wrote exactly one audit entry, all in one unbroken chain.
        let verification = try AuditLog.verify(f.database)
        #expect(verification.isIntact, "\(verification.problem ?? "")")
        #expect(verification.checked == changes.values.count)
    }

    @Test(arguments: TestBackend.available)
    func sixOperatorsGrantingTheSameEntitlementMakeOneGrant(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        try f.ledger.addCustomer("alice", isTester: false, operatorName: "mei")
        let location = f.scratch.location
        let trust = f.authority.trustStore()
        let configuration = f.configuration
        let outcomes = Outcomes()
        let group = DispatchGroup()
        for worker in 0..<6 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    let ledger = PurchaseLedger(database: try PurchaseDatabase.open(location), configuration: configuration,
                                                verifier: ReceiptVerifier(trust: trust))
                    _ = try ledger.grant(customer: "alice", entitlement: "pro", until: nil, reason: "race \(worker)", operatorName: "op\(worker)")
                    outcomes.add("granted")
                } catch let error as StoreError {
                    outcomes.add(error.code.rawValue)
                } catch {
                    outcomes.add("other: \(error)")
                }
            }
        }
        group.wait()
        #expect(outcomes.values.sorted() == (["granted"] + Array(repeating: "alreadyExists", count: 5)).sorted())
        #expect(try f.count("SELECT count(*) AS n FROM grants") == 1)
        #expect(try AuditLog.verify(f.database).checked == 2)
        #expect(try AuditLog.verify(f.database).isIntact)
    }
}
