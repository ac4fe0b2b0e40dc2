import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// A temporary folder for one end-to-end ledger test: a fresh database path, a config file, the
/// shared test CA's two roots written out for `--trust-anchor`, and receipts forged into files.
/// The folder is removed when the workspace goes away.
final class LedgerWorkspace {
    let directory: URL
    let databasePath: String
    let configPath: String
    let anchorPaths: [String]
    let authority: TestCertificateAuthority
    var operatorName = "tester"
    /// What `--db` names: the SQLite file by default, or a PostgreSQL URL a test sets.
    var databaseLocation: String

    /// The catalogue the tests use (same products as the PurchaseStore tests' fixture).
    static let configJSON = """
    {
      "bundleIds": ["com.example.app"],
      "products": {
        "com.example.pro.monthly": { "entitlement": "pro", "type": "auto-renewable" },
        "com.example.pro.lifetime": { "entitlement": "pro", "type": "non-consumable" },
        "com.example.coins.100": { "entitlement": "coins", "type": "consumable", "units": 100 }
      },
      "sandbox": { "allowSandbox": false },
      "paidToFree": { "entitlement": "pro", "beforeBuild": "42" }
    }
    """

    init(config: String = LedgerWorkspace.configJSON) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        databasePath = directory.appendingPathComponent("purchases.sqlite").path
        databaseLocation = databasePath
        configPath = directory.appendingPathComponent("config.json").path
        try Data(config.utf8).write(to: URL(fileURLWithPath: configPath))
        authority = try TestCertificateAuthority.shared()
        let rsaRoot = directory.appendingPathComponent("test-root.der")
        let ecRoot = directory.appendingPathComponent("test-root-ec.der")
        try Data(authority.root.der).write(to: rsaRoot)
        try Data(authority.ecRoot.der).write(to: ecRoot)
        anchorPaths = [rsaRoot.path, ecRoot.path]
    }

    deinit { try? FileManager.default.removeItem(at: directory) }  // best effort: a leftover temp folder is harmless

    /// `--db`, `--config`, `--operator` (unless `arguments` name one) and the test CA's roots.
    func storeOptions(for arguments: [String]) -> [String] {
        ["--db", databaseLocation, "--config", configPath] + (arguments.contains("--operator") ? [] : ["--operator", operatorName])
            + anchorPaths.flatMap { ["--trust-anchor", $0] }
    }

    /// Creates the workspace's database, migrated and empty (`receiptdesk db init`): commands that
    /// only read refuse a database that is not there.
    func createDatabase(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let output = try CLIRunner.run(["db", "init", "--db", databaseLocation])
        try #require(output.status == 0, "db init: \(output.stderr)", sourceLocation: sourceLocation)
    }

    /// Runs `receiptdesk ARGUMENTS` against this workspace's database (the store options go last).
    @discardableResult
    func run(_ arguments: [String], input: Data? = nil) throws -> CLIRunner.Output {
        try CLIRunner.run(arguments + storeOptions(for: arguments), input: input)
    }

    /// Starts `receiptdesk ARGUMENTS` against this workspace's database without waiting for it.
    func start(_ arguments: [String], gated: Bool = false, environment: [String: String] = [:]) throws -> CLIRunner.Running {
        try CLIRunner.start(arguments + storeOptions(for: arguments), outputDirectory: directory, gated: gated,
                            environment: environment)
    }

    /// Starts every command behind a gate, then opens the gates together: the binaries start at
    /// the same moment. Returns their outputs in order.
    func runAtOnce(_ commands: [[String]]) throws -> [CLIRunner.Output] {
        let running = try commands.map { try start($0, gated: true) }
        usleep(50_000)  // let every shell reach its `read`
        for process in running { process.open() }
        return running.map { $0.wait() }
    }

    // MARK: forging

    static func date(_ text: String) -> Date { RFC3339.parse(text) ?? .distantPast }

    /// A purchase of `product` (auto-renewable by default, bought 2025-05-01, expiring far ahead).
    static func purchase(_ id: String, _ product: String = "com.example.pro.monthly", bought: String = "2025-05-01T00:00:00Z",
                         expires: String? = "2039-01-01T00:00:00Z", type: Int64 = 3) -> ReceiptPurchase {
        ReceiptPurchase(productId: product, transactionId: id, purchaseDate: date(bought), expiresDate: expires.map(date),
                        productTypeCode: type)
    }

    /// Three consumable purchases with consecutive transaction ids starting at `first`.
    static func coins(_ first: Int) -> [ReceiptPurchase] {
        (0..<3).map { purchase(String(first + $0), "com.example.coins.100", expires: nil, type: 0) }
    }

    /// A unified receipt (base64 text) signed by the test CA, holding `purchases`.
    func receiptBytes(_ purchases: [ReceiptPurchase], type: String = "Production", originalAppVersion: String = "50") throws -> Data {
        try Self.receiptBytes(purchases, authority: authority, type: type, originalAppVersion: originalAppVersion)
    }

    static func receiptBytes(_ purchases: [ReceiptPurchase], authority: TestCertificateAuthority, type: String = "Production",
                             originalAppVersion: String = "50") throws -> Data {
        var builder = UnifiedReceiptBuilder(bundleId: "com.example.app", appVersion: "60",
                                            creationDate: Self.date("2025-05-02T00:00:00Z"), purchases: purchases)
        builder.receiptType = type
        builder.originalAppVersion = originalAppVersion
        return Data(try builder.build(signedBy: authority).base64.utf8)
    }

    /// Writes a forged receipt to `name` in the workspace and returns its path.
    func receipt(_ name: String, _ purchases: [ReceiptPurchase], type: String = "Production",
                 originalAppVersion: String = "50") throws -> String {
        try write(name, try receiptBytes(purchases, type: type, originalAppVersion: originalAppVersion))
    }

    /// A signed StoreKit 2 transaction (JWS) written to `name`.
    func jws(_ name: String, id: String, product: String = "com.example.pro.lifetime", token: String? = nil) throws -> String {
        var payload = TransactionPayload(transactionId: id, bundleId: "com.example.app", productId: product, type: "Non-Consumable",
                                         purchaseDate: Self.date("2025-05-01T00:00:00Z"),
                                         signedDate: Self.date("2025-05-01T00:00:00Z"), environment: "Production")
        payload.appAccountToken = token
        return try write(name, Data(try JWSBuilder(authority: authority).signedTransaction(payload).utf8))
    }

    /// Forges `count` receipts of three consumable purchases each into `folder`, on every core:
    /// receipt `i` holds transactions `firstTransaction + 3i`, `+ 1` and `+ 2`. Returns the paths in order.
    func forgeCoinReceipts(count: Int, firstTransaction: Int, folder: String) throws -> [String] {
        let paths = (0..<count).map { directory.appendingPathComponent("\(folder)/\($0).b64").path }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent(folder), withIntermediateDirectories: true)
        let authority = self.authority
        let failures = FirstError()
        DispatchQueue.concurrentPerform(iterations: count) { index in
            do {
                try Self.receiptBytes(Self.coins(firstTransaction + 3 * index), authority: authority)
                    .write(to: URL(fileURLWithPath: paths[index]))
            } catch {
                failures.record(error)
            }
        }
        if let failure = failures.error { throw failure }
        return paths
    }

    /// Writes `data` to `name` in the workspace (folders created) and returns its path.
    @discardableResult
    func write(_ name: String, _ data: Data) throws -> String {
        let url = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
        return url.path
    }

    // MARK: looking inside the database (sqlite3 command-line shell, as an operator would)

    /// Rows of `sql` run by the `sqlite3` shell on the database, columns separated by `|`.
    func sql(_ sql: String) throws -> [String] {
        let output = try SQLiteShell.run(databasePath, sql)
        return output.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// The single integer `sql` returns.
    func count(_ sql: String) throws -> Int {
        let rows = try self.sql(sql)
        guard rows.count == 1, let value = Int(rows[0]) else {
            throw SQLiteShell.Failure(message: "expected one integer from \(sql), got \(rows)")
        }
        return value
    }
}

