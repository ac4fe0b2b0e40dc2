import ConsoleUI
import Foundation
import PurchaseStore
import AppStoreAPI
import ReceiptCore
import Testing

/// Every view, at 80×24 and 160×48 (those whose layout depends on the width also at 200×60), in
/// colour and monochrome, against the recorded snapshots.
@Suite("View snapshots", .serialized)
struct SnapshotTests {
    static let sizes = [ScreenSize(rows: 24, columns: 80), ScreenSize(rows: 48, columns: 160)]

    /// A view: how to get there from a fresh console over the fixture.
    struct Scenario: CustomStringConvertible, Sendable {
        let name: String
        var readOnly = false
        var apple: (@Sendable (HTTPRequest) -> HTTPResponse)?
        var gated = false
        /// Wait for the re-verification to finish before the snapshot.
        var settle = false
        /// Also at 200×60 (the layouts that change with the width).
        var alsoWide = false
        let drive: @Sendable (ConsoleController, ConsoleFixture) throws -> Void

        var description: String { name }
    }

    static let scenarios: [Scenario] = [
        Scenario(name: "customers", alsoWide: true) { _, _ in },
        Scenario(name: "customer-detail-focused") { c, _ in c.handle(.enter) },
        Scenario(name: "customer-cjk") { c, _ in c.handle(.end) },  // 王小明 sorts after the Latin ids
        Scenario(name: "customer-timeline") { c, _ in c.handle(.enter); c.handle(.end) },
        Scenario(name: "orders", alsoWide: true) { c, _ in c.handle(.character("2")) },
        Scenario(name: "transactions", alsoWide: true) { c, _ in c.handle(.character("3")); c.handle(.end) },
        Scenario(name: "receipts", alsoWide: true) { c, _ in c.handle(.character("4")) },
        Scenario(name: "receipt-tree-focused") { c, _ in c.handle(.character("4")); c.handle(.enter); c.handle(.end) },
        Scenario(name: "receipt-expanded") { c, _ in
            c.handle(.character("4")); c.handle(.enter); c.handle(.character("*")); c.handle(.pageDown)
        },
        Scenario(name: "receipt-empty-in-app") { c, _ in c.handle(.character("4")); c.handle(.end) },
        Scenario(name: "receipt-duplicate-callback") { c, _ in c.handle(.character("4")); c.handle(.end); c.handle(.up) },
        Scenario(name: "receipt-sandbox") { c, _ in c.handle(.character("4")); for _ in 0..<3 { c.handle(.down) } },
        Scenario(name: "conflicts", alsoWide: true) { c, _ in c.handle(.character("5")) },
        // The oldest entry: later hashes cover receipt digests, which change with the test CA's keys.
        Scenario(name: "audit", alsoWide: true) { c, _ in c.handle(.character("6")); c.handle(.end) },
        Scenario(name: "help", alsoWide: true) { c, _ in c.handle(.character("?")) },
        // The end of the help: every other mode's keys (the pager's w, n, s among them).
        Scenario(name: "help-end", alsoWide: true) { c, _ in c.handle(.character("?")); for _ in 0..<8 { c.handle(.pageDown) } },
        Scenario(name: "filter-typing") { c, _ in c.handle(.character("/")); c.type("1000000359369424") },
        Scenario(name: "filter-applied") { c, _ in
            c.handle(.character("3")); c.handle(.character("/")); c.type("1000000359369424"); c.handle(.enter)
        },
        Scenario(name: "filter-qualifier") { c, _ in c.handle(.character("/")); c.type("env:sandbox"); c.handle(.enter); c.handle(.character("4")) },
        // Case-insensitive prefix: "ALI" finds alice; the tab bar counts matches per tab.
        Scenario(name: "search-prefix", alsoWide: true) { c, _ in c.handle(.character("/")); c.type("ALI"); c.handle(.enter) },
        // A search by an email fragment: the row shows the email first, the match marked (why it matched).
        Scenario(name: "search-email", alsoWide: true) { c, _ in c.handle(.character("/")); c.type("qa+bob"); c.handle(.enter) },
        // What is wrong shows while the prompt is still open.
        Scenario(name: "search-invalid") { c, _ in c.handle(.character("/")); c.type("status:bogus") },
        // env: does not apply to the audit: the title says so, greyed, instead of "filtered".
        Scenario(name: "search-not-applicable") { c, _ in
            c.handle(.character("6")); c.handle(.character("/")); c.type("env:sandbox"); c.handle(.enter); c.handle(.end)
        },
        // Space tags alice and bob: marks in the list, the count in its title.
        Scenario(name: "tagged", alsoWide: true) { c, _ in c.handle(.character(" ")); c.handle(.character(" ")) },
        Scenario(name: "command-line") { c, _ in c.handle(.character(":")); c.type("gra") },
        Scenario(name: "grant-form") { c, _ in c.handle(.character("g")); c.handle(.right); c.handle(.tab); c.type("P30D") },
        Scenario(name: "grant-empty-reason") { c, _ in
            c.handle(.character("g")); c.handle(.tab); c.handle(.tab); c.type("   "); c.handle(.enter)
        },
        Scenario(name: "grant-confirm") { c, _ in
            c.handle(.character("g")); c.handle(.tab); c.type("2025-12-31"); c.handle(.tab); c.type("outage goodwill"); c.handle(.enter)
        },
        Scenario(name: "revoke-form") { c, _ in c.handle(.character("x")) },
        Scenario(name: "restore-preview") { c, _ in
            c.handle(.down); c.handle(.character("R")); c.type("alice"); c.handle(.tab); c.type("1000000359369424 1000000359369500")
            c.handle(.tab); c.handle(.tab); c.handle(.tab); c.type("new phone, same person"); c.handle(.enter)
        },
        Scenario(name: "resolve-form") { c, _ in c.handle(.character("5")); c.handle(.character("o")); c.handle(.right) },
        Scenario(name: "import-form") { c, _ in c.handle(.character("i")); c.handle(.tab); c.type("/no/such/receipt.txt"); c.handle(.tab); c.handle(.enter) },
        Scenario(name: "reverify-running", apple: ScriptedApple.mismatchAnswer, gated: true) { c, _ in
            c.handle(.character("4")); c.handle(.character("r")); c.tick(); c.tick()
        },
        Scenario(name: "reverify-mismatch", apple: ScriptedApple.mismatchAnswer, settle: true) { c, _ in
            c.handle(.character("4")); c.handle(.character("r"))
        },
        Scenario(name: "reverify-failed", apple: ScriptedApple.unavailable, settle: true) { c, _ in
            c.handle(.character("4")); c.handle(.character("r"))
        },
        Scenario(name: "read-only", readOnly: true) { c, _ in c.handle(.character("g")) },
        Scenario(name: "read-only-help", readOnly: true) { c, _ in c.handle(.character("?")) },
        Scenario(name: "quit-confirm", apple: ScriptedApple.mismatchAnswer, gated: true) { c, _ in
            c.handle(.character("4")); c.handle(.character("r")); c.handle(.character("q"))
        },
        // Apple's side: alice's subscription in its grace period, two refund requests (one overdue).
        Scenario(name: "customer-apple") { c, f in
            try f.addAppleSide(); c.handle(.control("l")); c.handle(.enter); for _ in 0..<8 { c.handle(.down) }
        },
        Scenario(name: "customer-apple-timeline") { c, f in try f.addAppleSide(); c.handle(.control("l")); c.handle(.enter); c.handle(.end) },
        Scenario(name: "refund-queue") { c, f in try f.addAppleSide(); c.handle(.character("$")) },
        Scenario(name: "consumption-form") { c, f in try f.addAppleSide(); c.handle(.character("$")); c.handle(.enter); c.handle(.tab) },
        // An offer for alice's subscription: the product from it, the offer id typed; then its preview.
        Scenario(name: "offer-form") { c, f in
            try f.addAppleSide(); c.handle(.control("l")); c.handle(.character("P")); c.handle(.tab); c.type("WINBACK50")
        },
        Scenario(name: "offer-preview") { c, f in
            try f.addAppleSide(); c.handle(.control("l")); c.handle(.character("P")); c.handle(.tab); c.type("WINBACK50"); c.handle(.tab)
            c.type("churned, ticket 77"); c.handle(.enter)
        },
    ]

    static let wide = ScreenSize(rows: 60, columns: 200)

    static let cases: [(Scenario, ScreenSize)] = scenarios.flatMap { scenario in
        (sizes + (scenario.alsoWide ? [wide] : [])).map { (scenario, $0) }
    }

    @Test("snapshot", arguments: cases)
    func snapshot(_ scenario: Scenario, _ size: ScreenSize) async throws {
        let fixture = try ConsoleFixture()
        let transport = scenario.apple.map { answer in ScriptedApple(gated: scenario.gated) { answer($0) } }
        // A fixed export folder: the help names it (no scenario writes a file).
        let (controller, _) = fixture.console(size: size, readOnly: scenario.readOnly, apple: try transport?.service(),
                                              exportDirectory: "/home/support/Downloads")
        try scenario.drive(controller, fixture)
        if scenario.settle { #expect(await controller.settle()) }
        Snapshot.check(scenario.name, controller, size: size)
        transport?.open()
        await controller.settle()
    }
}
