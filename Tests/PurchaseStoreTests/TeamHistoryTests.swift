import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// What the team did stays visible (issue 13, item 4), on both backends: a resolved conflict
/// keeps its previous owner with who resolved it, when and why; every move of a transaction is a
/// transfer both customers see; a transaction that arrives again leaves a trace and a count
/// without changing what it grants; re-verification results are stored with the receipt.
@Suite("Team history on both backends")
struct TeamHistoryTests {
    @Test(arguments: TestBackend.available) func aResolvedConflictKeepsItsHistoryAndBothSidesSeeTheTransfer(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let bytes = try f.receipt([LedgerFixture.purchase("9301", "com.example.pro.lifetime", expires: nil, type: 0)])
        _ = try f.ledger.importArtefact(bytes, customer: "alice", source: "test", operatorName: "mei")
        _ = try f.ledger.importArtefact(bytes, customer: "bob", source: "test", operatorName: "mei")
        let conflict = try #require(try f.ledger.conflicts().first)
        try f.ledger.resolveConflict(conflict.conflictId, owner: "bob", reason: "bob's order id matches", operatorName: "li")
        let resolved = try #require(try f.ledger.customerSummary("alice").conflicts.first)
        #expect(resolved.ownerCustomerId == "alice", "the owner before is kept, not overwritten")
        #expect(resolved.claimantCustomerId == "bob" && resolved.resolvedOwner == "bob")
        #expect(resolved.resolvedBy == "li" && resolved.resolutionReason == "bob's order id matches" && resolved.resolvedAt == f.now)
        #expect(try f.ledger.customerSummary("bob").conflicts.map(\.conflictId) == [conflict.conflictId], "both customers list it")
        for customer in ["alice", "bob"] {
            let transfers = try f.ledger.transfers(of: customer)
            #expect(transfers.map { "\($0.transactionId) \($0.fromCustomer)→\($0.toCustomer) \($0.kind) \($0.operatorName)" }
                == ["9301 alice→bob conflict li"], "\(customer)")
        }
    }

    @Test(arguments: TestBackend.available) func aRestoreShowsOnBothAccounts(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("9401", "com.example.pro.lifetime", expires: nil, type: 0)]),
                                        customer: "old", source: "test", operatorName: "mei")
        _ = try f.ledger.restore(customer: "new", fromCustomer: "old", reason: "new phone", operatorName: "mei")
        #expect(try f.ledger.transfers(of: "old").map(\.toCustomer) == ["new"])
        #expect(try f.ledger.transfers(of: "new").map { "\($0.fromCustomer) \($0.kind) \($0.reason)" } == ["old restore new phone"])
    }

    @Test(arguments: TestBackend.available) func repeatedArrivalsLeaveATraceAndGrantNothingMore(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let first = try f.receipt([LedgerFixture.purchase("9501", "com.example.coins.100", expires: nil, type: 1)])
        _ = try f.ledger.importArtefact(first, customer: "alice", source: "import a.b64", operatorName: "mei")
        let before = try f.ledger.entitlements("alice", now: f.now)
        _ = try f.ledger.importArtefact(first, customer: "alice", source: "import a.b64", operatorName: "mei")  // the same receipt again
        let another = try f.receipt([LedgerFixture.purchase("9501", "com.example.coins.100", expires: nil, type: 1),
                                     LedgerFixture.purchase("9502", "com.example.coins.100", expires: nil, type: 1)], created: "2025-05-03T00:00:00Z")
        _ = try f.ledger.importArtefact(another, customer: "alice", source: "import b.b64", operatorName: "li")  // in another receipt
        #expect(try f.ledger.transaction("9501")?.repeatArrivals == 2)
        #expect(try f.ledger.transaction("9502")?.repeatArrivals == 0)
        let arrivals = try f.ledger.arrivals(ofTransaction: "9501")
        #expect(arrivals.map(\.operatorName) == ["li", "mei"])
        #expect(arrivals.first?.source.hasPrefix("receipt #2 (import b.b64)") == true, "\(arrivals.map(\.source))")
        #expect(arrivals.last?.source.hasPrefix("receipt #1 (import a.b64)") == true, "\(arrivals.map(\.source))")
        #expect(try f.ledger.arrivals(of: "alice").count == 2)
        let coins = try f.ledger.entitlements("alice", now: f.now).first { $0.name == "coins" }
        #expect(coins?.balance == 200, "9501 counted once, 9502 once")
        #expect(before.first { $0.name == "coins" }?.balance == 100)
    }
}
