import Foundation
import ReceiptCore
import Testing

/// Issue 29, 2: counts printed with a noun are singular for one and plural otherwise: no
/// "1 rows", no "transaction(s)". `Plural` does it; the sources keep no "(s)"; the command line's
/// main counts (import, restore) say it right for one and for several; import ends saying what it
/// granted.
@Suite("Plurals")
struct PluralsTests {
    @Test func oneIsSingularAndEverythingElsePlural() {
        #expect(Plural.of(1, "transaction") == "1 transaction")
        #expect(Plural.of(0, "transaction") == "0 transactions")
        #expect(Plural.of(2, "row") == "2 rows")
        #expect(Plural.of(Int64(1), "consumable purchase") == "1 consumable purchase")
        #expect(Plural.of(3, "entry", "entries") == "3 entries")
        #expect(Plural.of(1, "entry", "entries") == "1 entry")
        #expect(Plural.noun(-1, "day") == "days")
    }

    /// Whether `line` has a word followed by "(s)" inside a string literal (an odd number of
    /// quotes before it): a count left unsaid. "http(s)" is a scheme, and `quote(s)` a call.
    static func hasParenthesisedS(_ line: Substring) -> Bool {
        let text = line.replacingOccurrences(of: "http(s)", with: "").replacingOccurrences(of: "\\\"", with: "")
        var searchFrom = text.startIndex
        while let found = text.range(of: #"[A-Za-z]\(s\)"#, options: .regularExpression, range: searchFrom..<text.endIndex) {
            if text[..<found.lowerBound].filter({ $0 == "\"" }).count % 2 == 1 { return true }
            searchFrom = found.upperBound
        }
        return false
    }

    @Test func theCheckFindsOnlyWordsInStrings() {
        #expect(Self.hasParenthesisedS(#"print("moved \(n) transaction(s) to \(c)")"#))
        #expect(Self.hasParenthesisedS(#"x = "only \"one\" purchase(s)""#))
        #expect(!Self.hasParenthesisedS(#"guard let colon = s.firstIndex(of: ":") else { return quote(s) }"#))
        #expect(!Self.hasParenthesisedS(#"throw failure("is not an http(s) URL")"#))
        #expect(!Self.hasParenthesisedS(#"let t = "\(s)""#))
    }

    /// Every string literal of the product: a word followed by "(s)" is a count left unsaid.
    @Test func noSourcePrintsAWordWithParenthesisedS() throws {
        let sources = CLIRunner.repositoryRoot.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var found: [String] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//"), line.contains("(s)") else { continue }
                if Self.hasParenthesisedS(line) {
                    found.append("\(file.lastPathComponent):\(number + 1): \(code)")
                }
            }
        }
        #expect(found.isEmpty, "counts with (s):\n\(found.joined(separator: "\n"))")
    }

    @Test func oneAuditEntryIsAnEntry() throws {
        let workspace = try LedgerWorkspace()
        #expect(try workspace.run(["customer", "add", "gina"]).status == 0)
        let verified = try workspace.run(["audit", "--verify"])
        #expect(verified.stdout.hasPrefix("audit log intact: 1 entry verified\n"), "\(verified.stdout)")
    }

    @Test func importAndRestoreSayOneAndSeveralRight() throws {
        let workspace = try LedgerWorkspace()
        let receipt = try workspace.receipt("r.b64", [LedgerWorkspace.purchase("5000000001"), LedgerWorkspace.purchase("5000000002", "com.example.coins.100", expires: nil, type: 0)])
        let first = try workspace.run(["import", receipt, "--customer", "alice"])
        #expect(first.stdout.contains(": 2 recorded (0 bound to an order), 0 duplicates, 0 conflicts\n"), "\(first.stdout)")
        let granted = try #require(first.stdout.split(separator: "\n").last.map(String.init))
        #expect(granted.hasPrefix("alice: ") && granted.contains("pro granted until 2039-01-01T00:00:00Z") && granted.contains("coins ×100 granted"),
                "\(first.stdout)")
        let again = try workspace.run(["import", receipt, "--customer", "alice"])
        #expect(again.stdout.contains(": 0 recorded (0 bound to an order), 2 duplicates, 0 conflicts\n"), "\(again.stdout)")
        #expect(again.stdout.hasSuffix("\nalice: nothing newly granted\n"), "\(again.stdout)")
        let other = try workspace.receipt("o.b64", [LedgerWorkspace.purchase("5000000001")])
        let claimed = try workspace.run(["import", other, "--customer", "bob"])
        #expect(claimed.stdout.contains(": 0 recorded (0 bound to an order), 0 duplicates, 1 conflict\n"), "\(claimed.stdout)")
        for (ids, said) in [([] as [String], "would move 2 transactions to alice-new\n"), (["--transaction", "5000000002"], "would move 1 transaction to alice-new\n")] {
            let restore = try workspace.run(["restore", "--customer", "alice-new", "--from-customer", "alice", "--reason", "new account", "--dry-run"] + ids)
            #expect(restore.stdout.hasPrefix(said), "\(restore.stdout)")
        }
    }
}
