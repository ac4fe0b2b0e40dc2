import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// The backends the ledger tests run on: SQLite always, PostgreSQL when `make test` (or you)
/// set `RECEIPTDESK_TEST_POSTGRES_URL` to a server the tests may create schemas on.
enum TestBackend: String, CustomStringConvertible, Sendable {
    case sqlite, postgres

    var description: String { rawValue }

    static var available: [TestBackend] { PostgresTestServer.url == nil ? [.sqlite] : [.sqlite, .postgres] }
    static var postgresOnly: [TestBackend] { PostgresTestServer.url == nil ? [] : [.postgres] }
}

/// The private test server `make test` starts (scripts/postgres-test-server.sh).
enum PostgresTestServer {
    static let url: String? = ProcessInfo.processInfo.environment["RECEIPTDESK_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let skipped: Comment = "RECEIPTDESK_TEST_POSTGRES_URL is unset: the PostgreSQL tests are skipped (make test starts a private server and sets it)"

    /// `url` with a libpq option that makes the session work in `schema`.
    static func url(schema: String) -> String? {
        url.map { base in base + (base.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)" }
    }
}

/// A fresh, empty database on a backend: a temporary SQLite file, or a new schema on the test
/// server (each test its own, dropped afterwards).
final class ScratchDatabase {
    let backend: TestBackend
    /// The SQLite path or the PostgreSQL URL, as `PurchaseDatabase.open` takes it.
    let location: String
    private let folder: URL?
    private let schema: String?

    init(_ backend: TestBackend) throws {
        self.backend = backend
        switch backend {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            folder = directory
            schema = nil
            location = directory.appendingPathComponent("purchases.sqlite").path
        case .postgres:
            guard let base = PostgresTestServer.url else { throw StoreError(.cannotOpen, "\(PostgresTestServer.skipped)") }
            let name = "rdtest_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            try PostgresDatabase(url: base).execute("CREATE SCHEMA \(name)", [])
            folder = nil
            schema = name
            location = PostgresTestServer.url(schema: name) ?? base
        }
    }

    /// A new connection to this database, migrated.
    func open() throws -> SQLDatabase { try PurchaseDatabase.open(location) }

    deinit {
        if let folder { try? FileManager.default.removeItem(at: folder) }  // best effort: a leftover temp folder is harmless
        if let schema, let base = PostgresTestServer.url {
            _ = try? PostgresDatabase(url: base).execute("DROP SCHEMA \(schema) CASCADE", [])  // best effort: the server is thrown away
        }
    }
}

/// `LedgerFixture` over either backend: a fresh database, a ledger with a fixed clock, receipts
/// forged by the StoreSimulator's test CA, and a backend-neutral dump.
final class BackendLedgerFixture {
    /// The fixture's clock, shared by every ledger it makes.
    final class Clock {
        var now: Date
        init(_ now: Date) { self.now = now }
    }

    let scratch: ScratchDatabase
    let database: SQLDatabase
    let authority: TestCertificateAuthority
    let configuration: StoreConfiguration
    let clock: Clock
    let trust: TrustStore
    let ledger: PurchaseLedger

    var backend: TestBackend { scratch.backend }
    var now: Date {
        get { clock.now }
        set { clock.now = newValue }
    }

    /// `trust` defaults to the test authority's; Apple's own (`TrustStore.apple()`) for real artefacts.
    init(_ backend: TestBackend, configuration: StoreConfiguration = LedgerFixture.configuration, now: String = "2025-06-01T12:00:00Z",
         trust: TrustStore? = nil) throws {
        scratch = try ScratchDatabase(backend)
        database = try scratch.open()
        authority = try TestCertificateAuthority.shared()
        self.configuration = configuration
        clock = Clock(RFC3339.parse(now) ?? Date())
        self.trust = trust ?? authority.trustStore()
        ledger = BackendLedgerFixture.ledger(database, configuration, self.trust, clock)
    }

    /// A ledger over `database` (another connection, say) with this fixture's clock and trust.
    func makeLedger(_ database: SQLDatabase) -> PurchaseLedger {
        BackendLedgerFixture.ledger(database, configuration, trust, clock)
    }

    private static func ledger(_ database: SQLDatabase, _ configuration: StoreConfiguration, _ trust: TrustStore,
                               _ clock: Clock) -> PurchaseLedger {
        PurchaseLedger(database: database, configuration: configuration,
                       verifier: ReceiptVerifier(trust: trust, configuration: configuration),
                       clock: { clock.now })
    }

    /// A unified receipt (base64 text bytes) holding `purchases`.
    func receipt(_ purchases: [ReceiptPurchase], type: String = "Production", originalAppVersion: String = "50",
                 created: String = "2025-05-01T00:00:00Z") throws -> [UInt8] {
        var builder = UnifiedReceiptBuilder(bundleId: "com.example.app", appVersion: "60",
                                            creationDate: LedgerFixture.date(created), purchases: purchases)
        builder.receiptType = type
        builder.originalAppVersion = originalAppVersion
        return Array(try builder.build(signedBy: authority).base64.utf8)
    }

    /// A signed StoreKit 2 transaction.
    func jws(_ id: String, product: String = "com.example.pro.lifetime", token: String? = nil,
             bought: String = "2025-05-01T00:00:00Z", environment: String = "Production") throws -> [UInt8] {
        var payload = TransactionPayload(transactionId: id, bundleId: "com.example.app", productId: product, type: "Non-Consumable",
                                         purchaseDate: LedgerFixture.date(bought), signedDate: LedgerFixture.date(bought), environment: environment)
        payload.appAccountToken = token
        return Array(try JWSBuilder(authority: authority).signedTransaction(payload).utf8)
    }

    func dump() throws -> String { try BackendDump.text(database) }

    /// Every row but the trace of repeated arrivals (the `arrivals` table, `repeat_arrivals`):
    /// equal dumps mean a repeat changed nothing a customer owns or holds.
    func dumpWithoutTrace() throws -> String {
        try BackendDump.text(database, excluding: ["arrivals"]).split(separator: "\n").map { line in
            line.split(separator: "|").filter { !$0.hasPrefix("repeat_arrivals=") }.joined(separator: "|")
        }.joined(separator: "\n")
    }

    func count(_ sql: String, _ parameters: [SQLValue] = []) throws -> Int64 {
        try database.queryFirst(sql, parameters)?.int("n") ?? -1
    }
}

/// Every row of every table, rows sorted, so equal dumps mean equal contents on any backend.
enum BackendDump {
    static func tables(_ database: SQLDatabase) throws -> [String] {
        let sql = database.dialect.name == "postgresql"
            ? "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name"
            : "SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'sqlite_sequence' ORDER BY name"
        // SQLite's full-text search tables are derived from customers (PostgreSQL indexes instead).
        return try database.query(sql, []).compactMap { $0.string("name") }.filter { !SearchSchema.derivedTables.contains($0) }
    }

    static func text(_ database: SQLDatabase, excluding: Set<String> = []) throws -> String {
        var text = ""
        for table in try tables(database) where !excluding.contains(table) {
            text += "== \(table)\n"
            let rows = try database.query("SELECT * FROM \(table)", []).map { row in
                row.columns.indices.map { "\(row.columns[$0])=\(row.values[$0])" }.joined(separator: "|")
            }
            text += rows.sorted().joined(separator: "\n") + "\n"
        }
        return text
    }
}
