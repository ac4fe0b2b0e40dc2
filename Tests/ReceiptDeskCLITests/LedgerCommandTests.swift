import Foundation
import Testing

/// The ledger commands run as a support engineer runs them: the real binary, a fresh database per
/// test (`--db`), the test catalogue (`--config`) and the test CA's roots (`--trust-anchor`).
@Suite("receiptdesk ledger commands")
struct LedgerCommandTests {
    // MARK: import and customer show

    @Test func importRecordsOnceAndCustomerShowListsIt() throws {
        let workspace = try LedgerWorkspace()
        let receipt = try workspace.receipt("alice.b64", [
            LedgerWorkspace.purchase("1000000001"),
            LedgerWorkspace.purchase("1000000002", "com.example.coins.100", expires: nil, type: 0),
        ])
        let first = try workspace.run(["import", receipt, "--customer", "alice"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.hasPrefix("\(receipt): unified, PRODUCTION, valid — receipt #1: 2 recorded (0 bound to an order), 0 duplicates, 0 conflicts"),
                "\(first.stdout)")
        // The first write made the database, and said so in one line; the next says nothing.
        #expect(first.stderr == "receiptdesk: created a new purchase database at \(workspace.databasePath)\n", "\(first.stderr)")
        let before = try snapshot(workspace)

        // The same bytes again, and the same transactions through another receipt: nothing changes.
        let again = try workspace.run(["import", receipt, "--customer", "alice"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("nothing new: 0 recorded (0 bound to an order), 2 duplicates, 0 conflicts"), "\(again.stdout)")
        let sameTransactions = try workspace.receipt("alice-again.b64", [
            LedgerWorkspace.purchase("1000000002", "com.example.coins.100", expires: nil, type: 0),
            LedgerWorkspace.purchase("1000000001"),
        ], originalAppVersion: "51")
        let other = try workspace.run(["import", sameTransactions, "--customer", "alice"])
        #expect(other.status == 0, "\(other.stderr)")
        #expect(other.stdout.contains("2 duplicate"), "\(other.stdout)")
        #expect(try snapshot(workspace) == before, "a repeated import changed the database")

        let show = try workspace.run(["customer", "show", "alice"])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.hasPrefix("customer alice\n"))
        #expect(show.stdout.contains("● pro: "), "\(show.stdout)")
        #expect(show.stdout.contains("1000000001"), "\(show.stdout)")
        #expect(show.stdout.contains("1000000001  com.example.pro.monthly ×1  PRODUCTION  bought 2025-05-01T00:00:00Z  expires 2039-01-01T00:00:00Z  unbound"),
                "\(show.stdout)")
        #expect(show.stdout.contains("1000000002  com.example.coins.100 ×1  PRODUCTION"), "\(show.stdout)")
        #expect(show.stdout.contains("#1  unified  PRODUCTION  valid  imported "), "\(show.stdout)")
        #expect(show.stdout.contains(" by tester  (import alice.b64)"), "\(show.stdout)")
        #expect(!show.stdout.contains("alice-again.b64"), "a receipt that brought nothing new was stored")
    }

