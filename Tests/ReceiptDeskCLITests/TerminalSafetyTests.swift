import Foundation
import StoreSimulator
import Testing

/// No terminal is reachable through data: ids refuse control, bidirectional and zero-width
/// characters at entry; whatever data the command line prints has them written visibly, and
/// JSON output carries them only as JSON escapes.
@Suite("Terminal safety of the command line")
struct TerminalSafetyTests {
    /// ESC, BEL, C1 and the bidi override: what a hostile artefact or id would carry.
    static let hostile = "x\u{1B}]52;c;aGVsbG8=\u{07}\u{1B}]0;pwned\u{07}\u{1B}[2J\u{9B}31m\u{202E}y"

    static func rawUnsafe(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B || $0.value == 0x202E }
    }

    @Test func decodingAHostileJWSWritesNothingATerminalWouldObey() throws {
        let ca = try TestCertificateAuthority.shared()
        let payload = TransactionPayload(transactionId: Self.hostile, bundleId: Self.hostile, productId: Self.hostile, type: "Consumable",
                                         purchaseDate: Date(timeIntervalSince1970: 1_750_000_000),
                                         signedDate: Date(timeIntervalSince1970: 1_750_000_000), environment: "Production")
        let jws = try JWSBuilder(authority: ca).signedTransaction(payload)
        let text = try CLIRunner.run(["decode", "-"], input: Data(jws.utf8))
        #expect(!Self.rawUnsafe(text.stdout + text.stderr), "raw escape sequences in the text output")
        #expect(text.stdout.contains("\\u{1b}]52;c;aGVsbG8=\\u{7}"), "\(text.stdout)")
        let json = try CLIRunner.run(["decode", "-", "--json"], input: Data(jws.utf8))
        #expect(!Self.rawUnsafe(json.stdout), "raw escape sequences in the JSON output")
        #expect(json.stdout.contains(#"\u001b]52;c;aGVsbG8=\u0007"#) && json.stdout.contains(#"\u202e"#), "\(json.stdout.prefix(400))")
        // The JSON still reads back to exactly the hostile text.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((object["purchases"] as? [[String: Any]])?.first?["transactionId"] as? String == Self.hostile)
    }

    @Test(arguments: [("a\u{1B}b", "U+001B (a control character) at character 2"), ("ab\u{07}", "U+0007 (a control character) at character 3"),
                      ("\u{9B}31m", "U+009B (a control character) at character 1"), ("cust\u{202E}1", "U+202E (a bidirectional control) at character 5"),
                      ("al\u{200B}ice", "U+200B (a zero-width character) at character 3"), ("a\u{2066}b", "U+2066 (a bidirectional control) at character 2")])
    func idsRefuseUnsafeCharactersAtEntry(_ id: String, _ said: String) throws {
        let workspace = try LedgerWorkspace()
        try workspace.createDatabase()
        for arguments in [["customer", "add", id], ["order", "create", "--customer", "alice", "--order", id, "--product", "com.example.pro.monthly"],
                          ["customer", "add", "bob", "--operator", id]] {
            let output = try workspace.run(arguments)
            expectFailure(output, 64, said)
            #expect(!Self.rawUnsafe(output.stderr), "the refusal itself printed the character raw")
        }
        #expect(try workspace.sql("SELECT count(*) FROM customers") == ["0"])
        #expect(try workspace.sql("SELECT count(*) FROM audit_log") == ["0"])
    }

    @Test func dataAlreadyStoredIsPrintedEscaped() throws {
        let workspace = try LedgerWorkspace()
        try #require(try workspace.run(["customer", "add", "carol"]).status == 0)
        // Rows written before ids were checked, or by hand.
        _ = try workspace.sql("UPDATE customers SET customer_id = 'carol' || char(27) || '[2J' WHERE customer_id = 'carol'")
        _ = try workspace.sql("UPDATE audit_log SET operator = 'op' || char(27) || ']0;t' || char(7)")
        for arguments in [["audit"], ["customer", "show", "carol\u{1B}[2J"]] {
            let output = try workspace.run(arguments)
            #expect(!Self.rawUnsafe(output.stdout + output.stderr), "\(arguments) printed raw escape sequences")
            #expect(output.stdout.contains("\\u{1b}"), "\(arguments): \(output.stdout) \(output.stderr)")
        }
    }
}
