import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// `receiptdesk demo [--db PATH] [--customers N] [--force]`: builds, through the built-in
/// simulator, a realistic purchase database next to a config that points "Apple" at the simulator
/// and says so. The folder of PATH holds the database, `config.json`, the simulator's state and
/// its test secrets (test material only).
enum DemoCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let path = try args.value("--db") ?? ".build/demo/purchases.sqlite"
        let customersText = try args.value("--customers")
        let force = args.flag("--force")
        let operatorName = try args.value("--operator") ?? "demo"
        _ = try args.finish(maxPositionals: 0)
        let customers = try customersText.map { text -> Int in
            guard let value = Int(text), (20...100_000).contains(value) else { throw CommandFailure.usage("--customers \(text) is not between 20 and 100000") }
            return value
        } ?? 300
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        let manager = FileManager.default
        if manager.fileExists(atPath: path) {
            guard force else { throw CommandFailure.usage("\(path) already exists: pass --force to rebuild the demo") }
            for name in [(path as NSString).lastPathComponent, "config.json", "simulator", "shared-secret", "AuthKey_DEMOKEY01.p8"] {
                try? manager.removeItem(at: folder.appendingPathComponent(name))  // absent files are fine
            }
            for suffix in ["-wal", "-shm"] { try? manager.removeItem(atPath: path + suffix) }  // may not exist
        }
        let folderExisted = manager.fileExists(atPath: folder.path)
        let made = [(path as NSString).lastPathComponent, (path as NSString).lastPathComponent + "-wal",
                    (path as NSString).lastPathComponent + "-shm", "config.json", "simulator", "shared-secret", "AuthKey_DEMOKEY01.p8"]
            .map { folder.appendingPathComponent($0) }.filter { !manager.fileExists(atPath: $0.path) }
        try manager.createDirectory(at: folder, withIntermediateDirectories: true)
        do {
            return try build(path: path, folder: folder, customers: customers, operatorName: operatorName)
        } catch {
            // A demo that failed halfway leaves nothing behind: what this run made goes again
            // (and only that: a file that was there before stays).
            for url in made { try? manager.removeItem(at: url) }  // absent files are fine
            if !folderExisted { try? manager.removeItem(at: folder) }
            throw error
        }
    }

    /// Builds the demo into `folder` (the database at `path`).
    static func build(path: String, folder: URL, customers: Int, operatorName: String) throws -> ExitStatus {
        let started = Date()
        let configPath = try writeDemoFiles(folder)
        let configuration = try StoreConfiguration(json: Array(try Data(contentsOf: URL(fileURLWithPath: configPath))), source: configPath)
        let state = try SimulatorStateDirectory.open(folder.appendingPathComponent("simulator"), bundleId: DemoCatalogue.bundleId,
                                                     appAppleId: configuration.appAppleId ?? 1_234_567_890)
        var scenario = DemoScenario(state: state, now: Date())
        let trust = try AppleConnection.trust(configuration, extraAnchors: [], extraIntermediates: [])
        let ledger = PurchaseLedger(database: try PurchaseDatabase.open(path), configuration: configuration,
                                    verifier: ReceiptVerifier(trust: trust, configuration: configuration))
        var imported = 0
        // One change of the simulator's state directory, saved before it returns; each part of
        // the events goes into the ledger as soon as it is minted.
        try state.change {
            try scenario.build(customers: customers) { events in
                imported += try apply(events, to: ledger, operatorName: operatorName)
            }
        }
        let counts = try ["customers", "orders", "receipts", "transactions", "conflicts", "audit_log"].map { table in
            "\(try ledger.database.queryFirst("SELECT count(*) AS n FROM \(table)", [])?.int("n") ?? 0) \(table.replacingOccurrences(of: "_log", with: " entries"))"
        }
        print("demo database \(path): " + counts.joined(separator: ", ") +
              String(format: " (%d artefacts imported in %.1f s)", imported, Date().timeIntervalSince(started)))
        print("config \(configPath): Apple is the built-in simulator (state in \(folder.appendingPathComponent("simulator").path))")
        return .ok
    }

    /// Applies demo events to the ledger, in order; returns how many artefacts were imported.
    static func apply(_ events: [DemoEvent], to ledger: PurchaseLedger, operatorName: String) throws -> Int {
        var imported = 0
        for event in events {
            switch event {
            case .addTester(let customer): try ledger.addCustomer(customer, isTester: true, operatorName: operatorName)
            case .createOrder(let order, let customer, let product, let token):
                try ledger.createOrder(order, customer: customer, product: product, accountToken: token, operatorName: operatorName)
            case .failOrder(let order, let reason): try ledger.recordFailedPayment(order, reason: reason, operatorName: operatorName)
            case .importArtefact(let bytes, let customer, let order, let username, let source):
                _ = try ledger.importArtefact(bytes, customer: customer, orderId: order, applicationUsername: username, source: source,
                                              operatorName: operatorName)
                imported += 1
            case .notify(let body): _ = try ledger.applyNotification(body, operatorName: "apple")
            case .grant(let customer, let entitlement, let until, let reason):
                try ledger.grant(customer: customer, entitlement: entitlement, until: until, reason: reason, operatorName: operatorName)
            case .contact(let customer, let name, let email):
                if try ledger.customerExists(customer) {
                    try ledger.setContact(customer, CustomerContact(displayName: name, email: email), operatorName: operatorName)
                }
            }
        }
        return imported
    }

    /// Writes the demo config and its test secrets; returns the config's path.
    static func writeDemoFiles(_ folder: URL) throws -> String {
        let secretPath = folder.appendingPathComponent("shared-secret")
        try Data("demo-shared-secret-not-a-real-one\n".utf8).write(to: secretPath)
        let keyPath = folder.appendingPathComponent("AuthKey_DEMOKEY01.p8")
        try Data(try PrivateKey.generateP256().pkcs8PEM().utf8).write(to: keyPath)
        for file in [secretPath, keyPath] {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        }
        let config = """
        {
          "bundleIds": ["\(DemoCatalogue.bundleId)"],
          "appAppleId": 1234567890,
          "products": \(DemoCatalogue.productsJSON),
          "sandbox": {"allowSandbox": false},
          "paidToFree": {"entitlement": "pro", "beforeBuild": "40"},
          "appStore": {
            "api": "verifyReceipt",
            "sharedSecretFile": "shared-secret",
            "serverAPI": {"keyId": "DEMOKEY01", "issuerId": "demo-issuer-0000", "privateKeyFile": "AuthKey_DEMOKEY01.p8"},
            "timeoutSeconds": 10,
            "maxAttempts": 3,
            "simulator": {"stateDirectory": "simulator"}
          }
        }
        """
        let configPath = folder.appendingPathComponent("config.json")
        try Data(config.utf8).write(to: configPath)
        return configPath.path
    }
}