    @Test func importAndCustomerShowAsJSON() throws {
        let workspace = try LedgerWorkspace()
        let receipt = try workspace.receipt("bob.b64", [LedgerWorkspace.purchase("2000000001")])
        let imported = try workspace.run(["import", receipt, "--customer", "bob", "--json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let results = try imported.importedFiles()
        try #require(results.count == 1)
        // What the import granted, as the text's last line says it.
        let granted = try imported.importGranted()
        #expect(!granted.isEmpty && granted.allSatisfy { $0["customerId"] as? String == "bob" && $0["entitlement"] is String
                                                         && ($0["until"] != nil || $0["quantity"] is Int) }, "\(imported.stdout)")
        let again = try workspace.run(["import", receipt, "--customer", "bob", "--json"])
        #expect(try again.importGranted().isEmpty, "nothing newly granted: \(again.stdout)")
        for key in ["file", "receiptId", "changed", "format", "environment", "verdict", "transactions", "notes"] {
            #expect(results[0][key] != nil, "import --json lacks \(key): \(imported.stdout)")
        }
        #expect(results[0]["changed"] as? Bool == true)
        #expect(results[0]["format"] as? String == "unified")
        #expect((results[0]["verdict"] as? [String: Any])?["status"] as? String == "valid")
        let transactions = try #require(results[0]["transactions"] as? [[String: Any]])
        #expect(transactions.count == 1)
        #expect(transactions.first?["transactionId"] as? String == "2000000001")
        #expect(transactions.first?["outcome"] as? String == "recorded")
        #expect(transactions.first?["binding"] as? String == "unbound")

        let show = try workspace.run(["customer", "show", "bob", "--json"])
        #expect(show.status == 0, "\(show.stderr)")
        let summary = try show.jsonObject()
        for key in ["customerId", "tester", "orders", "transactions", "receipts", "grants", "entitlements", "conflicts"] {
            #expect(summary[key] != nil, "customer show --json lacks \(key): \(show.stdout)")
        }
        #expect(summary["customerId"] as? String == "bob")
        #expect(summary["tester"] as? Bool == false)
        let entitlements = try #require(summary["entitlements"] as? [[String: Any]])
        let pro = try #require(entitlements.first { $0["name"] as? String == "pro" }, "\(show.stdout)")
        #expect(pro["active"] as? Bool == true)
        #expect((pro["reason"] as? String)?.contains("2000000001") == true, "\(pro)")
        for key in ["name", "active", "ends", "balance", "reason", "sources"] { #expect(pro[key] != nil, "entitlement lacks \(key)") }
        let receipts = try #require(summary["receipts"] as? [[String: Any]])
        #expect(receipts.count == 1)
        for key in ["receiptId", "sha256", "format", "environment", "verdict", "source", "importedAt", "importedBy"] {
            #expect(receipts.first?[key] != nil, "receipt lacks \(key)")
        }
        let records = try #require(summary["transactions"] as? [[String: Any]])
        #expect(records.first?["transactionId"] as? String == "2000000001")
        #expect(records.first?["customerId"] as? String == "bob")
    }

    @Test func forgedAndSandboxReceiptsGrantNothing() throws {
        let workspace = try LedgerWorkspace()
        // Without the test CA's roots the same receipt is not Apple's: stored, flagged, grants nothing.
        let receipt = try workspace.receipt("forged.b64", [LedgerWorkspace.purchase("3000000001")])
        let untrusted = try CLIRunner.run(["import", receipt, "--customer", "carol", "--db", workspace.databasePath,
                                           "--config", workspace.configPath, "--operator", "tester"])
        #expect(untrusted.stdout.contains("unified, PRODUCTION, invalid — receipt #1: 0 recorded"), "\(untrusted.stdout) \(untrusted.stderr)")
        #expect(untrusted.stdout.contains("grants nothing"), "\(untrusted.stdout)")
        #expect(try workspace.count("SELECT count(*) FROM transactions") == 0)

        let sandbox = try workspace.receipt("sandbox.b64", [LedgerWorkspace.purchase("3000000002")], type: "ProductionSandbox")
        let flagged = try workspace.run(["import", sandbox, "--customer", "dave"])
        #expect(flagged.status == 0, "\(flagged.stderr)")
        #expect(flagged.stdout.contains("SANDBOX, valid — receipt #2: 1 recorded"), "\(flagged.stdout)")
        #expect(flagged.stdout.contains("SANDBOX purchases are flagged"), "\(flagged.stdout)")
        // Nor is it printed for a tester, to whom the purchase does grant.
        #expect(try workspace.run(["customer", "add", "tess", "--tester"]).status == 0)
        let tester = try workspace.run(["import", try workspace.receipt("sandbox-tester.b64", [LedgerWorkspace.purchase("3000000003")],
                                                                        type: "ProductionSandbox"), "--customer", "tess"])
        #expect(tester.status == 0, "\(tester.stderr)")
        #expect(!tester.stdout.contains("purchases are flagged"), "\(tester.stdout)")
        let show = try workspace.run(["customer", "show", "dave", "--json"])
        let entitlements = try #require(try show.jsonObject()["entitlements"] as? [[String: Any]])
        #expect(!entitlements.contains { $0["active"] as? Bool == true }, "a sandbox purchase granted: \(show.stdout)")

        // The configuration's sandbox policy reaches the ledger.
        var allowing = LedgerWorkspace.configJSON
        allowing = allowing.replacingOccurrences(of: "\"allowSandbox\": false", with: "\"allowSandbox\": true")
        let permissive = try LedgerWorkspace(config: allowing)
        let permitted = try permissive.run(["import", try permissive.receipt("sandbox.b64", [LedgerWorkspace.purchase("3000000002")],
                                                                             type: "ProductionSandbox"), "--customer", "dave"])
        #expect(permitted.status == 0, "\(permitted.stderr)")
        // With allowSandbox on, the note that sandbox purchases grant nothing would be false: it is not printed.
        #expect(!permitted.stdout.contains("purchases are flagged"), "\(permitted.stdout)")
        let granted = try #require(try permissive.run(["customer", "show", "dave", "--json"]).jsonObject()["entitlements"] as? [[String: Any]])
        #expect(granted.contains { $0["name"] as? String == "pro" && $0["active"] as? Bool == true }, "\(granted)")
    }

    // MARK: orders

    @Test func ordersAreCreatedBoundAndFailed() throws {
        let workspace = try LedgerWorkspace()
        let token = "6F1C2B52-64E1-4C7E-9F0A-2E5C1D9A7B31"
        let created = try workspace.run(["order", "create", "--customer", "erin", "--order", "o-1", "--product", "com.example.pro.lifetime",
                                         "--account-token", token])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout == "order o-1 created: customer erin, product com.example.pro.lifetime, pending\n", "\(created.stdout)")
        let repeated = try workspace.run(["order", "create", "--customer", "erin", "--order", "o-1", "--product", "com.example.pro.lifetime",
                                          "--json"])
        #expect(repeated.status == 0, "\(repeated.stderr)")
        let order = try repeated.jsonObject()
        for key in ["orderId", "customerId", "productId", "accountToken", "createdAt", "status", "transactionId", "failureReason"] {
            #expect(order[key] != nil, "order --json lacks \(key): \(repeated.stdout)")
        }
        #expect(order["status"] as? String == "pending")
        #expect(order["accountToken"] as? String == token)
        let clash = try workspace.run(["order", "create", "--customer", "frank", "--order", "o-1", "--product", "com.example.pro.lifetime"])
        expectFailure(clash, 65, "order o-1 already exists for customer erin")

        // The StoreKit 2 transaction carries the order's appAccountToken: it binds to the order.
        let jws = try workspace.jws("erin.jws", id: "4000000001", token: token.lowercased())
        let imported = try workspace.run(["import", jws, "--customer", "erin", "--json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let report = try #require(try imported.importedFiles().first?["transactions"] as? [[String: Any]])
        #expect(report.first?["binding"] as? String == "account-token", "\(imported.stdout)")
        #expect(report.first?["orderId"] as? String == "o-1")

        // An explicit --order binds a receipt's purchase.
        _ = try workspace.run(["order", "create", "--customer", "erin", "--order", "o-2", "--product", "com.example.pro.monthly"])
        let receipt = try workspace.receipt("erin.b64", [LedgerWorkspace.purchase("4000000002")])
        let explicit = try workspace.run(["import", receipt, "--customer", "erin", "--order", "o-2"])
        #expect(explicit.status == 0, "\(explicit.stderr)")
        #expect(explicit.stdout.contains("1 recorded (1 bound to an order)"), "\(explicit.stdout)")
        let wrongOwner = try workspace.run(["import", receipt, "--customer", "frank", "--order", "o-2"])
        #expect(wrongOwner.status == 65)
        #expect(wrongOwner.stderr.contains("order o-2 belongs to customer erin, not frank"), "\(wrongOwner.stderr)")

        // Failed payments: once per order, never on a paid one.
        _ = try workspace.run(["order", "create", "--customer", "erin", "--order", "o-3", "--product", "com.example.coins.100"])
        let failed = try workspace.run(["order", "fail", "o-3", "--reason", "card declined"])
        #expect(failed.status == 0, "\(failed.stderr)")
        #expect(failed.stdout == "order o-3: failed payment recorded (card declined)\n", "\(failed.stdout)")
        expectFailure(try workspace.run(["order", "fail", "o-3", "--reason", "card declined"]), 65, "already has its failed payment recorded")
        expectFailure(try workspace.run(["order", "fail", "o-1", "--reason", "late callback"]), 65, "order o-1 is paid by transaction 4000000001")
        expectFailure(try workspace.run(["order", "fail", "o-404", "--reason", "x"]), 65, "order o-404 not found", "receiptdesk order create")
        _ = try workspace.run(["order", "create", "--customer", "erin", "--order", "o-4", "--product", "com.example.coins.100"])
        let failedJSON = try workspace.run(["order", "fail", "o-4", "--reason", "cancelled", "--json"]).jsonObject()
        #expect(failedJSON["status"] as? String == "failed")
        #expect(failedJSON["failureReason"] as? String == "cancelled")

        let show = try workspace.run(["customer", "show", "erin"])
        #expect(show.stdout.contains("o-1  com.example.pro.lifetime  paid  created "), "\(show.stdout)")
        #expect(show.stdout.contains("← transaction 4000000001"), "\(show.stdout)")
        #expect(show.stdout.contains("o-3  com.example.coins.100  failed  created "), "\(show.stdout)")
        #expect(show.stdout.contains("(card declined)"), "\(show.stdout)")
        #expect(show.stdout.contains("4000000002  com.example.pro.monthly ×1  PRODUCTION  bought 2025-05-01T00:00:00Z  expires 2039-01-01T00:00:00Z  order o-2 (explicit)"),
                "\(show.stdout)")
    }

    // MARK: grants, revocations, restore

    @Test func customerAddGrantAndRevoke() throws {
        let workspace = try LedgerWorkspace()
        #expect(try workspace.run(["customer", "add", "gina"]).stdout == "customer gina added\n")
        #expect(try workspace.run(["customer", "add", "gina"]).stdout == "customer gina already exists: nothing changed\n")
        #expect(try workspace.run(["customer", "add", "gina", "--tester"]).stdout == "customer gina already exists: updated its tester mark\n")

        let granted = try workspace.run(["grant", "--customer", "gina", "--entitlement", "pro", "--until", "2039-01-01",
                                         "--reason", "support ticket 4711"])
        #expect(granted.status == 0, "\(granted.stderr)")
        #expect(granted.stdout == "granted pro to gina until 2039-01-01T00:00:00Z (grant #1)\n", "\(granted.stdout)")
        expectFailure(try workspace.run(["grant", "--customer", "gina", "--entitlement", "pro", "--reason", "again"]), 65,
                      "customer gina already has grant #1 of pro", "nothing changed")
        let coins = try workspace.run(["grant", "--customer", "gina", "--entitlement", "coins", "--for", "P30D", "--reason", "goodwill", "--json"])
        #expect(coins.status == 0, "\(coins.stderr)")
        let grant = try coins.jsonObject()
        for key in ["grantId", "customerId", "entitlement", "startsAt", "endsAt", "reason", "grantedBy", "revokedAt"] {
            #expect(grant[key] != nil, "grant --json lacks \(key): \(coins.stdout)")
        }
        #expect((grant["grantId"] as? NSNumber)?.intValue == 2)
        #expect(grant["grantedBy"] as? String == "tester")
        #expect(grant["revokedAt"] is NSNull)
        expectFailure(try workspace.run(["grant", "--customer", "gina", "--entitlement", "platinum", "--reason", "x"]), 64,
                      "entitlement platinum is not in the catalogue")

        let show = try workspace.run(["customer", "show", "gina"])
        #expect(show.stdout.hasPrefix("customer gina  (sandbox tester)\n"), "\(show.stdout)")
        #expect(show.stdout.contains("#1  pro  until 2039-01-01T00:00:00Z  by tester: support ticket 4711"), "\(show.stdout)")

        let revoked = try workspace.run(["revoke", "--customer", "gina", "--grant", "#1", "--reason", "ticket closed"])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(revoked.stdout == "revoked grant #1 for gina\n", "\(revoked.stdout)")
        expectFailure(try workspace.run(["revoke", "--customer", "gina", "--grant", "1", "--reason", "again"]), 65, "grant #1 is already revoked")
        expectFailure(try workspace.run(["revoke", "--customer", "gina", "--grant", "99", "--reason", "x"]), 65, "grant #99 not found")
        let byName = try workspace.run(["revoke", "--customer", "gina", "--entitlement", "coins", "--reason", "abuse", "--json"])
        #expect(byName.status == 0, "\(byName.stderr)")
        let after = try byName.jsonObject()
        #expect(after["customerId"] as? String == "gina")
        let states = try #require(after["entitlements"] as? [[String: Any]])
        #expect(!states.contains { $0["active"] as? Bool == true }, "\(byName.stdout)")
        expectFailure(try workspace.run(["revoke", "--customer", "gina", "--entitlement", "coins", "--reason", "again"]), 65,
                      "customer gina does not hold coins")

        // A revoked grant makes room for a new one.
        let regranted = try workspace.run(["grant", "--customer", "gina", "--entitlement", "pro", "--reason", "reopened"])
        #expect(regranted.stdout == "granted pro to gina until forever (grant #3)\n", "\(regranted.stdout) \(regranted.stderr)")
    }

    @Test func restoreMovesPurchasesToANewAccount() throws {
        let workspace = try LedgerWorkspace()
        let receipt = try workspace.receipt("old.b64", [
            LedgerWorkspace.purchase("5000000001"),
            LedgerWorkspace.purchase("5000000002", "com.example.coins.100", expires: nil, type: 0),
        ])
        #expect(try workspace.run(["import", receipt, "--customer", "old-account"]).status == 0)

        let dryRun = try workspace.run(["restore", "--customer", "new-account", "--from-customer", "old-account",
                                        "--reason", "new phone", "--dry-run"])
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(dryRun.stdout.hasPrefix("would move 2 transactions to new-account\n"), "\(dryRun.stdout)")
        #expect(try workspace.count("SELECT count(*) FROM transactions WHERE customer_id = 'old-account'") == 2, "a dry run moved something")

        let moved = try workspace.run(["restore", "--customer", "new-account", "--from-customer", "old-account",
                                       "--transaction", "5000000001", "--reason", "new phone"])
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stdout == "moved 1 transaction to new-account\n  5000000001  from old-account\n", "\(moved.stdout)")
        expectFailure(try workspace.run(["restore", "--customer", "new-account", "--from-customer", "old-account",
                                         "--transaction", "5000000001", "--reason", "again"]), 65,
                      "transaction 5000000001 does not belong to customer old-account")

        // From the receipt the customer presents: what another customer owns moves over.
        let fromReceipt = try workspace.run(["restore", "--customer", "new-account", "--receipt", receipt, "--reason", "restore button", "--json"])
        #expect(fromReceipt.status == 0, "\(fromReceipt.stderr)")
        let result = try fromReceipt.jsonObject()
        #expect(result["dryRun"] as? Bool == false)
        let moves = try #require(result["moved"] as? [[String: Any]], "\(fromReceipt.stdout)")
        #expect(moves.count == 1)
        #expect(moves.first?["transactionId"] as? String == "5000000002")
        #expect(moves.first?["from"] as? String == "old-account")
        #expect((result["imported"] as? [Any])?.isEmpty == true)

        #expect(try workspace.count("SELECT count(*) FROM transactions WHERE customer_id = 'new-account'") == 2)
        let trail = try workspace.run(["audit", "--json"]).jsonArray()
        let transfers = trail.filter { $0["action"] as? String == "transfer-out" }
        let restores = trail.filter { $0["action"] as? String == "restore" }
        #expect(transfers.count == 2 && transfers.allSatisfy { $0["target"] as? String == "customer:old-account" }, "\(trail)")
        #expect(restores.count == 2 && restores.allSatisfy { $0["target"] as? String == "customer:new-account" }, "\(trail)")
        expectFailure(try workspace.run(["restore", "--customer", "new-account", "--from-customer", "new-account", "--reason", "x"]), 64,
                      "restoring from a customer to themselves")
    }

