import Foundation
import ReceiptCore
import Testing

/// Each tampering the audit issue lists, done to a SQLite file as someone with write access to
/// the database (but not the anchor key) would, and what `audit --verify` says about it.
@Suite("Audit: tampering caught by anchors and by rows the log must explain")
struct AuditTamperingTests {
    /// Customers jack and kim (a tester, granted pro), henry's purchase claimed by irene and the
    /// conflict resolved, then two harmless entries at the end (customer add zoe, yan).
    func populated() throws -> LedgerWorkspace {
        let workspace = try LedgerWorkspace()
        let receipt = try workspace.receipt("r.b64", [LedgerWorkspace.purchase("6000000001")])
        for arguments in [["customer", "add", "jack"], ["customer", "add", "kim"], ["customer", "add", "kim", "--tester"],
                          ["grant", "--customer", "kim", "--entitlement", "pro", "--reason", "beta tester"],
                          ["import", receipt, "--customer", "henry"], ["import", receipt, "--customer", "irene"],
                          ["conflicts", "resolve", "1", "--owner", "irene", "--reason", "Apple ID moved"],
                          ["customer", "add", "zoe"], ["customer", "add", "yan"]] {
            let output = try workspace.run(arguments)
            try #require(output.status == 0, "\(arguments): \(output.stderr)")
        }
        return workspace
    }

    /// A key pair in the workspace: the private key file and the public key file.
    func keys(_ workspace: LedgerWorkspace, _ name: String = "anchor") throws -> (key: String, publicKey: String) {
        let key = workspace.directory.appendingPathComponent("\(name).key").path
        let made = try workspace.run(["audit", "anchor", "--new-key", key])
        try #require(made.status == 0, "\(made.stderr)")
        return (key, try workspace.write("\(name).pub", Data(made.stdout.utf8)))
    }

    func anchor(_ workspace: LedgerWorkspace, key: String, to file: String) throws {
        let output = try workspace.run(["audit", "anchor", "--key", key, "--to", file])
        try #require(output.status == 0, "\(output.stderr)")
    }

    func anchorsFile(_ workspace: LedgerWorkspace) -> String { workspace.directory.appendingPathComponent("anchors.txt").path }

    func verify(_ workspace: LedgerWorkspace, _ extra: [String] = []) throws -> CLIRunner.Output {
        try workspace.run(["audit", "--verify"] + extra)
    }

    /// SHA-256 over the length-prefixed fields, as anyone who reads the schema can recompute it.
    /// The entry's hash as receiptdesk computes it (the database user, when recorded, last).
    static func chainHash(_ seq: Int, _ fields: [String], previous: String, databaseUser: String = "") -> String {
        var material: [UInt8] = []
        for field in [String(seq)] + fields + [previous] + (databaseUser.isEmpty ? [] : ["db:" + databaseUser]) {
            material += Array(String(field.utf8.count).utf8) + [UInt8(ascii: ":")] + Array(field.utf8)
        }
        return DigestAlgorithm.sha256.hash(material).hexString
    }

    /// Recomputes every hash from entry `first` on and points the head at the last: the chain
    /// verifies again.
    static func rechain(_ workspace: LedgerWorkspace, from first: Int) throws {
        var previous = try workspace.sql("SELECT hash FROM audit_log WHERE seq = \(first - 1)").first ?? String(repeating: "0", count: 64)
        let last = try workspace.count("SELECT MAX(seq) FROM audit_log")
        for seq in first...last {
            let fields = try #require(try workspace.sql("SELECT at || char(31) || operator || char(31) || action || char(31) || target || char(31) || details || char(31) || coalesce(db_user, '') FROM audit_log WHERE seq = \(seq)").first)
                .split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
            let hash = chainHash(seq, Array(fields.dropLast()), previous: previous, databaseUser: fields.last ?? "")
            _ = try workspace.sql("UPDATE audit_log SET prev_hash = '\(previous)', hash = '\(hash)' WHERE seq = \(seq)")
            previous = hash
        }
        _ = try workspace.sql("UPDATE audit_head SET seq = \(last), hash = '\(previous)'")
    }

