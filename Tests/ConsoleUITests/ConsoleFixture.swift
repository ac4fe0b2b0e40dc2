@testable import ConsoleUI
import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// A purchase database with fixed content (forged by the StoreSimulator's test CA), a ledger
/// on a fixed clock, and a console over it on a virtual screen: everything a snapshot shows
/// is the same on every run.
final class ConsoleFixture {
    let scratch: ConsoleScratch
    let directory: URL
    /// The SQLite path or the PostgreSQL URL.
    let path: String
    let database: SQLDatabase
    var backend: ConsoleBackend { scratch.backend }
    let authority: TestCertificateAuthority
    let ledger: PurchaseLedger
    static let now = date("2025-06-01T12:00:00Z")

    static let configuration = StoreConfiguration(
        bundleIds: ["com.example.app"],
        products: [
            "com.example.pro.monthly": CatalogueProduct(entitlement: "pro", type: .autoRenewable),
            "com.example.pro.lifetime": CatalogueProduct(entitlement: "pro", type: .nonConsumable),
            "com.example.coins.100": CatalogueProduct(entitlement: "coins", type: .consumable, units: 100),
            "金币礼包": CatalogueProduct(entitlement: "coins", type: .consumable, units: 1200),
        ])

    static func date(_ text: String) -> Date { RFC3339.parse(text) ?? .distantPast }

    /// An empty database, or the standard data set when `populated`, on `backend`.
    init(populated: Bool = true, backend: ConsoleBackend = .sqlite) throws {
        scratch = try ConsoleScratch(backend)
        directory = scratch.directory
        path = scratch.location
        if backend == .sqlite {
            let sqlite = try SQLiteDatabase(path: path)
            sqlite.databaseUser = "os:support"  // the same entries (and hashes) whoever runs the tests
            try MigrationRunner.migrate(sqlite, now: Self.now)
            database = sqlite
        } else {
            database = try PurchaseDatabase.open(path)
        }
        authority = try TestCertificateAuthority.shared()
        ledger = try Self.ledger(database, authority)
        if populated { try populate() }
    }

    /// A ledger on the fixture's clock over `database` (another connection: another operator).
    static func ledger(_ database: SQLDatabase, _ authority: TestCertificateAuthority) throws -> PurchaseLedger {
        let now = Self.now
        return PurchaseLedger(database: database, configuration: Self.configuration,
                              verifier: ReceiptVerifier(trust: authority.trustStore(), expectedBundleIds: ["com.example.app"]),
                              clock: { now })
    }

    /// A second ledger on its own connection to the same database: another operator.
    func otherOperator() throws -> PurchaseLedger {
        try Self.ledger(try PurchaseDatabase.open(path, create: false), authority)
    }

    /// A unified receipt (base64 text) holding `purchases`.
    func receipt(_ purchases: [ReceiptPurchase], type: String = "Production", created: String = "2025-05-01T00:00:00Z") throws -> [UInt8] {
        var builder = UnifiedReceiptBuilder(bundleId: "com.example.app", appVersion: "60", creationDate: Self.date(created), purchases: purchases)
        builder.receiptType = type
        builder.originalAppVersion = type == "Production" ? "50" : "1.0"
        return Array(try builder.build(signedBy: authority).base64.utf8)
    }

    static func purchase(_ id: String, _ product: String, bought: String, expires: String? = nil, type: Int64 = 0,
                         original: String? = nil, cancelled: String? = nil) -> ReceiptPurchase {
        ReceiptPurchase(productId: product, transactionId: id, originalTransactionId: original, purchaseDate: date(bought),
                        expiresDate: expires.map(date), cancellationDate: cancelled.map(date), productTypeCode: type)
    }

