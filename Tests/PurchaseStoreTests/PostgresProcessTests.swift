import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// Several `receiptdesk` processes on one PostgreSQL database at once, through the real binary
/// (built beside the test bundle by `swift test`).
@Suite("receiptdesk processes on one PostgreSQL database")
struct PostgresProcessTests {
    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("receiptdesk")
    static var canRun: Bool { PostgresTestServer.url != nil && FileManager.default.isExecutableFile(atPath: binary.path) }

    /// A started process whose output goes to files (no pipe can fill up and stall it).
    struct Running {
        let process: Process
        let stdout: URL
        let stderr: URL

        func wait() -> (status: Int32, stdout: String, stderr: String) {
            process.waitUntilExit()
            let read = { (url: URL) in (try? String(contentsOf: url, encoding: .utf8)) ?? "" }  // a missing file reads as no output
            return (process.terminationStatus, read(stdout), read(stderr))
        }
    }

    static func start(_ arguments: [String], in folder: URL) throws -> Running {
        let id = UUID().uuidString
        let stdout = folder.appendingPathComponent("\(id).out")
        let stderr = folder.appendingPathComponent("\(id).err")
        try Data().write(to: stdout)
        try Data().write(to: stderr)
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdout)
        process.standardError = try FileHandle(forWritingTo: stderr)
        try process.run()
        return Running(process: process, stdout: stdout, stderr: stderr)
    }

    /// Writes a config (lifetime and coin products of com.example.app) and the test CA's roots
    /// into `folder`, and returns the options that name them for the binary.
    static func processOptions(_ f: BackendLedgerFixture, in folder: URL) throws -> [String] {
        let config = folder.appendingPathComponent("config.json")
        try Data("""
            {"bundleIds": ["com.example.app"], "products": {
              "com.example.pro.lifetime": {"entitlement": "pro", "type": "non-consumable"},
              "com.example.coins.100": {"entitlement": "coins", "type": "consumable", "units": 100}}}
            """.utf8).write(to: config)
        let anchors = try [("rsa", f.authority.root.der), ("ec", f.authority.ecRoot.der)].map { name, der throws -> String in
            let path = folder.appendingPathComponent("root-\(name).der")
            try Data(der).write(to: path)
            return path.path
        }
        return ["--config", config.path] + anchors.flatMap { ["--trust-anchor", $0] }
    }

    @Test(.enabled(if: PostgresTestServer.canRunProcesses, "needs RECEIPTDESK_TEST_POSTGRES_URL and the receiptdesk binary beside the tests"))
    func fourImportersAndGrantersAtOnceKeepTheLedgerWhole() throws {
        let f = try BackendLedgerFixture(.postgres)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-pg-processes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort: a leftover temp folder is harmless
        let options = ["--db", f.scratch.location] + (try Self.processOptions(f, in: folder))
        let files = try (0..<12).map { index -> String in
            let path = folder.appendingPathComponent("receipt-\(index).b64")
            let purchases = [LedgerFixture.purchase("proc-\(index)-a", "com.example.coins.100", expires: nil, type: 1),
                             LedgerFixture.purchase("proc-\(index)-b", "com.example.coins.100", expires: nil, type: 1)]
            try Data(try f.receipt(purchases)).write(to: path)
            return path.path
        }
        // Importer k takes every receipt for "shared" (in its own order) and every third for "claimant-k".
        let importers = try (0..<4).map { k in
            let mine = files.indices.map { files[($0 * 5 + k) % files.count] }
            return try Self.start(["import", "--customer", "shared", "--operator", "op\(k)"] + mine + options, in: folder)
        }
        let claimants = try (0..<4).map { k in
            try Self.start(["import", "--customer", "claimant-\(k)", "--operator", "op\(k)"] + stride(from: k, to: files.count, by: 3).map { files[$0] } + options,
                           in: folder)
        }
        let results = (importers + claimants).map { $0.wait() }
        for result in results { #expect(result.status == 0, "exit \(result.status): \(result.stderr)") }
        let granters = try (0..<4).map { k in
            try Self.start(["grant", "--customer", "shared", "--entitlement", "pro", "--reason", "race \(k)", "--operator", "op\(k)"] + options, in: folder)
        }
        let grants = granters.map { $0.wait() }
        #expect(grants.filter { $0.status == 0 }.count == 1, "\(grants.map(\.stderr))")
        #expect(grants.filter { $0.status == 65 && $0.stderr.contains("already has") }.count == 3, "\(grants.map(\.stderr))")

        #expect(try f.count("SELECT count(*) AS n FROM transactions") == 24)
        #expect(try f.count("SELECT count(*) AS n FROM receipts") == 12)
        #expect(try f.count("SELECT count(*) AS n FROM grants") == 1)
        // Each receipt's transactions belong to whoever imported it first; every other importer has one conflict.
        let owners = try f.database.query("SELECT transaction_id, customer_id FROM transactions", [])
        for row in owners {
            let id = row.string("transaction_id") ?? ""
            let conflicts = try f.count("SELECT count(*) AS n FROM conflicts WHERE transaction_id = ? AND claimant_customer_id = ?",
                                        [.text(id), .text(row.string("customer_id") ?? "")])
            #expect(conflicts == 0, "\(id): its owner never conflicts with itself")
        }
        #expect(try f.count("SELECT count(*) AS n FROM (SELECT transaction_id, claimant_customer_id FROM conflicts GROUP BY 1, 2 HAVING count(*) > 1) AS twice") == 0)
        let audit = try Self.start(["audit", "--verify"] + options, in: folder).wait()
        #expect(audit.status == 0, "\(audit.stdout) \(audit.stderr)")
        #expect(try AuditLog.verify(f.database).isIntact)
    }
}

extension PostgresTestServer {
    static var canRunProcesses: Bool { PostgresProcessTests.canRun }
}
