import ConsoleUI
import Foundation
import PurchaseStore
import AppStoreAPI
import ReceiptCore
import StoreSimulator

/// The console fuzz target's world: a small ledger built once (customers, receipts with several
/// purchases, an order, a grant, a conflict) in a temporary folder, that every input starts from;
/// and a fake Apple answering verifyReceipt at once.
enum ConsoleFuzzWorld {
    static let now = Date(timeIntervalSince1970: 1_748_779_200)  // 2025-06-01T12:00:00Z
    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-fuzz-console-\(getpid())").path

    static let configuration = StoreConfiguration(
        bundleIds: ["com.example.app"],
        products: [
            "pro.monthly": CatalogueProduct(entitlement: "pro", type: .autoRenewable),
            "金币礼包": CatalogueProduct(entitlement: "coins", type: .consumable, units: 1200),
        ])

    static let verifier: ReceiptVerifier? = {
        // Setup, not input: nil makes the target skip every input (reported once below).
        guard let authority = try? TestCertificateAuthority.shared() else { return nil }
        return ReceiptVerifier(trust: authority.trustStore(), expectedBundleIds: ["com.example.app"])
    }()

    /// Apple stand-in: production says 21007, sandbox answers a receipt with one purchase.
    static let apple: AppleService? = {
        // Setup, not input: without it, `r` reports that no Apple service is configured.
        guard let production = URL(string: "https://buy.itunes.apple.com/verifyReceipt"),
              let sandbox = URL(string: "https://sandbox.itunes.apple.com/verifyReceipt"),
              let client = try? VerifyReceiptClient(productionURL: production, sandboxURL: sandbox, transport: InstantApple(),
                                                    sharedSecret: nil, retry: .never) else { return nil }
        return AppleService(api: .verifyReceipt, verifyReceipt: client, serverAPI: nil, label: "FUZZ: Apple is instant")
    }()

    /// The template database's path, built on first use; nil (with a message) when it cannot be built.
    static let template: String? = {
        do {
            return try buildTemplate()
        } catch {
            FileHandle.standardError.write(Data("console fuzz: cannot build the template ledger: \(error)\n".utf8))
            return nil
        }
    }()

    static func buildTemplate() throws -> String {
        guard let verifier else { throw ReceiptError(.configuration, "test CA unavailable") }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // libFuzzer ends with exit(): the folder goes with the process (a crash leaves it for inspection).
        atexit { try? FileManager.default.removeItem(atPath: ConsoleFuzzWorld.directory) }  // best effort
        let path = directory + "/template.sqlite"
        try? FileManager.default.removeItem(atPath: path)  // a leftover from a crashed run is rebuilt
        let database = try SQLiteDatabase(path: path)
        try MigrationRunner.migrate(database, now: now)
        let ledger = PurchaseLedger(database: database, configuration: configuration, verifier: verifier, clock: { now })
        let authority = try TestCertificateAuthority.shared()
        func receipt(_ purchases: [ReceiptPurchase], type: String = "Production") throws -> [UInt8] {
            var builder = UnifiedReceiptBuilder(bundleId: "com.example.app", appVersion: "60", creationDate: now.addingTimeInterval(-86_400),
                                                purchases: purchases)
            builder.receiptType = type
            return Array(try builder.build(signedBy: authority).base64.utf8)
        }
        try ledger.addCustomer("alice", isTester: false, operatorName: "mei")
        _ = try ledger.createOrder("ORD-1", customer: "alice", product: "金币礼包", operatorName: "mei")
        _ = try ledger.importArtefact(try receipt(FuzzSeeds.purchases(3)), customer: "alice", orderId: "ORD-1", source: "app", operatorName: "mei")
        _ = try ledger.importArtefact(try receipt(FuzzSeeds.purchases(2), type: "ProductionSandbox"), customer: "王小明", source: "app",
                                      operatorName: "li")
        _ = try ledger.importArtefact(try receipt(FuzzSeeds.purchases(1)), customer: "bob", source: "app", operatorName: "mei")
        _ = try ledger.importArtefact(try receipt([]), customer: "dave", source: "app", operatorName: "mei")
        _ = try ledger.grant(customer: "alice", entitlement: "pro", until: now.addingTimeInterval(30 * 86_400), reason: "goodwill",
                             operatorName: "mei")
        return path
    }

    /// The copy of the template the last input ran on, open, and its connection's change count
    /// when it was opened. libFuzzer calls the target from one thread.
    nonisolated(unsafe) static var work: (database: SQLiteDatabase, changes: Int64)?

    /// Runs `body` over a ledger on a copy of `template` as it was built. The copy is made afresh
    /// only when the input before changed something in it (the console writes through this one
    /// connection, whose change count says so; a change rolled back counts too): most inputs
    /// change nothing, and reopening the database, and preparing its statements again, was most
    /// of an execution.
    static func withLedger(copyOf template: String, _ body: (PurchaseLedger) throws -> Void) throws {
        guard let verifier else { return }
        let database: SQLiteDatabase
        if let work, work.database.totalChanges() == work.changes {
            database = work.database
        } else {
            work = nil  // closes the changed copy before it is replaced
            let path = directory + "/work.sqlite"
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }  // absent is fine
            try FileManager.default.copyItem(atPath: template, toPath: path)
            database = try SQLiteDatabase(path: path)
            work = (database, database.totalChanges())
        }
        let ledger = PurchaseLedger(database: database, configuration: configuration, verifier: verifier, clock: { now })
        try body(ledger)
    }
}

/// verifyReceipt answered at once from a script, never the network.
struct InstantApple: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let body = request.url.host?.hasPrefix("buy") == true
            ? #"{"status":21007}"#
            : #"{"status":0,"environment":"Sandbox","receipt":{"bundle_id":"com.example.app","in_app":[{"transaction_id":"1000000000000000","original_transaction_id":"1000000000000000","product_id":"pro.monthly","quantity":"1","purchase_date_ms":"1735689600000","expires_date_ms":"1738281600000"}]}}"#
        return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(body.utf8))
    }
}
