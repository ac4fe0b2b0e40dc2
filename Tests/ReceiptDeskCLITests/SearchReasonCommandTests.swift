import Foundation
import PurchaseStore
import Testing

/// `receiptdesk search` says why a customer row matched when it was through a related id, as the
/// console's list does: `customer ada  Ada Lovelace  via txn 3000000000000001  2 transactions`,
/// and `--json` gives the customers list's `matchedVia` (by customer id: kind and value as
/// stored); a customer found by their own id or name has none. On SQLite, and on PostgreSQL when
/// RECEIPTDESK_TEST_POSTGRES_URL is set (a schema of its own, dropped afterwards).
@Suite("Search command: why a customer matched")
struct SearchReasonCommandTests {
    static let postgresURL = ProcessInfo.processInfo.environment["RECEIPTDESK_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let token = "7E3FB20B-0D44-4C7A-9A53-1D8A3F0E6B21"

    @Test func onSQLite() throws {
        try Self.check(try LedgerWorkspace())
    }

    @Test(.enabled(if: postgresURL != nil, "RECEIPTDESK_TEST_POSTGRES_URL is unset: the PostgreSQL case is skipped (make test sets it)"))
    func onPostgreSQL() throws {
        let url = try #require(Self.postgresURL)
        let schema = "rdsearch_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try PostgresDatabase(url: url).execute("CREATE SCHEMA \(schema)", [])
        defer { _ = try? PostgresDatabase(url: url).execute("DROP SCHEMA \(schema) CASCADE", []) }  // best effort: the server is thrown away
        let workspace = try LedgerWorkspace()
        workspace.databaseLocation = url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
        try Self.check(workspace)
    }

    /// ada holds two transactions (one with an app account token) and a merchant order; bob one
    /// transaction with the same token.
    static func check(_ workspace: LedgerWorkspace, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try workspace.createDatabase(sourceLocation: sourceLocation)
        let tokened = try workspace.jws("ada-1.jws", id: "3000000000000001", token: token)
        let plain = try workspace.jws("ada-2.jws", id: "3000000000000002", product: "com.example.pro.monthly")
        let bobs = try workspace.jws("bob.jws", id: "3000000000000009", token: token)
        for (file, customer) in [(tokened, "ada"), (plain, "ada"), (bobs, "bob")] {
            let imported = try workspace.run(["import", file, "--customer", customer])
            try #require(imported.status == 0, "import \(file): \(imported.stdout)\(imported.stderr)", sourceLocation: sourceLocation)
        }
        for command in [["customer", "add", "ada", "--name", "Ada Lovelace", "--email", "ada@example.com"],
                        ["order", "create", "--customer", "ada", "--order", "ORD-17", "--product", "com.example.coins.100"]] {
            let output = try workspace.run(command)
            try #require(output.status == 0, "\(command): \(output.stderr)", sourceLocation: sourceLocation)
        }

        // Text: the reason after the name and email, the value as stored.
        let byTransaction = try workspace.run(["search", "3000000000000002"])
        #expect(byTransaction.status == 0, "\(byTransaction.stderr)", sourceLocation: sourceLocation)
        #expect(byTransaction.stdout.contains("\n  customer ada  Ada Lovelace <ada@example.com>  via txn 3000000000000002  2 transactions\n"),
                "\(byTransaction.stdout)", sourceLocation: sourceLocation)
        let byOrder = try workspace.run(["search", "ord-17"])
        #expect(byOrder.stdout.contains("  customer ada  Ada Lovelace <ada@example.com>  via order ORD-17  2 transactions\n"), "\(byOrder.stdout)",
                sourceLocation: sourceLocation)
        let byToken = try workspace.run(["search", token.lowercased()])
        #expect(byToken.stdout.range(of: "  customer ada  Ada Lovelace <ada@example.com>  via token \(token)  2 transactions\n", options: .caseInsensitive) != nil
                && byToken.stdout.range(of: "  customer bob  via token \(token)  1 transaction\n", options: .caseInsensitive) != nil,
                "\(byToken.stdout)", sourceLocation: sourceLocation)
        // Found by their own id or name: no reason.
        for own in ["ada", "lovelace"] {
            let output = try workspace.run(["search", own])
            #expect(output.stdout.contains("  customer ada  Ada Lovelace <ada@example.com>  2 transactions\n") && !output.stdout.contains("via "),
                    "\(own): \(output.stdout)", sourceLocation: sourceLocation)
        }

        // JSON: the customers list's matchedVia, by customer id; each customer of the page has its own.
        let both = try workspace.run(["search", token.lowercased(), "--json"])
        #expect(both.status == 0, "\(both.stderr)", sourceLocation: sourceLocation)
        let customers = try customersList(both, sourceLocation: sourceLocation)
        #expect(customers["rows"] as? [String] == ["ada", "bob"], "\(both.stdout)", sourceLocation: sourceLocation)
        let via = try #require(customers["matchedVia"] as? [String: [String: String]], "\(both.stdout)", sourceLocation: sourceLocation)
        #expect(via.keys.sorted() == ["ada", "bob"] && via.values.allSatisfy { $0["kind"] == "appAccountToken" && $0["value"]?.lowercased() == token.lowercased() },
                "\(both.stdout)", sourceLocation: sourceLocation)
        let transactionJSON = try customersList(try workspace.run(["search", "3000000000000001", "--json"]), sourceLocation: sourceLocation)
        #expect(transactionJSON["matchedVia"] as? [String: [String: String]] == ["ada": ["kind": "transaction", "value": "3000000000000001"]],
                "\(transactionJSON)", sourceLocation: sourceLocation)
        let orderJSON = try customersList(try workspace.run(["search", "ord-17", "--json"]), sourceLocation: sourceLocation)
        #expect(orderJSON["matchedVia"] as? [String: [String: String]] == ["ada": ["kind": "order", "value": "ORD-17"]], sourceLocation: sourceLocation)
        let ownJSON = try customersList(try workspace.run(["search", "ada", "--json"]), sourceLocation: sourceLocation)
        #expect((ownJSON["matchedVia"] as? [String: Any])?.isEmpty == true, "\(ownJSON)", sourceLocation: sourceLocation)
    }

    /// The `customers` list of `search --json`'s output.
    static func customersList(_ output: CLIRunner.Output, sourceLocation: SourceLocation) throws -> [String: Any] {
        let lists = try #require(try output.jsonObject(sourceLocation: sourceLocation)["lists"] as? [[String: Any]], "\(output.stdout)",
                                 sourceLocation: sourceLocation)
        return try #require(lists.first { $0["list"] as? String == "customers" }, "no customers list: \(output.stdout)", sourceLocation: sourceLocation)
    }
}