    @Test func everyRowMadeByReceiptdeskIsExplained() throws {
        let workspace = try populated()
        let verdict = try verify(workspace)
        #expect(verdict.status == 0, "\(verdict.stdout)")
        #expect(verdict.stdout.contains("rows explained by the log: grants 1, conflicts 1, entitlement rows "), "\(verdict.stdout)")
        let json = try verify(workspace, ["--json"]).jsonObject()
        #expect(json["intact"] as? Bool == true)
        #expect((json["unexplained"] as? [Any])?.isEmpty == true)
    }

    @Test func aGrantRowInsertedDirectlyIsNamed() throws {
        let workspace = try populated()
        _ = try workspace.sql("""
            INSERT INTO grants (customer_id, entitlement, starts_at, ends_at, reason, granted_by, granted_at)
            VALUES ('jack', 'pro', '2025-01-01T00:00:00.000Z', NULL, 'friend', 'mallory', '2025-01-01T00:00:00.000Z')
            """)
        #expect(try workspace.run(["customer", "show", "jack"]).stdout.contains("grant #2"), "the console shows the grant")
        #expect(try verify(workspace, ["--skip-entitlements"]).stdout.contains("grant #2 (customer jack, pro) has no `grant` audit entry: it was written outside receiptdesk"))
        let verdict = try verify(workspace)
        #expect(verdict.status == 1, "\(verdict.stdout)")
        #expect(verdict.stdout.contains("audit log intact"), "the chain alone cannot tell: \(verdict.stdout)")
        #expect(verdict.stdout.contains("entitlement row (customer jack, pro via grant #2) is missing"), "\(verdict.stdout)")
    }

    @Test func anEditedEntitlementRowIsNamed() throws {
        let workspace = try populated()
        _ = try workspace.sql("UPDATE entitlements SET ends_at = '2099-01-01T00:00:00.000Z' WHERE customer_id = 'kim'")
        let verdict = try verify(workspace)
        #expect(verdict.status == 1, "\(verdict.stdout)")
        #expect(verdict.stdout.contains("entitlement row (customer kim, pro via grant #1) differs from its recomputation (stored: active, "), "\(verdict.stdout)")
        // A row that is gone, and one that has no source at all.
        _ = try workspace.sql("DELETE FROM entitlements WHERE customer_id = 'irene'")
        _ = try workspace.sql("""
            INSERT INTO entitlements (customer_id, entitlement, source, transaction_id, active, revoked, reason, flags, computed_at)
            VALUES ('jack', 'pro', 'purchase', '999', 1, 0, 'pro via transaction 999', '', '2025-06-01T00:00:00.000Z')
            """)
        let more = try verify(workspace).stdout
        #expect(more.contains("entitlement row (customer irene, pro via transaction 6000000001) is missing"), "\(more)")
        #expect(more.contains("entitlement row (customer jack, pro via transaction 999) has no source in the ledger"), "\(more)")
        #expect(try verify(workspace, ["--skip-entitlements"]).status == 0, "only the entitlement check sees these")
    }

    @Test func theLastEntriesDeletedWithTheHeadFixedAreCaughtByAnAnchor() throws {
        let workspace = try populated()
        let (key, publicKey) = try keys(workspace)
        let anchors = anchorsFile(workspace)
        try anchor(workspace, key: key, to: anchors)
        let last = try workspace.count("SELECT MAX(seq) FROM audit_log")
        #expect(try verify(workspace, ["--anchors", anchors, "--public-key", publicKey]).status == 0)

        let kept = try #require(try workspace.sql("SELECT hash FROM audit_log WHERE seq = \(last - 2)").first)
        _ = try workspace.sql("DELETE FROM audit_log WHERE seq > \(last - 2)")
        _ = try workspace.sql("UPDATE audit_head SET seq = \(last - 2), hash = '\(kept)'")
        #expect(try verify(workspace).status == 0, "a consistent shorter chain, with every row still explained, verifies on its own")
        let caught = try verify(workspace, ["--anchors", anchors, "--public-key", publicKey])
        #expect(caught.status == 1, "\(caught.stdout)")
        #expect(caught.stdout.contains("anchors BROKEN: 0 of 1 line of "), "\(caught.stdout)")
        #expect(caught.stdout.contains("anchor on line 1 (entry \(last), 2"), "\(caught.stdout)")
        #expect(caught.stdout.contains("the log no longer holds entry \(last) (it ends at \(last - 2)): entries were deleted since"), "\(caught.stdout)")
    }