    /// alice (Alice Liddell, with an email): a monthly subscription renewed three times, coins, an order, a manual grant;
    /// 王小明: a CJK product; bob: a sandbox receipt (an email, no name); carol claims bob's transaction (a conflict);
    /// alice again: a newer receipt repeating a transaction (a duplicate callback);
    /// dave: a receipt with an empty purchase list.
    func populate() throws {
        try ledger.addCustomer("alice", isTester: false, contact: CustomerContact(displayName: "Alice Liddell", email: "alice.liddell@example.com"),
                               operatorName: "mei")
        _ = try ledger.createOrder("ORD-8812", customer: "alice", product: "com.example.coins.100", operatorName: "mei")
        let alice = try receipt([
            Self.purchase("1000000359369424", "com.example.pro.monthly", bought: "2025-02-01T00:00:00Z", expires: "2025-03-01T00:00:00Z", type: 3),
            Self.purchase("1000000359369425", "com.example.pro.monthly", bought: "2025-03-01T00:00:00Z", expires: "2025-04-01T00:00:00Z", type: 3,
                          original: "1000000359369424"),
            Self.purchase("1000000359369426", "com.example.pro.monthly", bought: "2025-04-01T00:00:00Z", expires: "2025-05-01T00:00:00Z", type: 3,
                          original: "1000000359369424", cancelled: "2025-04-10T00:00:00Z"),
        ], created: "2025-04-15T00:00:00Z")
        _ = try ledger.importArtefact(alice, customer: "alice", source: "app", operatorName: "mei")
        let coins = try receipt([Self.purchase("1000000359369500", "com.example.coins.100", bought: "2025-05-02T00:00:00Z", type: 1)],
                                created: "2025-05-02T00:00:10Z")
        _ = try ledger.importArtefact(coins, customer: "alice", orderId: "ORD-8812", source: "app", operatorName: "mei")
        _ = try ledger.grant(customer: "alice", entitlement: "pro", until: Self.date("2025-07-01T00:00:00Z"), reason: "outage goodwill",
                             operatorName: "mei")
        let wang = try receipt([Self.purchase("1000000400000001", "金币礼包", bought: "2025-05-10T00:00:00Z", type: 1)], created: "2025-05-10T00:01:00Z")
        _ = try ledger.importArtefact(wang, customer: "王小明", source: "app", operatorName: "li")
        let bob = try receipt([Self.purchase("2000000000000001", "com.example.pro.lifetime", bought: "2025-05-20T00:00:00Z")],
                              type: "ProductionSandbox", created: "2025-05-20T00:01:00Z")
        _ = try ledger.addCustomer("bob", isTester: true, contact: CustomerContact(email: "qa+bob@example.org"), operatorName: "mei")
        _ = try ledger.importArtefact(bob, customer: "bob", source: "app", operatorName: "mei")
        let shared = try receipt([Self.purchase("3000000000000001", "com.example.pro.lifetime", bought: "2025-05-21T00:00:00Z")],
                                 created: "2025-05-21T00:01:00Z")
        _ = try ledger.importArtefact(shared, customer: "carol", source: "app", operatorName: "mei")
        _ = try ledger.importArtefact(shared, customer: "erin", source: "app", operatorName: "li")
        // alice's app sends a newer receipt: one purchase already recorded (a duplicate callback), one new.
        let newer = try receipt([
            Self.purchase("1000000359369424", "com.example.pro.monthly", bought: "2025-02-01T00:00:00Z", expires: "2025-03-01T00:00:00Z", type: 3),
            Self.purchase("1000000359369600", "com.example.coins.100", bought: "2025-05-24T00:00:00Z", type: 1),
        ], created: "2025-05-24T00:01:00Z")
        _ = try ledger.importArtefact(newer, customer: "alice", source: "app", operatorName: "mei")
        let empty = try receipt([], created: "2025-05-25T00:00:00Z")
        _ = try ledger.importArtefact(empty, customer: "dave", source: "app", operatorName: "mei")
    }

    /// The receipt id stored for a customer (their first).
    func receiptId(_ customer: String) throws -> Int64 {
        try database.queryFirst("SELECT receipt_id FROM receipts WHERE customer_id = ? ORDER BY receipt_id", [.text(customer)])?.int("receipt_id") ?? -1
    }

    /// A console over the fixture's ledger on a virtual screen.
    func console(size: ScreenSize = ScreenSize(rows: 24, columns: 80), readOnly: Bool = false, apple: AppleService? = nil,
                 theme: Theme = .colour256, changes: ChangeNotifying? = nil, writer: PurchaseLedger? = nil,
                 clipboard: (@Sendable (String) -> Bool)? = nil, timeZone: TimeZone = DisplayZone.utc,
                 exportDirectory: String? = nil) -> (ConsoleController, VirtualScreen) {
        let now = Self.now
        var environment = ConsoleEnvironment(ledger: ledger, apple: apple, operatorName: "mei", readOnly: readOnly,
                                             databaseLabel: "purchases.sqlite", clock: { now }, changes: changes)
        environment.writer = writer
        environment.clipboard = clipboard
        environment.exportDirectory = exportDirectory ?? directory.path
        environment.timeZone = timeZone
        let controller = ConsoleController(environment: environment, size: size)
        let screen = VirtualScreen(size: size, theme: theme)
        controller.render(on: screen)
        return (controller, screen)
    }

    /// Every row of the tables a change must leave alone when refused (entitlement rows without their computed time).
    func dump(_ tables: [String] = ["customers", "orders", "transactions", "receipts", "grants", "revocations", "conflicts", "audit_log"]) throws -> String {
        var text = ""
        for table in tables {
            text += "== \(table)\n"
            let rows = try database.query("SELECT * FROM \(table)", []).map { row in
                row.columns.indices.map { "\(row.columns[$0])=\(row.values[$0])" }.joined(separator: "|")
            }
            text += rows.sorted().map { $0 + "\n" }.joined()
        }
        for row in try database.query("SELECT customer_id, entitlement, source, active, reason FROM entitlements ORDER BY customer_id, entitlement, source, reason", []) {
            text += row.values.map { "\($0)" }.joined(separator: "|") + "\n"
        }
        return text
    }
}

extension ConsoleController {
    /// Waits for a background re-verification without holding a thread of the shared pool the
    /// re-verification itself needs (the blocking `waitUntilIdle` is for the terminal's thread).
    @discardableResult
    func settle(timeout: Double = 300) async -> Bool {  // a safety net against a hang, far above any load
        let deadline = Date().addingTimeInterval(timeout)
        while isBusy || hasBackgroundTask {
            tick()
            if Date() > deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))  // cancellation only ends the wait early
        }
        return true
    }

    /// Sends keys and draws after each.
    func press(_ keys: KeyEvent..., on screen: VirtualScreen) {
        for key in keys {
            handle(key)
            render(on: screen)
        }
    }

    /// Types text and draws.
    func typeText(_ text: String, on screen: VirtualScreen) {
        type(text)
        render(on: screen)
    }
}
