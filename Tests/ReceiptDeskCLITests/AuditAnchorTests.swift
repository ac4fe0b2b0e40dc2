import Foundation
import Testing

/// Every row the audit log shows is a row verify checks, and an anchor kept outside the database
/// catches a tail that was cut off with its head rewritten to match.
@Suite("Audit: rows outside the chain, and anchors")
struct AuditAnchorTests {
    func populated() throws -> LedgerWorkspace {
        let workspace = try LedgerWorkspace()
        for arguments in [["customer", "add", "jack"], ["customer", "add", "kim"], ["customer", "add", "kim", "--tester"],
                          ["grant", "--customer", "kim", "--entitlement", "pro", "--reason", "beta tester"]] {
            try #require(try workspace.run(arguments).status == 0)
        }
        return workspace
    }

    @Test func aRowOutsideTheChainIsTamperingNotHistory() throws {
        let workspace = try populated()
        _ = try workspace.sql("""
            INSERT INTO audit_log (seq, at, operator, action, target, details, prev_hash, hash)
            VALUES (0, '2025-01-01T00:00:00.000Z', 'mallory', 'grant', 'customer:mallory', '{}', 'x', 'y')
            """)
        // The log shows it…
        #expect(try workspace.run(["audit"]).stdout.contains("mallory"))
        // …so verify checks it, and says it does not belong.
        let verdict = try workspace.run(["audit", "--verify"])
        #expect(verdict.status == 1, "\(verdict.stdout)")
        #expect(verdict.stdout.contains("entry #0 (grant by mallory) lies outside the chain"), "\(verdict.stdout)")
    }

    @Test func anAnchorCatchesATruncatedTailWithARewrittenHead() throws {
        let workspace = try populated()
        let intact = try workspace.run(["audit", "--verify", "--json"])
        let anchor = try #require(try intact.jsonObject()["head"] as? String)
        #expect(anchor.hasPrefix("4:") && anchor.count == 2 + 64, "\(anchor)")
        let text = try workspace.run(["audit", "--verify"])
        #expect(text.stdout.contains("head \(anchor)"), "\(text.stdout)")
        #expect(try workspace.run(["audit", "--verify", "--expect", anchor]).status == 0)

        // Cut the last two entries and point the head at what remains: the chain alone cannot tell.
        let remaining = try workspace.sql("SELECT hash FROM audit_log WHERE seq = 2")
        _ = try workspace.sql("DELETE FROM audit_log WHERE seq > 2")
        _ = try workspace.sql("UPDATE audit_head SET seq = 2, hash = '\(remaining.first ?? "")'")
        // The chain alone cannot tell; the grant whose entry went is named (its row is unexplained).
        let shorter = try workspace.run(["audit", "--verify"])
        #expect(shorter.status == 1 && shorter.stdout.hasPrefix("audit log intact: 2 entries verified\n"), "\(shorter.stdout)")
        #expect(shorter.stdout.contains("grant #1 (customer kim, pro) has no `grant` audit entry"), "\(shorter.stdout)")
        let caught = try workspace.run(["audit", "--verify", "--expect", anchor])
        #expect(caught.status == 1)
        #expect(caught.stdout.contains("the log no longer holds entry 4 (it ends at 2): it was truncated or rewritten since the anchor"),
                "\(caught.stdout)")

        let garbage = try workspace.run(["audit", "--verify", "--expect", "4:nothex"])
        expectFailure(garbage, 64, "is not SEQ:HASH")
    }
}