    @Test func aChainRewrittenFromAnEntryIsCaughtByAnAnchor() throws {
        let workspace = try populated()
        let (key, publicKey) = try keys(workspace)
        let anchors = anchorsFile(workspace)
        try anchor(workspace, key: key, to: anchors)
        let last = try workspace.count("SELECT MAX(seq) FROM audit_log")
        // The grant's reason rewritten in its entry, every hash from there on recomputed.
        let grantEntry = try workspace.count("SELECT seq FROM audit_log WHERE action = 'grant'")
        _ = try workspace.sql("UPDATE audit_log SET details = replace(details, 'beta tester', 'paid by invoice') WHERE seq = \(grantEntry)")
        try Self.rechain(workspace, from: grantEntry)
        #expect(try verify(workspace).status == 0, "the rewritten chain verifies on its own")
        let caught = try verify(workspace, ["--anchors", anchors, "--public-key", publicKey])
        #expect(caught.status == 1, "\(caught.stdout)")
        #expect(caught.stdout.contains("anchor on line 1 (entry \(last), "), "\(caught.stdout)")
        #expect(caught.stdout.contains("entry \(last)'s hash differs: the log was rewritten since"), "\(caught.stdout)")
    }

    @Test func aForgedEntryAppendedIsCaughtOnlyWhereItContradictsAnAnchorOrTheRows() throws {
        let workspace = try populated()
        let (key, publicKey) = try keys(workspace)
        let anchors = anchorsFile(workspace)
        try anchor(workspace, key: key, to: anchors)
        // A grant row, and a `grant` entry for it appended with the chain recomputed, dated a
        // month back so that the grant looks old.
        _ = try workspace.sql("""
            INSERT INTO grants (customer_id, entitlement, starts_at, ends_at, reason, granted_by, granted_at)
            VALUES ('jack', 'pro', '2025-01-01T00:00:00.000Z', NULL, 'friend', 'mei', '2025-01-01T00:00:00.000Z')
            """)
        let seq = try workspace.count("SELECT MAX(seq) FROM audit_log") + 1
        _ = try workspace.sql("""
            INSERT INTO audit_log (seq, at, operator, action, target, details, prev_hash, hash)
            VALUES (\(seq), '2025-01-01T00:00:00.000Z', 'mei', 'grant', 'customer:jack',
                    '{"grantId":2,"entitlement":"pro","until":null,"reason":"friend"}', '', '')
            """)
        try Self.rechain(workspace, from: seq)
        #expect(try verify(workspace, ["--skip-entitlements"]).status == 0, "the chain holds and the entry explains the grant row")
        // The rows: the grant's entitlement row was not written (receiptdesk writes it with the grant).
        let rows = try verify(workspace)
        #expect(rows.status == 1)
        #expect(rows.stdout.contains("entitlement row (customer jack, pro via grant #2) is missing"), "\(rows.stdout)")
        // The anchor: the entry comes after the anchored head, yet is dated before the anchor.
        let caught = try verify(workspace, ["--skip-entitlements", "--anchors", anchors, "--public-key", publicKey])
        #expect(caught.status == 1, "\(caught.stdout)")
        #expect(caught.stdout.contains("entry \(seq) (grant by mei, dated 2025-01-01T00:00:00.000Z) comes after the anchor on line 1 (entry \(seq - 1), taken "),
                "\(caught.stdout)")
        #expect(caught.stdout.contains("it was appended later and backdated"), "\(caught.stdout)")

