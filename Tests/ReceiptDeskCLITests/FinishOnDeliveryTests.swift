import Foundation
import ReceiptCore
import Testing

/// `appStore.finishOnDelivery`: `import` finishes at Apple each consumable it newly credits to a
/// merchant order, and nothing else; off (the default), it asks Apple nothing.
@Suite("import with finishOnDelivery", .serialized)
struct FinishOnDeliveryTests {
    typealias Demo = AppleCommandsTests.Demo

    /// A gems receipt minted by the demo's simulator (so Apple knows its transaction), in a file.
    static func gems(_ demo: Demo, _ name: String, product: String = "com.example.game.coins.1200") throws -> (path: String, transactionId: String) {
        let minted = try CLIRunner.run(["simulator", "mint", "unified", "--product", product, "--config", demo.config])
        try #require(minted.status == 0, "\(minted.stderr)")
        let path = demo.folder.appendingPathComponent(name).path
        try Data(minted.stdout.utf8).write(to: URL(fileURLWithPath: path))
        let decoded = try AppleActionCommandsTests.object(try CLIRunner.run(["decode", path, "--json", "--config", demo.config]).stdout)
        let id = try #require((decoded["purchases"] as? [[String: Any]])?.first?["transactionId"] as? String, "\(decoded)")
        return (path, id)
    }

    static func setFinishOnDelivery(_ demo: Demo, _ on: Bool) throws {
        var config = try AppleActionCommandsTests.object(try String(contentsOfFile: demo.config, encoding: .utf8))
        var appStore = try #require(config["appStore"] as? [String: Any])
        appStore["finishOnDelivery"] = on
        config["appStore"] = appStore
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: demo.config))
    }

    @Test func onlyNewlyCreditedConsumablesBoundToAnOrderAreFinishedAndOnlyWhenAsked() throws {
        let demo = try Demo()
        for order in ["ORD-GEMS-1", "ORD-GEMS-2"] {
            let created = try CLIRunner.run(["order", "create", "--customer", "gem-buyer", "--order", order, "--product", "com.example.game.coins.1200"] + demo.common)
            try #require(created.status == 0, "\(created.stderr)")
        }
        // Off (the default): nothing is asked of Apple.
        let first = try Self.gems(demo, "gems-1.b64")
        let off = try CLIRunner.run(["import", first.path, "--customer", "gem-buyer", "--order", "ORD-GEMS-1"] + demo.common)
        #expect(off.status == 0 && !off.stdout.contains("finished at Apple"), "\(off.stdout) \(off.stderr)")
        #expect(try AppleActionCommandsTests.finishRequests(demo, first.transactionId) == nil)

        try Self.setFinishOnDelivery(demo, true)
        let second = try Self.gems(demo, "gems-2.b64")
        let on = try CLIRunner.run(["import", second.path, "--customer", "gem-buyer", "--order", "ORD-GEMS-2", "--operator", "svc-import", "--json"]
                                   + demo.common)
        #expect(on.status == 0, "\(on.stderr)")
        let report = try #require(try on.importedFiles().first)
        let finished = try #require((report["finishOnDelivery"] as? [[String: Any]])?.first, "\(report)")
        #expect(finished["transactionId"] as? String == second.transactionId && finished["orderId"] as? String == "ORD-GEMS-2", "\(finished)")
        #expect(finished["finishedBy"] as? String == "svc-import" && finished["finishedAtApple"] is String, "\(finished)")
        #expect(try AppleActionCommandsTests.finishRequests(demo, second.transactionId) == 1)
        let audit = try AppleActionCommandsTests.audit(demo, "apple-finish-transaction")
        #expect(audit.contains("finishOnDelivery: credited to order ORD-GEMS-2 by import of gems-2.b64"), "\(audit)")
        // The same file again credits nothing new: nothing more is asked.
        let repeatRun = try CLIRunner.run(["import", second.path, "--customer", "gem-buyer", "--order", "ORD-GEMS-2"] + demo.common)
        #expect(repeatRun.status == 0 && !repeatRun.stdout.contains("finished at Apple"), "\(repeatRun.stdout)")
        #expect(try AppleActionCommandsTests.finishRequests(demo, second.transactionId) == 1)
        // Gems bound to no order, and a subscription: recorded, not finished.
        let unbound = try Self.gems(demo, "gems-3.b64")
        let pro = try Self.gems(demo, "pro.b64", product: "com.example.game.pro.monthly")
        let other = try CLIRunner.run(["import", unbound.path, pro.path, "--customer", "gem-buyer"] + demo.common)
        #expect(other.status == 0 && !other.stdout.contains("finished at Apple"), "\(other.stdout) \(other.stderr)")
        #expect(try AppleActionCommandsTests.finishRequests(demo, unbound.transactionId) == nil)
        #expect(try AppleActionCommandsTests.finishRequests(demo, pro.transactionId) == nil)
        #expect(try CLIRunner.run(["transaction", "show", first.transactionId] + demo.common).stdout.contains("not finished at Apple"))
        #expect(try CLIRunner.run(["transaction", "show", second.transactionId] + demo.common).stdout.contains("by svc-import"))
    }

    @Test func appleRefusingAFinishLeavesTheImportInAndSaysHowToFinishIt() throws {
        let demo = try Demo()
        try Self.setFinishOnDelivery(demo, true)
        _ = try CLIRunner.run(["order", "create", "--customer", "gem-buyer", "--order", "ORD-GEMS-9", "--product", "com.example.game.coins.1200"] + demo.common)
        let gems = try Self.gems(demo, "gems-9.b64")
        // Apple forgets the transaction (its simulator's state loses it): Finish Transaction is 404 4040010.
        let statePath = demo.folder.appendingPathComponent("simulator/state.json")
        var state = try AppleActionCommandsTests.object(try String(contentsOf: statePath, encoding: .utf8))
        var transactions = try #require(state["transactions"] as? [String: Any])
        transactions[gems.transactionId] = nil
        state["transactions"] = transactions
        try JSONSerialization.data(withJSONObject: state).write(to: statePath)
        let run = try CLIRunner.run(["import", gems.path, "--customer", "gem-buyer", "--order", "ORD-GEMS-9"] + demo.common)
        #expect(run.status == 65, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("1 recorded (1 bound to an order)"), "the import itself is in: \(run.stdout)")
        #expect(run.stderr.contains("\(gems.transactionId) not finished at Apple: Apple refused") && run.stderr.contains("transactionIdNotFound")
                && run.stderr.contains("finish it with `receiptdesk transaction finish \(gems.transactionId) --reason …`"), "\(run.stderr)")
        #expect(try CLIRunner.run(["transaction", "show", gems.transactionId] + demo.common).stdout.contains("not finished at Apple"))
    }
}