    // MARK: conflicts

    @Test func conflictsAreListedAndResolved() throws {
        let workspace = try LedgerWorkspace()
        let receipt = try workspace.receipt("shared.b64", [LedgerWorkspace.purchase("6000000001")])
        #expect(try workspace.run(["import", receipt, "--customer", "henry"]).status == 0)
        let claimed = try workspace.run(["import", receipt, "--customer", "irene"])
        #expect(claimed.status == 0, "\(claimed.stderr)")
        #expect(claimed.stdout.contains("0 recorded (0 bound to an order), 0 duplicates, 1 conflict"), "\(claimed.stdout)")
        #expect(claimed.stdout.contains("\n  conflict: 6000000001 owned by henry (conflict #1)"), "\(claimed.stdout)")
        let irene = try #require(try workspace.run(["customer", "show", "irene", "--json"]).jsonObject()["entitlements"] as? [[String: Any]])
        #expect(!irene.contains { $0["active"] as? Bool == true }, "a claimed transaction granted twice")

        let listed = try workspace.run(["conflicts"])
        #expect(listed.status == 0)
        // irene presented henry's receipt, stored once under henry: it is not "her" receipt (issue 29).
        #expect(listed.stdout.hasPrefix("conflicts:\n  #1  transaction 6000000001: owned by henry, claimed by irene (presented receipt #1, stored under henry, "),
                "\(listed.stdout)")
        let ireneShown = try workspace.run(["customer", "show", "irene"])
        #expect(ireneShown.stdout.contains("#1 presented by them, stored under henry who presented it first (conflict #1)"), "\(ireneShown.stdout)")
        #expect(listed.stdout.contains(")  open"), "\(listed.stdout)")
        let json = try workspace.run(["conflicts", "--json"]).jsonObject()
        #expect(json["ambiguousBindings"] is [Any])
        let conflict = try #require((json["conflicts"] as? [[String: Any]])?.first)
        for key in ["conflictId", "transactionId", "owner", "claimant", "receiptId", "openedAt", "status", "resolvedOwner"] {
            #expect(conflict[key] != nil, "conflict lacks \(key)")
        }
        #expect(conflict["owner"] as? String == "henry")
        #expect(conflict["claimant"] as? String == "irene")

