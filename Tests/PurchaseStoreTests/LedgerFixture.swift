import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// A fresh purchase database in a temporary folder, a ledger over it with a fixed clock, and
/// receipts forged by the StoreSimulator's test CA.
final class LedgerFixture {
    let directory: URL
    let path: String
    let database: SQLiteDatabase
    let authority: TestCertificateAuthority
    var now: Date
    private(set) var ledger: PurchaseLedger!  // set at the end of init; tests never see it nil

    static let configuration = StoreConfiguration(
        bundleIds: ["com.example.app"],
        products: [
            "com.example.pro.monthly": CatalogueProduct(entitlement: "pro", type: .autoRenewable),
            "com.example.pro.lifetime": CatalogueProduct(entitlement: "pro", type: .nonConsumable),
            "com.example.coins.100": CatalogueProduct(entitlement: "coins", type: .consumable, units: 100),
        ],
        paidToFree: PaidToFreeRule(entitlement: "pro", beforeBuild: "42", beforeDate: nil))

    init(configuration: StoreConfiguration = LedgerFixture.configuration, now: String = "2025-06-01T12:00:00Z") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("purchases.sqlite").path
        database = try SQLiteDatabase(path: path)
        try MigrationRunner.migrate(database)
        authority = try TestCertificateAuthority.shared()
        self.now = RFC3339.parse(now) ?? Date()
        ledger = PurchaseLedger(database: database, configuration: configuration,
                                verifier: ReceiptVerifier(trust: authority.trustStore(), expectedBundleIds: Set(configuration.bundleIds)),
                                clock: { [unowned self] in self.now })
    }

    deinit { try? FileManager.default.removeItem(at: directory) }  // best effort: a leftover temp folder is harmless

    static func date(_ text: String) -> Date { RFC3339.parse(text) ?? .distantPast }

    /// A unified receipt (base64 text bytes) holding `purchases`.
    func receipt(_ purchases: [ReceiptPurchase], type: String = "Production", originalAppVersion: String = "50",
                 created: String = "2025-05-01T00:00:00Z") throws -> [UInt8] {
        var builder = UnifiedReceiptBuilder(bundleId: "com.example.app", appVersion: "60",
                                            creationDate: Self.date(created), purchases: purchases)
        builder.receiptType = type
        builder.originalAppVersion = originalAppVersion
        return Array(try builder.build(signedBy: authority).base64.utf8)
    }

    static func purchase(_ id: String, _ product: String = "com.example.pro.monthly", bought: String = "2025-05-01T00:00:00Z",
                         expires: String? = "2025-07-01T00:00:00Z", type: Int64 = 3, cancelled: String? = nil) -> ReceiptPurchase {
        ReceiptPurchase(productId: product, transactionId: id, purchaseDate: date(bought), expiresDate: expires.map(date),
                        cancellationDate: cancelled.map(date), productTypeCode: type)
    }

    /// A signed StoreKit 2 transaction.
    func jws(_ id: String, product: String = "com.example.pro.lifetime", token: String? = nil,
             bought: String = "2025-05-01T00:00:00Z", environment: String = "Production") throws -> [UInt8] {
        var payload = TransactionPayload(transactionId: id, bundleId: "com.example.app", productId: product, type: "Non-Consumable",
                                         purchaseDate: Self.date(bought), signedDate: Self.date(bought), environment: environment)
        payload.appAccountToken = token
        return Array(try JWSBuilder(authority: authority).signedTransaction(payload).utf8)
    }

    /// Every row of every table, in a stable order: equal dumps mean an unchanged database.
    func dump() throws -> String {
        let tables = try database.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", []).compactMap { $0.string("name") }
        var text = ""
        for table in tables where table != "sqlite_sequence" {
            text += "== \(table)\n"
            for row in try database.query("SELECT * FROM \(table)", []) {
                text += row.columns.indices.map { "\(row.columns[$0])=\(row.values[$0])" }.joined(separator: "|") + "\n"
            }
        }
        return text
    }

    /// Every row of the named tables: equal dumps mean those tables did not change.
    func dumpTables(_ tables: [String]) throws -> String {
        var text = ""
        for table in tables {
            text += "== \(table)\n"
            for row in try database.query("SELECT * FROM \(table)", []) {
                text += row.columns.indices.map { "\(row.columns[$0])=\(row.values[$0])" }.joined(separator: "|") + "\n"
            }
        }
        return text
    }

    func count(_ sql: String, _ parameters: [SQLValue] = []) throws -> Int64 {
        try database.queryFirst(sql, parameters)?.int("n") ?? -1
    }
}
