import Foundation
import ReceiptCore
import Testing
@testable import PurchaseStore

/// The `changes` channel is open to every role that can connect: what crosses it names no one,
/// and a notice someone sent by hand is not taken for a change.
@Suite("Change feed: no personal data on the channel, no fake changes")
struct PostgresChangeFeedPrivacyTests {
    /// The ledger tables the triggers watch.
    static let tables: Set<String> = ["customers", "orders", "receipts", "transactions", "conflicts", "grants", "revocations",
                                      "entitlements", "verification_attempts", "notifications", "audit_log"]

    /// The sequence number of the newest audit entry.
    static func auditHead(_ database: SQLDatabase) throws -> Int64 {
        try #require(try database.queryFirst("SELECT seq FROM audit_head WHERE id = 1", [])?.int("seq"))
    }

    /// A plain session LISTENing on the channel, as any role could.
    static func eavesdropper(_ f: BackendLedgerFixture) throws -> PostgresDatabase {
        let raw = try PostgresDatabase(url: f.scratch.location)
        try raw.execute("LISTEN changes", [])
        return raw
    }

    /// The raw payloads `raw` received until `last` (PostgreSQL delivers notices in commit order,
    /// so every notice of the changes before it has come too).
    /// Only this test's schema's: tests running alongside share the server, and so the channel.
    static func payloads(_ raw: PostgresDatabase, until last: String, schema: String) throws -> [String] {
        var payloads: [String] = []
        let deadline = Date().addingTimeInterval(30)  // a safety net: they come at the commit
        while !payloads.contains(last), Date() < deadline {
            _ = try raw.connection.awaitInput(timeout: 1)
            payloads += raw.connection.takeNotifications().filter { $0.channel == "changes" && $0.payload.hasPrefix(schema + ".") }.map(\.payload)
        }
        return payloads
    }

    @Test(.enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
    func aListenerHearsAChangeButNoNoticeNamesACustomerTransactionOrOrder() throws {
        let f = try BackendLedgerFixture(.postgres)
        let raw = try Self.eavesdropper(f)
        let console = try PostgresDatabase(url: f.scratch.location)
        try console.listenForChanges()

        try f.ledger.addCustomer("jane-secret-customer", isTester: false,
                                 contact: CustomerContact(displayName: "Jane Secret", email: "jane@secret.example"), operatorName: "mei")
        try f.ledger.createOrder("ORD-SECRET-77", customer: "jane-secret-customer", product: "com.example.pro.monthly", operatorName: "mei")
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("1000000359369424")]), customer: "jane-secret-customer",
                                        orderId: "ORD-SECRET-77", source: "test", operatorName: "mei")
        let head = try Self.auditHead(f.database)

        // The console on the second connection hears the changes (its entries name no one either).
        var heard: [String] = []
        let deadline = Date().addingTimeInterval(30)
        while !heard.contains("audit_log:\(head)"), Date() < deadline {
            heard += try console.waitForChange(timeout: 1) ?? []
        }
        #expect(heard.contains("audit_log:\(head)"), "heard: \(heard)")

        let schema = try #require(try f.database.queryFirst("SELECT current_schema() AS s", [])?.string("s"))
        let payloads = try Self.payloads(raw, until: "\(schema).audit_log:\(head)", schema: schema)
        #expect(payloads.contains("\(schema).audit_log:\(head)"), "\(payloads)")
        let secrets = ["jane", "Jane", "secret", "SECRET", "1000000359369424", "ORD-"]
        for payload in payloads + heard {
            #expect(!secrets.contains { payload.contains($0) }, "the notice names someone: \(payload)")
        }
        // What a notice may say: the schema and table, and for the audit log its sequence number.
        for payload in payloads {
            let rest = payload.dropFirst(schema.count + 1)
            #expect(payload.hasPrefix(schema + ".") && (Self.tables.contains(String(rest))
                                                          || rest.hasPrefix("audit_log:") && Int64(rest.dropFirst(10)) != nil), "\(payload)")
        }
    }

    @Test(.enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
    func aNoticeSentByHandIsNotReportedAsAChange() throws {
        let f = try BackendLedgerFixture(.postgres)
        try f.ledger.addCustomer("alice", isTester: false, operatorName: "mei")
        let console = try PostgresDatabase(url: f.scratch.location)
        try console.listenForChanges()
        let head = try Self.auditHead(f.database)

        // Anyone who can connect may NOTIFY: by hand, and with what the triggers would send.
        let stranger = try PostgresDatabase(url: f.scratch.location)
        try stranger.execute("NOTIFY changes, 'public.customers:x'", [])
        #expect(try console.waitForChange(timeout: 0.5) == nil)
        for payload in ["customers:alice", "customers", "audit_log:\(head + 1)", "grants:1"] {
            try stranger.execute("SELECT pg_notify('changes', current_schema() || '.' || ?::text)", [.text(payload)])
        }
        #expect(try console.waitForChange(timeout: 0.5) == nil, "a notice sent by hand is not a change")

        // A real change after the fakes is heard (and only as what it is).
        try f.ledger.addCustomer("bob", isTester: false, operatorName: "mei")
        var heard: [String] = []
        let deadline = Date().addingTimeInterval(30)
        while !heard.contains("audit_log:\(head + 1)"), Date() < deadline {
            heard += try console.waitForChange(timeout: 1) ?? []
        }
        #expect(heard.contains("audit_log:\(head + 1)"), "heard: \(heard)")
        #expect(!heard.contains("grants"), "the stranger's hint was dropped with its notice: \(heard)")
    }
}
