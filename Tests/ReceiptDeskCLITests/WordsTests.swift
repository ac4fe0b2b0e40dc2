import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// The words the command line uses (issue 13, item 7): every subcommand's own --help, no
/// entitlement name printed twice, a re-imported invalid receipt called what it is, an order
/// for a product the catalogue lacks refused as a grant is.
@Suite("Words")
struct WordsTests {
    @Test(arguments: ["decode", "samples", "import", "order", "customer", "search", "grant", "revoke", "restore", "conflicts", "audit",
                      "notify", "reverify", "demo", "simulator", "db", "lookup-order", "bench", "soak", "console"])
    func everySubcommandAnswersHelpWithItsOwnUsage(_ command: String) throws {
        let output = try CLIRunner.run([command, "--help"])
        #expect(output.status == 0, "\(command) --help: exit \(output.status) \(output.stderr)")
        #expect(output.stdout.hasPrefix("usage:\n  receiptdesk \(command)"), "\(command) --help:\n\(output.stdout)")
        #expect(!output.stdout.contains("commands:"), "\(command) --help printed the whole list")
    }

    @Test func anEntitlementNameIsPrintedOnce() throws {
        let workspace = try LedgerWorkspace()
        let receipt = try workspace.receipt("r.b64", [LedgerWorkspace.purchase("5000000001", "com.example.coins.100"),
                                                      LedgerWorkspace.purchase("5000000002")])
        #expect(try workspace.run(["import", receipt, "--customer", "alice"]).status == 0)
        let shown = try workspace.run(["customer", "show", "alice"]).stdout
        #expect(shown.contains("coins: 100 units via 1 consumable purchase"), "\(shown)")
        #expect(!shown.contains("coins: coins"), "\(shown)")
        #expect(!shown.contains("pro: pro "), "\(shown)")
    }

    @Test func reimportingAnInvalidReceiptSaysItWasStoredAndFlagged() throws {
        let workspace = try LedgerWorkspace()
        let forged = try workspace.write("forged.b64", try LedgerWorkspace.receiptBytes([LedgerWorkspace.purchase("5000000009")],
                                                                                       authority: try TestCertificateAuthority.shared(.impostor)))
        #expect(try workspace.run(["import", forged, "--customer", "mallory"]).status == 1)
        let again = try workspace.run(["import", forged, "--customer", "mallory"])
        #expect(again.stdout.contains("nothing new: receipt #1 was already stored and flagged invalid"), "\(again.stdout)")
        #expect(!again.stdout.contains("every transaction"), "\(again.stdout)")
    }

    @Test func anOrderForAProductTheCatalogueLacksIsRefusedUnlessSaidOtherwise() throws {
        let workspace = try LedgerWorkspace()
        let typo = try workspace.run(["order", "create", "--customer", "alice", "--order", "o-1", "--product", "com.example.pro.montly"])
        #expect(typo.status == 64, "\(typo.stderr)")
        #expect(typo.stderr.contains("product com.example.pro.montly is not in the catalogue (known: com.example.coins.100, com.example.pro.lifetime, com.example.pro.monthly)"),
                "\(typo.stderr)")
        #expect(try workspace.run(["audit"]).stdout.contains("order-create") == false, "nothing was written")
        let forced = try workspace.run(["order", "create", "--customer", "alice", "--order", "o-1", "--product", "com.example.pro.montly",
                                        "--unlisted-product"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stderr.contains("warning: product com.example.pro.montly is not in the catalogue"))
    }
}