        // The limit: dated now, with its rows consistent, an appended entry looks like a real one
        // to the chain, to every anchor taken before it, and to the row checks.
        let now = StoreDatesForTests.now()
        _ = try workspace.sql("UPDATE audit_log SET at = '\(now)' WHERE seq = \(seq)")
        try Self.rechain(workspace, from: seq)
        #expect(try verify(workspace, ["--skip-entitlements", "--anchors", anchors, "--public-key", publicKey]).status == 0)
    }

    @Test func aForgedOrAlteredAnchorLineIsNamedByItsLineNumber() throws {
        let workspace = try populated()
        let (key, publicKey) = try keys(workspace)
        let (otherKey, _) = try keys(workspace, "other")
        let anchors = anchorsFile(workspace)
        try anchor(workspace, key: key, to: anchors)
        let good = try String(contentsOfFile: anchors, encoding: .utf8).trimmingCharacters(in: .newlines)
        // Line 2: the hash of another entry put in a real line; line 3: a line signed by another
        // key; line 4: not an anchor at all; line 5: a real line, intact.
        let head = try #require(good.split(separator: " ").dropFirst(3).first)
        let otherEntry = try #require(try workspace.sql("SELECT seq || ':' || hash FROM audit_log WHERE seq = 2").first)
        let altered = good.replacingOccurrences(of: String(head), with: otherEntry)
        let foreign = try workspace.run(["audit", "anchor", "--key", otherKey]).stdout.trimmingCharacters(in: .newlines)
        try Data([good, altered, foreign, "hello", good, ""].joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: anchors))
        let verdict = try verify(workspace, ["--anchors", anchors, "--public-key", publicKey])
        #expect(verdict.status == 1, "\(verdict.stdout)")
        #expect(verdict.stdout.contains("anchors BROKEN: 2 of 5 lines"), "\(verdict.stdout)")
        #expect(verdict.stdout.contains("anchor on line 2 (entry 2, ") && verdict.stdout.contains("the signature does not match the line: it was forged or altered"),
                "\(verdict.stdout)")
        #expect(verdict.stdout.contains("anchor on line 3 (entry "), "\(verdict.stdout)")
        #expect(verdict.stdout.contains("not by the public key given"), "\(verdict.stdout)")
        #expect(verdict.stdout.contains("line 4: not an anchor line"), "\(verdict.stdout)")
        #expect(!verdict.stdout.contains("line 1:") && !verdict.stdout.contains("line 5 "), "\(verdict.stdout)")
    }

    @Test func anchorRefusesABrokenChainAndKeysAreNeverOverwritten() throws {
        let workspace = try populated()
        let (key, publicKey) = try keys(workspace)
        let mode = try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        #expect(try String(contentsOfFile: publicKey, encoding: .utf8).hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
        let before = try Data(contentsOf: URL(fileURLWithPath: key))
        expectFailure(try workspace.run(["audit", "anchor", "--new-key", key]), 65, "it exists, and a key is never overwritten")
        #expect(try Data(contentsOf: URL(fileURLWithPath: key)) == before)

        let printed = try workspace.run(["audit", "anchor", "--key", key])
        #expect(printed.status == 0)
        #expect(printed.stdout.hasPrefix("receiptdesk-audit-anchor v1 \(workspace.databasePath) "), "\(printed.stdout)")
        #expect(!printed.stdout.contains("PRIVATE"), "the key is never shown")

        _ = try workspace.sql("UPDATE audit_log SET details = '{}' WHERE seq = 2")
        expectFailure(try workspace.run(["audit", "anchor", "--key", key, "--to", anchorsFile(workspace)]), 1, "no anchor taken")
        #expect(!FileManager.default.fileExists(atPath: anchorsFile(workspace)))
        expectFailure(try workspace.run(["audit", "--verify", "--anchors", "x"]), 64, "--anchors FILE and --public-key FILE go together")
    }
}

/// The current time as the store writes dates.
enum StoreDatesForTests {
    static func now() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date())
    }
}
