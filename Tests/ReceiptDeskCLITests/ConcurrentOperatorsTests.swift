import Foundation
import Testing

/// "Two processes granting the same entitlement to the same customer at the same moment: one
/// grant, and the other is told it already exists; SQLITE_BUSY never reaches the user as a crash."
@Suite("receiptdesk processes writing at once")
struct ConcurrentOperatorsTests {
    static let rounds = 20

    @Test func twoOperatorsGrantingTheSameEntitlementMakeOneGrant() throws {
        let workspace = try LedgerWorkspace()
        let customers = (0..<Self.rounds).map { "racer-\($0)" }
        for customer in customers { try #require(try workspace.run(["customer", "add", customer]).status == 0) }
        for customer in customers {
            let arguments = { (name: String) in
                ["grant", "--customer", customer, "--entitlement", "pro", "--reason", "ticket from \(name)", "--operator", name]
            }
            let outputs = try workspace.runAtOnce([arguments("ann"), arguments("ben")])
            for output in outputs {
                #expect(!output.terminatedBySignal, "\(customer): killed by signal \(output.status): \(output.stderr)")
                #expect(output.status == 0 || output.status == 65, "\(customer): exit \(output.status): \(output.stderr)")
            }
            let winners = outputs.filter { $0.status == 0 }
            let losers = outputs.filter { $0.status == 65 }
            #expect(winners.count == 1 && losers.count == 1, "\(customer): exits \(outputs.map(\.status)): \(outputs.map(\.stderr))")
            if let winner = winners.first {
                #expect(winner.stdout.hasPrefix("granted pro to \(customer) until forever (grant #"), "\(winner.stdout)")
                #expect(winner.stderr.isEmpty, "\(winner.stderr)")
            }
            if let loser = losers.first {
                expectFailure(loser, 65, "customer \(customer) already has", "pro", "nothing changed")
                #expect(loser.stdout.isEmpty)
            }
        }
        #expect(try workspace.count("SELECT count(*) FROM grants") == Self.rounds)
        #expect(try workspace.count("SELECT count(DISTINCT customer_id) FROM grants WHERE revoked_at IS NULL") == Self.rounds)
        #expect(try workspace.count("SELECT count(*) FROM audit_log WHERE action = 'grant'") == Self.rounds)
        let audit = try workspace.run(["audit", "--verify"])
        #expect(audit.status == 0, "\(audit.stdout)")
        #expect(audit.stdout.hasPrefix("audit log intact: \(2 * Self.rounds) entries verified\nhead \(2 * Self.rounds):"), "\(audit.stdout)")
    }

    @Test func fourImportersForOneCustomerAllSucceed() throws {
        let workspace = try LedgerWorkspace()
        // The database exists and is migrated; the customer is created by whichever import lands first.
        try workspace.createDatabase()
        let batches = try (0..<4).map { importer in
            try workspace.forgeCoinReceipts(count: 25, firstTransaction: 100_000 + 1_000 * importer, folder: "importer-\(importer)")
        }
        let outputs = try workspace.runAtOnce(batches.map { ["import", "--customer", "shared"] + $0 })
        for output in outputs {
            #expect(output.status == 0 && !output.terminatedBySignal, "exit \(output.status): \(output.stderr)")
            #expect(output.stderr.isEmpty, "\(output.stderr)")
            let lines = output.stdout.split(separator: "\n")
            #expect(lines.count == 26, "a line per file, then what was granted: \(output.stdout)")
            #expect(lines.last?.hasPrefix("shared: coins ×") == true, "\(output.stdout)")
        }
        #expect(try workspace.count("SELECT count(*) FROM receipts") == 100)
        #expect(try workspace.count("SELECT count(*) FROM transactions WHERE customer_id = 'shared'") == 300)
        #expect(try workspace.count("SELECT count(*) FROM entitlements WHERE customer_id = 'shared' AND source = 'purchase'") == 300)
        let show = try workspace.run(["customer", "show", "shared", "--json"]).jsonObject()
        let coins = (show["entitlements"] as? [[String: Any]])?.first { $0["name"] as? String == "coins" }
        #expect((coins?["balance"] as? NSNumber)?.intValue == 300 * 100, "\(String(describing: coins))")
        let audit = try workspace.run(["audit", "--verify"])
        #expect(audit.status == 0, "\(audit.stdout)")
        #expect(audit.stdout.hasPrefix("audit log intact: 100 entries verified\nhead 100:"), "\(audit.stdout)")
    }

    /// The first use of a database by several processes at once: each must create or migrate it
    /// without tripping over the others. (The race is narrow: one process must read the list of
    /// applied migrations between another's two first transactions, so it takes many rounds.)
    @Test func processesOpeningAFreshDatabaseAtOnce() throws {
        let expectedMigrations = try LedgerWorkspace().migrationCountOfAFreshDatabase()
        for _ in 0..<20 {
            let workspace = try LedgerWorkspace()
            let outputs = try workspace.runAtOnce((0..<6).map { ["customer", "add", "first-\($0)"] })
            for (index, output) in outputs.enumerated() {
                #expect(output.status == 0 && !output.terminatedBySignal, "customer add first-\(index): exit \(output.status): \(output.stderr)")
            }
            #expect(try workspace.count("SELECT count(*) FROM customers") == outputs.filter { $0.status == 0 }.count)
            #expect(try workspace.count("SELECT count(*) FROM schema_migrations") == expectedMigrations)
            #expect(try workspace.run(["audit", "--verify"]).status == 0)
            if outputs.contains(where: { $0.status != 0 }) { break }  // one failing round tells it all
        }
    }
}

extension LedgerWorkspace {
    /// How many migrations a database created by one process alone records.
    func migrationCountOfAFreshDatabase() throws -> Int {
        let reference = try LedgerWorkspace()
        try reference.createDatabase()
        return try reference.count("SELECT count(*) FROM schema_migrations")
    }
}
