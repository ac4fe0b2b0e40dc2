import Foundation
import Testing

/// Issue 29, 1: a receipt minted for the demo is a customer of the free app (its original build
/// after the paid-to-free cutoff), unless `--original-build` says otherwise, and `customer show`
/// names every source of an entitlement once, the purchase included.
@Suite("Minted receipts")
struct MintedReceiptTests {
    @Test func aMintedReceiptGrantsThroughItsPurchaseAndEachSourceIsPrintedOnce() throws {
        let demo = try DemoWorkspace()
        let minted = try demo.shell("receiptdesk simulator mint unified --product com.example.game.pro.monthly > receipt.b64")
        #expect(minted.status == 0, "\(minted.stderr)")
        #expect(minted.stderr.contains("original build 52"), "\(minted.stderr)")
        #expect(try demo.run(["import", "receipt.b64", "--customer", "alice"]).status == 0)
        let shown = try demo.run(["customer", "show", "alice"]).stdout
        #expect(shown.contains("● pro: via transaction "), "\(shown)")
        #expect(!shown.contains("legacy paid purchase"), "\(shown)")

        // A paid-era customer who also subscribed: the legacy purchase keeps it longest, the
        // subscription is still named, and no line is printed twice.
        let paidEra = try demo.shell("receiptdesk simulator mint unified --product com.example.game.pro.monthly --original-build 12 > old.b64")
        #expect(paidEra.status == 0, "\(paidEra.stderr)")
        #expect(try demo.run(["import", "old.b64", "--customer", "bob"]).status == 0)
        let bob = try demo.run(["customer", "show", "bob"]).stdout
        let entitlementLines = bob.split(separator: "\n").drop { $0 != "entitlements:" }.dropFirst().prefix { !$0.isEmpty }
        #expect(entitlementLines.first?.contains("pro: via legacy paid purchase: original build 12 < 40") == true, "\(bob)")
        #expect(entitlementLines.contains { $0.contains("also: pro via transaction ") }, "\(bob)")
        #expect(Set(entitlementLines).count == entitlementLines.count, "a line printed twice:\n\(bob)")
        #expect(entitlementLines.filter { $0.contains("legacy paid purchase") }.count == 1, "\(bob)")
    }

    @Test func anOriginalBuildThatIsNotABuildNumberIsRefused() throws {
        let demo = try DemoWorkspace()
        let output = try demo.run(["simulator", "mint", "unified", "--product", "com.example.game.pro.monthly", "--original-build", "1.0; rm"])
        expectFailure(output, 64, "--original-build 1.0; rm is not a build number")
    }
}

/// Issue 29, 2: outcomes say what happened.
@Suite("Outcomes")
struct OutcomeWordsTests {
    @Test func addingAnExistingCustomerSaysSo() throws {
        let workspace = try LedgerWorkspace()
        #expect(try workspace.run(["customer", "add", "ada"]).stdout == "customer ada added\n")
        #expect(try workspace.run(["customer", "add", "ada"]).stdout == "customer ada already exists: nothing changed\n")
        #expect(try workspace.run(["customer", "add", "ada", "--name", "Ada L"]).stdout == "customer ada already exists: updated its name\n")
    }
}