/// The first error several threads ran into.
final class FirstError: @unchecked Sendable {  // every access holds the lock
    private let lock = NSLock()
    private var first: (any Error)?

    func record(_ error: any Error) {
        lock.lock()
        defer { lock.unlock() }
        if first == nil { first = error }
    }

    var error: (any Error)? {
        lock.lock()
        defer { lock.unlock() }
        return first
    }
}

/// The `sqlite3` command-line shell, to read and tamper with a database the way an operator could.
enum SQLiteShell {
    struct Failure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    static let path: String? = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/bin/sqlite3"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    static func run(_ database: String, _ sql: String) throws -> String {
        guard let path else { throw Failure(message: "the sqlite3 shell is not installed (apt-get install sqlite3)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-batch", "-noheader", "-cmd", ".timeout 10000", database, sql]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(message: "sqlite3 \(sql): exit \(process.terminationStatus): \(String(decoding: stderr, as: UTF8.self))")
        }
        return String(decoding: stdout, as: UTF8.self)
    }
}

extension CLIRunner.Output {
    /// The lines written to standard error.
    var errorLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }

    /// Standard output parsed as a JSON object.
    func jsonObject(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let parsed = try JSONSerialization.jsonObject(with: Data(stdout.utf8))
        return try #require(parsed as? [String: Any], "not a JSON object: \(stdout)", sourceLocation: sourceLocation)
    }

    /// Standard output parsed as a JSON array of objects.
    /// `import --json`'s `files`: each file's result, in order.
    func importedFiles(sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        let parsed = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]
        return try #require(parsed?["files"] as? [[String: Any]], "not import --json's object: \(stdout)", sourceLocation: sourceLocation)
    }

    /// `import --json`'s `granted`.
    func importGranted(sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        let parsed = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]
        return try #require(parsed?["granted"] as? [[String: Any]], "not import --json's object: \(stdout)", sourceLocation: sourceLocation)
    }

    func jsonArray(sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        let parsed = try JSONSerialization.jsonObject(with: Data(stdout.utf8))
        return try #require(parsed as? [[String: Any]], "not a JSON array of objects: \(stdout)", sourceLocation: sourceLocation)
    }
}