        expectFailure(try workspace.run(["conflicts", "resolve", "1", "--owner", "nobody", "--reason", "x"]), 64, "the owner must be henry or irene")
        let resolved = try workspace.run(["conflicts", "resolve", "#1", "--owner", "irene", "--reason", "Apple ID moved"])
        #expect(resolved.status == 0, "\(resolved.stderr)")
        #expect(resolved.stdout == "conflict #1 resolved: irene owns the transaction\n")
        expectFailure(try workspace.run(["conflicts", "resolve", "1", "--owner", "irene", "--reason", "again"]), 65, "conflict #1 is already resolved")
        expectFailure(try workspace.run(["conflicts", "resolve", "7", "--owner", "irene", "--reason", "x"]), 65, "conflict #7 not found")
        #expect(try workspace.run(["conflicts"]).stdout == "no open conflicts\n")
        // The row keeps who owned it before, and says who resolved it for whom and why.
        let all = try workspace.run(["conflicts", "--all"]).stdout
        #expect(all.contains("#1  transaction 6000000001: owned by henry, claimed by irene"), "\(all)")
        #expect(all.contains("resolved for irene by "), "\(all)")
        #expect(all.contains(": Apple ID moved"), "\(all)")
        #expect(try workspace.count("SELECT count(*) FROM transactions WHERE transaction_id = '6000000001' AND customer_id = 'irene'") == 1)
    }

    // MARK: audit

    @Test func auditListsEntriesAsTextAndJSON() throws {
        let workspace = try LedgerWorkspace()
        try populateAudit(workspace)
        let text = try workspace.run(["audit"])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.count == 4)
        // The operator name given, then the user the database says wrote it (SQLite: the OS user).
        #expect(lines.first?.hasPrefix("#4  ") == true && lines.first?.contains("  tester [os:") == true
                && lines.first?.contains("]  grant  customer:kim  ") == true, "\(text.stdout)")
        #expect(lines.last?.contains("]  customer-add  customer:jack  {\"tester\":false}") == true, "\(text.stdout)")
        let json = try workspace.run(["audit", "--json", "--limit", "2"]).jsonArray()
        #expect(json.count == 2)
        for key in ["seq", "at", "operator", "action", "target", "details", "hash", "databaseUser"] { #expect(json.first?[key] != nil, "audit entry lacks \(key)") }
        #expect((json.first?["databaseUser"] as? String)?.hasPrefix("os:") == true, "SQLite records the OS user")
        #expect((json.first?["seq"] as? NSNumber)?.intValue == 4)
        let targeted = try workspace.run(["audit", "--target", "customer:kim", "--json"]).jsonArray()
        #expect(targeted.map { ($0["action"] as? String) ?? "" } == ["grant", "customer-tester", "customer-add"])
    }

    @Test func auditVerifyOnAnUntouchedLog() throws {
        let workspace = try LedgerWorkspace()
        try workspace.createDatabase()
        let empty = try workspace.run(["audit", "--verify"])
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(empty.stdout == "audit log intact: 0 entries verified\nrows explained by the log: grants 0, conflicts 0, entitlement rows 0\n")
        try populateAudit(workspace)
        let intact = try workspace.run(["audit", "--verify"])
        #expect(intact.status == 0, "\(intact.stderr)")
        #expect(intact.stdout.hasPrefix("audit log intact: 4 entries verified\nhead 4:"))
        let json = try workspace.run(["audit", "--verify", "--json"]).jsonObject()
        #expect(json["intact"] as? Bool == true)
        #expect((json["checked"] as? NSNumber)?.intValue == 4)
        #expect(json["problem"] is NSNull)
    }

    @Test func auditVerifyCatchesAnEditedEntry() throws {
        let workspace = try LedgerWorkspace()
        try populateAudit(workspace)
        _ = try workspace.sql("UPDATE audit_log SET details = '{\"tester\":true}' WHERE seq = 2")
        let broken = try workspace.run(["audit", "--verify"])
        #expect(broken.status == 1, "\(broken.stdout) \(broken.stderr)")
        #expect(broken.stdout.hasPrefix("audit log BROKEN after 1 good entries: entry 2 was altered: its hash does not match its content\n"),
                "\(broken.stdout)")
        let json = try workspace.run(["audit", "--verify", "--json"])
        #expect(json.status == 1)
        let verdict = try json.jsonObject()
        #expect(verdict["intact"] as? Bool == false)
        #expect((verdict["problem"] as? String)?.contains("entry 2 was altered") == true, "\(json.stdout)")

        // Editing the operator of the same row is caught just the same.
        let other = try LedgerWorkspace()
        try populateAudit(other)
        _ = try other.sql("UPDATE audit_log SET operator = 'someone-else' WHERE seq = 3")
        let edited = try other.run(["audit", "--verify"])
        #expect(edited.status == 1)
        #expect(edited.stdout.contains("entry 3 was altered"), "\(edited.stdout)")
    }

    @Test func auditVerifyCatchesADeletedMiddleEntry() throws {
        let workspace = try LedgerWorkspace()
        try populateAudit(workspace)
        _ = try workspace.sql("DELETE FROM audit_log WHERE seq = 2")
        let broken = try workspace.run(["audit", "--verify"])
        #expect(broken.status == 1, "\(broken.stdout) \(broken.stderr)")
        #expect(broken.stdout.contains("after 1 good entries: entry 2 was removed"), "\(broken.stdout)")
    }

    @Test func auditVerifyCatchesADeletedLastEntry() throws {
        let workspace = try LedgerWorkspace()
        try populateAudit(workspace)
        _ = try workspace.sql("DELETE FROM audit_log WHERE seq = (SELECT max(seq) FROM audit_log)")
        let broken = try workspace.run(["audit", "--verify"])
        #expect(broken.status == 1, "\(broken.stdout) \(broken.stderr)")
        #expect(broken.stdout.contains("after 3 good entries: entry 4 was removed"), "\(broken.stdout)")
        // Removing every entry is no way out either.
        _ = try workspace.sql("DELETE FROM audit_log")
        let emptied = try workspace.run(["audit", "--verify"])
        #expect(emptied.status == 1, "\(emptied.stdout)")
        #expect(emptied.stdout.contains("entry 1 was removed"), "\(emptied.stdout)")
    }

    // MARK: errors

    @Test func usageErrorsExitSixtyFourWithOneLine() throws {
        let workspace = try LedgerWorkspace()
        let receipt = try workspace.receipt("r.b64", [LedgerWorkspace.purchase("7000000001")])
        let cases: [([String], String)] = [
            (["import", "--customer", "lee"], "import needs at least one FILE"),
            (["import", receipt], "import needs --customer ID"),
            (["import", receipt, "--customer", "lee", "--bogus"], "unknown option --bogus"),
            (["order", "ship", "o-1"], "unknown order subcommand 'ship'"),
            (["order", "create", "--customer", "lee"], "order create needs --customer ID --order ORDER --product PRODUCT"),
            (["order", "fail", "--reason", "x"], "order fail needs ORDER"),
            (["customer", "show"], "customer show needs ID"),
            (["customer", "show", "lee", "mia"], "unexpected argument mia"),
            (["grant", "--customer", "lee"], "grant needs --customer ID --entitlement E"),
            (["grant", "--customer", "lee", "--entitlement", "pro", "--reason", "r", "--until", "next week"], "--until next week is not a date"),
            (["grant", "--customer", "lee", "--entitlement", "pro", "--reason", "r", "--for", "30 days"], "--for 30 days is not an ISO 8601 duration"),
            (["grant", "--customer", "lee", "--entitlement", "pro", "--reason", "r", "--for", "P1D", "--until", "2039-01-01"], "give --until or --for, not both"),
            (["revoke", "--entitlement", "pro", "--reason", "r"], "revoke needs --customer ID"),
            (["revoke", "--customer", "lee", "--grant", "abc", "--reason", "r"], "--grant abc is not a grant number"),
            (["restore", "--from-customer", "mia", "--reason", "r"], "restore needs --customer ID"),
            (["conflicts", "resolve", "first", "--owner", "lee", "--reason", "r"], "conflicts resolve needs the conflict number"),
            (["conflicts", "resolve", "1", "--reason", "r"], "conflicts resolve needs --owner CUSTOMER"),
            (["audit", "--limit", "0"], "--limit 0 is not between 1 and 100000"),
            (["audit", "extra"], "unexpected argument extra"),
            (["audit", "--customer", "lee"], "unknown option --customer"),
            (["audit", "--trust-anchor", "/nonexistent/root.der"], "--trust-anchor /nonexistent/root.der: cannot read the file"),
        ]
        for (arguments, message) in cases {
            let output = try workspace.run(arguments)
            expectFailure(output, 64, "receiptdesk \(arguments[0]): ", message)
            #expect(output.stdout.isEmpty, "\(arguments): \(output.stdout)")
        }
        // A bare group command has nothing to put options after.
        expectFailure(try CLIRunner.run(["order"]), 64, "receiptdesk order: order needs a subcommand: create or fail")
        expectFailure(try CLIRunner.run(["customer"]), 64, "receiptdesk customer: customer needs a subcommand: show, add, export, note or erase")
        #expect(!FileManager.default.fileExists(atPath: workspace.databasePath), "a usage error opened the database")
    }

    @Test func everyManualChangeNeedsAReason() throws {
        let workspace = try LedgerWorkspace()
        #expect(try workspace.run(["customer", "add", "nora"]).status == 0)
        #expect(try workspace.run(["import", try workspace.receipt("r.b64", [LedgerWorkspace.purchase("8000000001")]), "--customer", "olaf"]).status == 0)
        let auditBefore = try workspace.count("SELECT count(*) FROM audit_log")
        let cases: [[String]] = [
            ["grant", "--customer", "nora", "--entitlement", "pro"],
            ["grant", "--customer", "nora", "--entitlement", "pro", "--reason", "   "],
            ["revoke", "--customer", "olaf", "--entitlement", "pro"],
            ["revoke", "--customer", "olaf", "--entitlement", "pro", "--reason", ""],
            ["restore", "--customer", "nora", "--from-customer", "olaf"],
            ["conflicts", "resolve", "1", "--owner", "nora"],
        ]
        for arguments in cases {
            expectFailure(try workspace.run(arguments), 64, "a reason is required")
        }
        expectFailure(try workspace.run(["order", "fail", "o-1"]), 64, "order fail needs --reason TEXT")
        #expect(try workspace.count("SELECT count(*) FROM audit_log") == auditBefore, "a change without a reason was recorded")
        #expect(try workspace.count("SELECT count(*) FROM grants") == 0)
        #expect(try workspace.count("SELECT count(*) FROM transactions WHERE customer_id = 'olaf'") == 1)
    }

    @Test func unknownCustomerIsBadInputThatSaysWhatToDo() throws {
        let workspace = try LedgerWorkspace()
        #expect(try workspace.run(["customer", "add", "pia"]).status == 0)
        let cases: [[String]] = [
            ["grant", "--customer", "ghost", "--entitlement", "pro", "--reason", "r"],
            ["revoke", "--customer", "ghost", "--entitlement", "pro", "--reason", "r"],
            ["restore", "--customer", "pia", "--from-customer", "ghost", "--reason", "r"],
            ["customer", "show", "ghost"],
        ]
        for arguments in cases {
            expectFailure(try workspace.run(arguments), 65, "customer ghost not found", "receiptdesk customer add ghost")
        }
        #expect(try workspace.count("SELECT count(*) FROM customers WHERE customer_id = 'ghost'") == 0)
    }

    @Test func invalidConfigurationIsRefusedNamingTheKey() throws {
        let cases: [(String, [String])] = [
            (#"{"bundleIds": ["com.example.app"], "sandbox": {"allowSandbx": true}}"#, ["sandbox.allowSandbx", "unknown key"]),
            (#"{"products": {"coins": {"entitlement": "coins", "type": "consumible"}}}"#, ["products.coins.type", "'consumible'"]),
            (#"{"sandbox": {"allowSandbox": "yes"}}"#, ["sandbox.allowSandbox"]),
            (#"{"bundleIds": ["#, ["not valid JSON"]),
        ]
        for (json, phrases) in cases {
            let workspace = try LedgerWorkspace(config: json)
            for command in [["customer", "show", "quinn"], ["import", "-", "--customer", "quinn"], ["audit", "--verify"]] {
                let output = try workspace.run(command, input: Data())
                expectFailure(output, 64, ["config \(workspace.configPath): "] + phrases)
                #expect(!FileManager.default.fileExists(atPath: workspace.databasePath), "\(command) opened the database with a bad config")
            }
        }
        let workspace = try LedgerWorkspace()
        let missing = try CLIRunner.run(["audit", "--db", workspace.databasePath, "--config", "/nonexistent/config.json"])
        expectFailure(missing, 64, "config /nonexistent/config.json: no such file")
    }

    /// A wrong `console.keys` entry is named from a script too, before the console asks for a
    /// terminal, and no database is opened.
    @Test func wrongConsoleKeysAreNamedWithoutATerminal() throws {
        let workspace = try LedgerWorkspace(config: #"{"bundleIds": ["com.example.app"], "console": {"keys": {"pager.nosuch": "W"}}}"#)
        let output = try workspace.run(["console"], input: Data())
        expectFailure(output, 64, "console.keys.pager.nosuch")
        #expect(!output.stderr.contains("needs a terminal"))
        #expect(!FileManager.default.fileExists(atPath: workspace.databasePath))
        let good = try LedgerWorkspace(config: #"{"bundleIds": ["com.example.app"], "console": {"keys": {"grant": "G"}}}"#)
        expectFailure(try good.run(["console"], input: Data()), 64, "needs a terminal")
    }

    @Test func unavailableDatabaseExitsSixtyNine() throws {
        let workspace = try LedgerWorkspace()
        let folderAsDatabase = try CLIRunner.run(["audit", "--db", workspace.directory.path, "--config", workspace.configPath])
        expectFailure(folderAsDatabase, 69, workspace.directory.path)

        // A database migrated by a newer receiptdesk is refused, not touched.
        #expect(try workspace.run(["customer", "add", "rita"]).status == 0)
        _ = try workspace.sql("INSERT INTO schema_migrations (position, name, applied_at) VALUES (99, '0099-from-the-future', '2030-01-01T00:00:00Z')")
        let newer = try workspace.run(["customer", "show", "rita"])
        expectFailure(newer, 69, "was migrated by a newer receiptdesk", "upgrade receiptdesk")
    }

    // MARK: helpers

    /// Four audit entries: jack and kim added, kim granted pro… (seq 1 customer-add jack,
    /// 2 customer-add kim, 3 customer-tester kim, 4 grant kim).
    func populateAudit(_ workspace: LedgerWorkspace) throws {
        for arguments in [["customer", "add", "jack"], ["customer", "add", "kim"], ["customer", "add", "kim", "--tester"],
                          ["grant", "--customer", "kim", "--entitlement", "pro", "--reason", "beta tester"]] {
            let output = try workspace.run(arguments)
            try #require(output.status == 0, "\(arguments): \(output.stderr)")
        }
    }

    /// Every table's row count and the audit head: equal snapshots mean nothing was added or removed.
    func snapshot(_ workspace: LedgerWorkspace) throws -> [String] {
        try workspace.sql("""
            SELECT 'customers', count(*) FROM customers UNION ALL SELECT 'receipts', count(*) FROM receipts
            UNION ALL SELECT 'transactions', count(*) FROM transactions UNION ALL SELECT 'entitlements', count(*) FROM entitlements
            UNION ALL SELECT 'conflicts', count(*) FROM conflicts UNION ALL SELECT 'orders', count(*) FROM orders
            UNION ALL SELECT 'audit', count(*) FROM audit_log UNION ALL SELECT 'head', hash FROM audit_head
            UNION ALL SELECT 'max version', max(version) FROM transactions
            """)
    }
}
