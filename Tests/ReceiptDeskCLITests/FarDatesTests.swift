import Foundation
import Testing

/// Durations and dates have a range (up to 9999-12-31T23:59:59.999Z, the latest date the ledger
/// stores); anything past it is refused in one line, and what is printed, audited and stored is
/// always one and the same instant.
@Suite("Far dates")
struct FarDatesTests {
    @Test(arguments: [["--for", "P99999Y"], ["--for", "P7974Y"], ["--for", "P999999999D"], ["--until", "10000-01-01"]])
    func datesPastTheRangeAreRefusedAndNothingIsWritten(_ end: [String]) throws {
        let workspace = try LedgerWorkspace()
        try #require(try workspace.run(["customer", "add", "far"]).status == 0)
        let before = try workspace.sql("SELECT count(*) FROM audit_log")
        let output = try workspace.run(["grant", "--customer", "far", "--entitlement", "pro", "--reason", "r"] + end)
        #expect(output.status == 64, "\(end): \(output.stdout) \(output.stderr)")
        #expect(output.stderr.contains("9999") || output.stderr.contains("not a date"), "\(output.stderr)")
        #expect(try workspace.sql("SELECT count(*) FROM grants") == ["0"])
        #expect(try workspace.sql("SELECT count(*) FROM audit_log") == before)
    }

    @Test func decodedDatesPastYear9999AreRefusedNamingTheField() throws {
        let payload = #"{"transactionId": "1", "productId": "p", "purchaseDate": 1700000000000, "expiresDate": 999999999999999}"#
        let output = try CLIRunner.run(["decode", "-"], input: Data(payload.utf8))
        #expect(output.status == 65)
        #expect(output.stderr.contains("`expiresDate` is not a date in milliseconds within the years 0000–9999"), "\(output.stderr)")
    }

    @Test func printedAuditedAndStoredAreTheSameInstant() throws {
        let workspace = try LedgerWorkspace()
        try #require(try workspace.run(["customer", "add", "near"]).status == 0)
        // The longest duration that still ends before 10000, and a month: both stored exactly as printed.
        for (customer, duration) in [("near", "P7973Y"), ("soon", "P1M")] {
            _ = try workspace.run(["customer", "add", customer])
            let output = try workspace.run(["grant", "--customer", customer, "--entitlement", "pro", "--reason", "r", "--for", duration, "--json"])
            #expect(output.status == 0, "\(output.stderr)")
            let printed = try #require(try output.jsonObject()["endsAt"] as? String)
            let stored = try workspace.sql("SELECT ends_at FROM grants WHERE customer_id = '\(customer)'")
            let audited = try workspace.sql("SELECT details FROM audit_log WHERE action = 'grant' AND target = 'customer:\(customer)'")
            #expect(stored.count == 1 && audited.count == 1)
            // Stored with milliseconds, printed in RFC 3339: the same instant either way.
            #expect(RFC3339Text.sameInstant(printed, stored.first ?? ""), "printed \(printed), stored \(stored)")
            #expect(RFC3339Text.sameInstant(RFC3339Text.until(in: audited.first ?? "") ?? "", printed), "audited \(audited), printed \(printed)")
            let text = try workspace.run(["customer", "show", customer])
            #expect(text.stdout.contains("pro"), "\(text.stdout)")
        }
    }
}

/// Compares RFC 3339 texts as instants (one written with milliseconds, one without).
enum RFC3339Text {
    static func sameInstant(_ a: String, _ b: String) -> Bool {
        func normal(_ text: String) -> String {
            text.hasSuffix("Z") && !text.contains(".") ? String(text.dropLast()) + ".000Z" : text
        }
        return normal(a) == normal(b)
    }

    /// The `until` member of an audit entry's JSON details.
    static func until(in details: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(details.utf8)) as? [String: Any] else { return nil }
        return object["until"] as? String
    }
}