/// Checks that a failure exited with `status` and said so in one error line (optionally followed
/// by the usage hint "try 'receiptdesk COMMAND --help'" or "try 'receiptdesk help'"), containing every one of `phrases`.
func expectFailure(_ output: CLIRunner.Output, _ status: Int32, _ phrases: String..., sourceLocation: SourceLocation = #_sourceLocation) {
    expectFailure(output, status, phrases, sourceLocation: sourceLocation)
}

func expectFailure(_ output: CLIRunner.Output, _ status: Int32, _ phrases: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(output.status == status, "exit \(output.status), wanted \(status); stderr: \(output.stderr)", sourceLocation: sourceLocation)
    #expect(!output.terminatedBySignal, "killed by signal \(output.status)", sourceLocation: sourceLocation)
    let lines = output.errorLines
    let isHint = { (line: String) in line.hasPrefix("try 'receiptdesk ") && line.hasSuffix("help'") }
    let extra = Array(lines.dropFirst())
    #expect(lines.count >= 1 && (extra.isEmpty || (extra.count == 1 && isHint(extra[0]))),
            "one error line (plus the usage hint) wanted, got: \(output.stderr)", sourceLocation: sourceLocation)
    for phrase in phrases {
        #expect(lines.first?.contains(phrase) == true, "'\(phrase)' not in: \(output.stderr)", sourceLocation: sourceLocation)
    }
}
