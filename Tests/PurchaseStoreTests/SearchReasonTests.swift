import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// Issue 29 §3b: a customer found through a related id carries why (`via txn …`), read for the
/// page in one statement; one found by their own id, name or email carries none.
@Suite("Search reasons")
struct SearchReasonTests {
    /// ann owns one transaction with every related id; ben owns another; the reasons are ann's.
    static func fixture(_ backend: TestBackend) throws -> BackendLedgerFixture {
        let f = try BackendLedgerFixture(backend)
        _ = try f.ledger.addCustomer("ann", isTester: false, contact: CustomerContact(displayName: "Ann Example", email: "ann@example.com"),
                                     operatorName: "mei")
        var purchase = LedgerFixture.purchase("2000000000000101")
        purchase.originalTransactionId = "2000000000000100"
        _ = try f.ledger.importArtefact(try f.receipt([purchase]), customer: "ann", source: "app", operatorName: "mei")
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("2000000000000200")], created: "2025-05-02T00:00:00Z"),
                                        customer: "ben", source: "app", operatorName: "mei")
        _ = try f.ledger.createOrder("ORD-77", customer: "ann", product: "com.example.coins.100",
                                     accountToken: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0", operatorName: "mei")
        // Set as Apple's answers would: a web order line item, a token and an app download on the transaction, an Apple order.
        try f.database.execute("""
            UPDATE transactions SET web_order_line_item_id = '2000000000009999', app_account_token = 'AAAABBBB-CCCC-4DDD-8EEE-FFFF00001111',
                                    app_transaction_id = '7000000000000001' WHERE transaction_id = '2000000000000101'
            """, [])
        try f.database.execute("INSERT INTO apple_orders (transaction_id, apple_order_id, looked_up_at, looked_up_by) VALUES (?, ?, ?, ?)",
                               [.text("2000000000000101"), .text("MQ7X2PLK9"), .text("2025-05-03T00:00:00.000Z"), .text("mei")])
        return f
    }

    static func rows(_ f: BackendLedgerFixture, _ text: String) throws -> [CustomerListRow] {
        try Browser(f.database).page(.customers, filter: try BrowseFilter(parsing: text), cursor: .first, limit: 50).rows.compactMap {
            if case .customer(_, let row) = $0 { return row } else { return nil }
        }
    }

    @Test(arguments: TestBackend.available)
    func eachRelatedIdSaysWhatItIs(_ backend: TestBackend) throws {
        let f = try Self.fixture(backend)
        let cases: [(search: String, kind: SearchReason.Kind, value: String)] = [
            ("2000000000000101", .transaction, "2000000000000101"),
            ("2000000000000100", .originalTransaction, "2000000000000100"),
            ("2000000000009999", .webOrderLineItem, "2000000000009999"),
            ("aaaabbbb-cccc-4ddd-8eee-ffff00001111", .appAccountToken, "AAAABBBB-CCCC-4DDD-8EEE-FFFF00001111"),
            ("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", .appAccountToken, "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0"),
            ("ord-77", .order, "ORD-77"),
            ("mq7x2plk9", .appleOrder, "MQ7X2PLK9"),
            ("7000000000000001", .appTransaction, "7000000000000001"),
            ("tx:2000000000000101", .transaction, "2000000000000101"),
            ("original:2000000000000100", .originalTransaction, "2000000000000100"),
            ("order:ORD-77", .order, "ORD-77"),
        ]
        for (search, kind, value) in cases {
            let rows = try Self.rows(f, search)
            #expect(rows.map(\.customerId) == ["ann"], "\(search): \(rows.map(\.customerId))")
            #expect(rows.first?.matchedVia == SearchReason(kind: kind, value: value), "\(search): \(String(describing: rows.first?.matchedVia))")
        }
        #expect(SearchReason(kind: .transaction, value: "2000000000000101").text == "via txn 2000000000000101")
    }

    @Test(arguments: TestBackend.available)
    func ownIdNameOrEmailCarryNoReasonNorDoesNoSearch(_ backend: TestBackend) throws {
        let f = try Self.fixture(backend)
        for search in ["ann", "Example", "ann@example"] {
            let rows = try Self.rows(f, search)
            #expect(rows.map(\.customerId) == ["ann"] && rows.first?.matchedVia == nil, "\(search): \(rows.map { "\($0.customerId) \(String(describing: $0.matchedVia))" })")
        }
        let all = try Browser(f.database).page(.customers, cursor: .first, limit: 50).rows
        #expect(all.count == 2 && all.allSatisfy { if case .customer(_, let row) = $0 { return row.matchedVia == nil } else { return false } })
        // Two words: both must hold, and the related one is the reason.
        let both = try Self.rows(f, "ann 2000000000000101")
        #expect(both.first?.matchedVia == SearchReason(kind: .transaction, value: "2000000000000101"), "\(both)")
    }

    @Test(arguments: TestBackend.available)
    func everyCustomerOfThePageGetsTheirReason(_ backend: TestBackend) throws {
        let f = try Self.fixture(backend)
        // One word finds both customers (a token on a transaction of each): each row says so.
        try f.database.execute("UPDATE transactions SET app_account_token = 'AAAABBBB-CCCC-4DDD-8EEE-FFFF00001111' WHERE transaction_id = '2000000000000200'", [])
        let rows = try Self.rows(f, "AAAABBBB-CCCC-4DDD-8EEE-FFFF00001111")
        #expect(rows.map(\.customerId) == ["ann", "ben"])
        #expect(rows.allSatisfy { $0.matchedVia?.kind == .appAccountToken && $0.matchedVia?.value == "AAAABBBB-CCCC-4DDD-8EEE-FFFF00001111" }, "\(rows)")
    }
}
