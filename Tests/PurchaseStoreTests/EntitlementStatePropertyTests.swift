import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// After any sequence of imports, grants, revokes, restores and notifications, each at an
/// arbitrary instant (fractions of a millisecond included, as a real clock reads), the stored
/// entitlement rows are exactly what a fresh computation at that instant gives; a grant is in
/// force right after it is made and a revoked entitlement is not held right after the revoke.
@Suite("Stored entitlements equal a fresh recomputation after every change")
struct EntitlementStatePropertyTests {
    /// A small deterministic generator (SplitMix64): the same sequence on every run.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
        /// Seconds with a fraction finer than a millisecond.
        mutating func seconds(upTo limit: Int) -> Double { Double(int(0...limit)) + Double(int(0...999_999)) / 1_000_000 }
    }

    static let customers = ["ana", "ben", "cai"]

    func stored(_ f: BackendLedgerFixture, _ customer: String) throws -> [String] {
        try f.database.query("""
            SELECT entitlement, source, transaction_id, grant_id, starts_at, ends_at, units, active, revoked, reason, flags
            FROM entitlements WHERE customer_id = ?
            """, [.text(customer)]).map { row in row.values.map { "\($0)" }.joined(separator: "|") }.sorted()
    }

    func computed(_ f: BackendLedgerFixture, _ customer: String) throws -> [String] {
        try f.ledger.entitlements(customer, now: f.now).flatMap { state in
            state.sources.map { source -> String in
                let values: [SQLValue] = [
                    .text(state.name), .text(source.kind.rawValue), .text(source.transactionId), .integer(source.grantId),
                    .date(source.starts), .date(source.ends), .integer(source.units), .bool(source.isActive),
                    .bool(source.flags.contains { $0.hasPrefix("revoked") }), .text(source.reason), .text(source.flags.joined(separator: ", ")),
                ]
                return values.map { "\($0)" }.joined(separator: "|")
            }
        }.sorted()
    }

    func holds(_ f: BackendLedgerFixture, _ customer: String, _ entitlement: String) throws -> Bool {
        try f.ledger.entitlements(customer, now: f.now).first { $0.name == entitlement }?.isActive == true
    }

    func storedActive(_ f: BackendLedgerFixture, _ customer: String, _ entitlement: String) throws -> Bool {
        try f.count("SELECT count(*) AS n FROM entitlements WHERE customer_id = ? AND entitlement = ? AND active = ?",
                    [.text(customer), .text(entitlement), .bool(true)]) > 0
    }

    @Test(arguments: TestBackend.available, [UInt64(11), 2024, 77_777])
    func anySequenceOfChangesLeavesTheStoredRowsRight(_ backend: TestBackend, _ seed: UInt64) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-01-01T00:00:00Z")
        var random = Random(state: seed)
        // An instant that is not on a millisecond: the clock of a real machine.
        f.now = f.now.addingTimeInterval(0.000_6)
        var nextTransaction = 9_000_000 + Int(seed % 1000) * 1000
        var owned: [String: [String]] = [:]
        for customer in Self.customers { try f.ledger.addCustomer(customer, isTester: false, operatorName: "mei") }
        for step in 0..<40 {
            f.now = f.now.addingTimeInterval(random.seconds(upTo: random.int(0...3) == 0 ? 3 * 86_400 : 90))
            let customer = Self.customers[random.int(0...2)]
            let description: String
            var changed = [customer]
            switch random.int(0...5) {
            case 0, 1:
                nextTransaction += 1
                let id = String(nextTransaction)
                let lifetime = random.int(0...2) == 0
                let bought = f.now.addingTimeInterval(-random.seconds(upTo: 40 * 86_400))
                let expires = bought.addingTimeInterval(random.seconds(upTo: 60 * 86_400))
                let purchase = ReceiptPurchase(productId: lifetime ? "com.example.pro.lifetime" : "com.example.pro.monthly", transactionId: id,
                                               purchaseDate: RFC3339.truncatedToMilliseconds(bought),
                                               expiresDate: lifetime ? nil : RFC3339.truncatedToMilliseconds(expires),
                                               productTypeCode: lifetime ? 0 : 3)
                var builder = UnifiedReceiptBuilder(bundleId: "com.example.app", appVersion: "60",
                                                    creationDate: RFC3339.truncatedToMilliseconds(f.now), purchases: [purchase])
                builder.receiptType = "Production"
                builder.originalAppVersion = "50"
                _ = try f.ledger.importArtefact(Array(try builder.build(signedBy: f.authority).base64.utf8), customer: customer,
                                                source: "test", operatorName: "mei")
                owned[customer, default: []].append(id)
                description = "import \(id)"
            case 2:
                let until: Date? = random.int(0...3) == 0 ? nil : f.now.addingTimeInterval(0.000_4 + random.seconds(upTo: 5 * 86_400))
                do {
                    _ = try f.ledger.grant(customer: customer, entitlement: "pro", until: until, reason: "goodwill", operatorName: "mei")
                    #expect(try holds(f, customer, "pro"), "step \(step): a grant just made is not in force")
                    #expect(try storedActive(f, customer, "pro"), "step \(step): the stored rows say a grant just made is not in force")
                } catch let error as StoreError where error.code == .alreadyExists { changed = [] }
                description = "grant until \(until.map(RFC3339.format) ?? "forever")"
            case 3:
                do {
                    try f.ledger.revoke(customer: customer, entitlement: "pro", reason: "chargeback", operatorName: "mei")
                    #expect(try !holds(f, customer, "pro"), "step \(step): a revoked entitlement is still held")
                    #expect(try !storedActive(f, customer, "pro"), "step \(step): the stored rows still say a revoked entitlement is held")
                } catch let error as StoreError where error.code == .invalidRequest { changed = [] }
                description = "revoke"
            case 4:
                let from = Self.customers[random.int(0...2)]
                if from != customer, let ids = owned[from], !ids.isEmpty {
                    _ = try f.ledger.restore(customer: customer, fromCustomer: from, transactionIds: [ids[ids.count - 1]],
                                             reason: "new account", operatorName: "mei")
                    owned[customer, default: []].append(ids[ids.count - 1])
                    owned[from]?.removeLast()
                    changed.append(from)
                } else {
                    changed = []
                }
                description = "restore from \(from)"
            default:
                if let id = owned[customer]?.last {
                    let payload = NotificationPayload(notificationType: "REFUND", notificationUUID: UUID().uuidString,
                                                      signedDate: RFC3339.truncatedToMilliseconds(f.now),
                                                      data: NotificationData(bundleId: "com.example.app", environment: "Production",
                                                                             signedTransactionInfo: .payload(TransactionPayload(
                                                                                transactionId: id, bundleId: "com.example.app",
                                                                                productId: "com.example.pro.monthly", type: "Auto-Renewable Subscription",
                                                                                purchaseDate: RFC3339.truncatedToMilliseconds(f.now.addingTimeInterval(-60)),
                                                                                signedDate: RFC3339.truncatedToMilliseconds(f.now), environment: "Production"))))
                    let result = try f.ledger.applyNotification(Array(try JWSBuilder(authority: f.authority).notificationBody(payload).utf8),
                                                                operatorName: "apple")
                    if result.changes.isEmpty { changed = [] }
                } else {
                    changed = []
                }
                description = "refund notification"
            }
            // The customers this step changed were refreshed at this instant (the others' rows
            // are as of their own last change).
            for someone in changed {
                #expect(try stored(f, someone) == computed(f, someone), "step \(step) (\(description) for \(customer)): \(someone)'s stored rows differ")
            }
        }
    }
}
