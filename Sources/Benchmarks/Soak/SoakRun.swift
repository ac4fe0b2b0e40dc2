import ConsoleUI
import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// The body of `receiptdesk soak` (issue 7): the whole product under load at once, then the
/// invariants checked.
///
/// A demo database is built in a fresh folder (copied into the target when that is a PostgreSQL
/// URL, which must name an empty database). For `seconds`, all at the same time:
/// - the built-in App Store simulator, with random faults injected (retryable statuses, HTTP 5xx,
///   429 with huge, negative and garbage `Retry-After`, slow answers, dropped connections);
/// - a batch re-verification of random receipts at concurrency 32, over and over (this process);
/// - two more processes (`receiptdesk import`, `grant`, `revoke`), each its own connection and
///   operator, importing receipts that overlap (duplicates and conflicts on purpose) and granting
///   and revoking entitlements of the same customers;
/// - the console (ConsoleUI against a virtual screen) driven by random keys as a fourth operator.
/// Afterwards: the database's integrity, `audit verify`, no transaction owned twice, no grant in
/// force twice, every grant audited once, no purchase entitling anyone but its owner, no child
/// process crashed, the work really happened, and memory stayed bounded.
public enum SoakRun {
    /// Apple as the soak's config describes it, opened by the command line (which owns how a
    /// config becomes a connection): the service, the simulator's fault switchboard, and how to close it.
    public struct Apple {
        public let service: AppleService
        public let faults: SimulatorFaults?
        public let close: () -> Void

        public init(service: AppleService, faults: SimulatorFaults?, close: @escaping () -> Void) {
            self.service = service
            self.faults = faults
            self.close = close
        }
    }

    /// Soaks for `seconds` on `target` (a PostgreSQL URL; the folder's SQLite file when nil) with
    /// `customers` demo customers in a new folder under `folder` (the temp folder when nil; a
    /// folder given is kept, a temporary one removed when every check passed). `trust` and
    /// `connect` turn the demo's config into a trust store and a connection to its simulator.
    /// Prints each check; returns whether all passed.
    public static func run(seconds: Double, target: String?, folder folderArgument: String?, customers: Int,
                           trust makeTrust: (StoreConfiguration) throws -> TrustStore,
                           connect: (StoreConfiguration, TrustStore) throws -> Apple) throws -> Bool {
        let folder = URL(fileURLWithPath: folderArgument ?? NSTemporaryDirectory())
            .appendingPathComponent("receiptdesk-soak-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let sqlitePath = folder.appendingPathComponent("purchases.sqlite").path
        let configPath = folder.appendingPathComponent("config.json").path
        let location = target ?? sqlitePath
        let isPostgres = PostgresDatabase.isURL(location)
        say("soak: \(Int(seconds)) s on \(isPostgres ? "PostgreSQL" : "SQLite") in \(folder.path)")

        // The demo database and its config (Apple = the simulator), copied to PostgreSQL if asked.
        let demo = try SoakProcess.run(["demo", "--db", sqlitePath, "--customers", String(customers)])
        guard demo.status == 0 else { throw BenchmarkError(.unavailable, "soak: receiptdesk demo failed: \(demo.lastError)") }
        guard let configBytes = FileManager.default.contents(atPath: configPath) else {
            throw BenchmarkError(.unavailable, "soak: receiptdesk demo wrote no config at \(configPath)")
        }
        let configuration = try StoreConfiguration(json: Array(configBytes), source: configPath)
        let trust = try makeTrust(configuration)
        if isPostgres {
            let source = try PurchaseDatabase.open(sqlitePath, create: false)
            let destination = try PurchaseDatabase.open(location)
            _ = try DatabaseCopy.copy(from: source, to: destination)
            say("soak: demo copied into \(destination.location)")
        }

        // Receipts for the importing processes, minted before the simulator starts so it knows them.
        let pool = try SoakPool.mint(folder: folder, configuration: configuration, count: 120)
        let open = { () throws -> PurchaseLedger in
            PurchaseLedger(database: try PurchaseDatabase.open(location, create: false), configuration: configuration,
                           verifier: ReceiptVerifier(trust: trust, configuration: configuration))
        }
        let connection = try connect(configuration, trust)
        defer { connection.close() }
        guard let faults = connection.faults else { throw BenchmarkError(.usage, "soak: the demo config names no simulator") }
        let customerIds = try open().database.query("SELECT customer_id FROM customers ORDER BY customer_id", []).compactMap { $0.string("customer_id") }
        let entitlements = Array(Set(configuration.products.values.map(\.entitlement))).sorted()

        let deadline = Date().addingTimeInterval(seconds)
        let memory = SoakMemory()
        let injector = SoakFaultInjector(faults: faults)
        let reverify = SoakReverifyLoop(ledger: try open(), service: connection.service)
        let console = SoakConsoleDriver(ledger: try open(), service: connection.service, label: (location as NSString).lastPathComponent)
        let workers = (2...3).map { number in
            SoakWorker(number: number, database: location, config: configPath, pool: pool, customers: customerIds, entitlements: entitlements)
        }
        var threads: [Thread] = []
        func spawn(_ body: @escaping @Sendable () -> Void) {
            let thread = Thread(block: body)
            thread.stackSize = 8 << 20
            threads.append(thread)
            thread.start()
        }
        let done = DispatchSemaphore(value: 0)
        let jobs: [@Sendable () -> Void] = [{ injector.run(until: deadline) }, { reverify.run(until: deadline) },
                                            { console.run(until: deadline) }] + workers.map { worker in { worker.run(until: deadline) } }
        for job in jobs { spawn { job(); done.signal() } }
        while Date() < deadline {
            memory.sample()
            Thread.sleep(forTimeInterval: min(1, max(0, deadline.timeIntervalSinceNow)))
        }
        say("soak: time is up, waiting for the workers to finish what they started…")
        for _ in jobs { done.wait() }
        memory.sample()
        faults.clear()

        // What happened, then the checks.
        say("soak: faults injected \(injector.injected), Apple requests \(faults.requestCount)")
        say("soak: re-verification: \(reverify.summary)")
        say("soak: console: \(console.summary)")
        for worker in workers { say("soak: operator \(worker.operatorName): \(worker.summary)") }
        say("soak: memory: \(memory.summary)")
        var checks = try SoakChecks.run(try open().database, isPostgres: isPostgres)
        checks.append(memory.check)
        checks += workers.map(\.check) + [console.check, reverify.check]
        checks.append(SoakCheck(name: "faults were injected and Apple was asked", passed: injector.injected > 0 && faults.requestCount > 0,
                                detail: "\(injector.injected) faults, \(faults.requestCount) requests"))
        for check in checks { print((check.passed ? "✓ " : "✗ ") + check.name + (check.detail.isEmpty ? "" : ": " + check.detail)) }
        let failed = checks.filter { !$0.passed }
        print(failed.isEmpty ? "soak passed (\(Int(seconds)) s, \(checks.count) checks)" : "soak FAILED: \(failed.count) of \(checks.count) checks")
        if failed.isEmpty, folderArgument == nil { try? FileManager.default.removeItem(at: folder) }  // kept when something failed
        return failed.isEmpty
    }

    static func say(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }
}

/// One invariant checked after the soak.
struct SoakCheck {
    let name: String
    let passed: Bool
    let detail: String
}
