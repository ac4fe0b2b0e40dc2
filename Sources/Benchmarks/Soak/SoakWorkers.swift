import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// Runs this binary as a child process and waits for it: its exit status (or the signal that
/// killed it) and the last line it wrote to standard error.
struct SoakProcess {
    let status: Int32
    let signalled: Bool
    let lastError: String

    static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> SoakProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()  // until the child closes it
        process.waitUntilExit()
        let text = String(decoding: data.suffix(4_096), as: UTF8.self)
        let last = text.split(separator: "\n").last.map(String.init) ?? ""
        return SoakProcess(status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal, lastError: last)
    }
}

/// A receipt file for the importing processes and the customer it belongs to.
struct SoakReceipt: Sendable {
    let path: String
    let owner: String
}

/// The receipts the importing processes race over: unified receipts and StoreKit 2 transactions
/// minted by the demo's simulator (so it knows them when asked), some sharing transactions with
/// others (the same purchase arriving in a later receipt), owned by `soak-NNN` customers.
enum SoakPool {
    static func mint(folder: URL, configuration: StoreConfiguration, count: Int) throws -> [SoakReceipt] {
        let stateFolder = folder.appendingPathComponent("simulator")
        let state = try SimulatorStateDirectory.open(stateFolder, bundleId: configuration.bundleIds.first ?? DemoCatalogue.bundleId,
                                                     appAppleId: configuration.appAppleId ?? 1_234_567_890)
        let poolFolder = folder.appendingPathComponent("pool")
        try FileManager.default.createDirectory(at: poolFolder, withIntermediateDirectories: true)
        let start = Date().addingTimeInterval(-40 * 86_400)
        var receipts: [SoakReceipt] = []
        var previous: [SimulatedPurchase] = []
        // One change of the simulator's state directory, saved before it returns.
        try state.change {
            for index in 0..<count {
                let owner = "soak-" + String(format: "%03d", index / 3)
                let day = Double(index % 30) * 86_400
                var purchases = [
                    SimulatedPurchase(productId: DemoCatalogue.monthly, type: .autoRenewable, purchaseDate: start.addingTimeInterval(day),
                                      expiresDate: start.addingTimeInterval(day + 30 * 86_400)),
                    SimulatedPurchase(productId: DemoCatalogue.coins, type: .consumable, purchaseDate: start.addingTimeInterval(day + 60)),
                ]
                // Every third receipt repeats the previous one's transactions (as a refreshed receipt does).
                if index % 3 == 2 { purchases += previous }
                let file = poolFolder.appendingPathComponent("receipt-\(index).b64")
                if index % 4 == 3 {
                    let minted = try state.mintSignedTransaction(environment: .production, purchase: purchases[0],
                                                                 signedDate: purchases[0].purchaseDate.addingTimeInterval(5))
                    try Data(minted.jws.utf8).write(to: file)
                } else {
                    let minted = try state.mintUnifiedReceipt(environment: .production, purchases: purchases, originalAppVersion: "45")
                    try Data(minted.base64.utf8).write(to: file)
                    previous = minted.transactions.prefix(1).map { issued in
                        SimulatedPurchase(productId: issued.productId, type: issued.productType, purchaseDate: issued.purchaseDate,
                                          expiresDate: issued.expiresDate, transactionId: issued.transactionId)
                    }
                }
                receipts.append(SoakReceipt(path: file.path, owner: owner))
            }
        }
        return receipts
    }
}

/// An operator in a process of its own: imports pool receipts (now and then for the wrong
/// customer, which must open a conflict), grants and revokes entitlements of demo customers, one
/// `receiptdesk` child process per action, until the deadline.
final class SoakWorker: @unchecked Sendable {
    let operatorName: String
    private let database: String
    private let config: String
    private let pool: [SoakReceipt]
    private let customers: [String]
    private let entitlements: [String]
    private var random: SplitMix64
    // Written by the worker's thread only, read after it finished.
    private(set) var counts: [String: Int] = [:]
    private(set) var problems: [String] = []

    init(number: Int, database: String, config: String, pool: [SoakReceipt], customers: [String], entitlements: [String]) {
        operatorName = "soak-operator-\(number)"
        self.database = database
        self.config = config
        self.pool = pool
        self.customers = customers
        self.entitlements = entitlements
        // Not a multiple of SplitMix64's own increment, which would make one operator's stream the
        // other's shifted by a step (the two would then race for exactly the same picks).
        random = SplitMix64(seed: (UInt64(number) &* 0xD1B5_4A32_D192_ED03) ^ 0x5EED_0F50_A4C0_DE00)
    }

    func run(until deadline: Date) {
        let common = ["--db", database, "--config", config, "--operator", operatorName]
        while Date() < deadline {
            let roll = Int.random(in: 0..<10, using: &random)
            let action: String
            var arguments: [String]
            if roll < 5 {
                let first = Int.random(in: 0..<pool.count, using: &random)
                let files = (0..<Int.random(in: 1...4, using: &random)).map { pool[(first + $0 * 7) % pool.count] }
                let wrongOwner = Int.random(in: 0..<10, using: &random) == 0
                let customer = wrongOwner ? (customers.randomElement(using: &random) ?? "soak-x") : files[0].owner
                action = "import"
                arguments = ["import"] + files.map(\.path) + ["--customer", customer]
            } else if roll < 8 {
                action = "grant"
                arguments = ["grant", "--customer", pickCustomer(), "--entitlement", pickEntitlement(), "--for", "P7D",
                             "--reason", "soak goodwill \(Int.random(in: 0..<1_000_000, using: &random))"]
            } else {
                action = "revoke"
                arguments = ["revoke", "--customer", pickCustomer(), "--entitlement", pickEntitlement(), "--reason", "soak revoke"]
            }
            arguments += common
            do {
                let outcome = try SoakProcess.run(arguments)
                classify(action, outcome)
            } catch {
                problems.append("\(action): could not start: \(error)")
                return
            }
        }
    }

    private func pickCustomer() -> String { customers[Int.random(in: 0..<min(customers.count, 40), using: &random)] }
    private func pickEntitlement() -> String { entitlements.randomElement(using: &random) ?? "pro" }

    /// Expected: success, a refusal that changed nothing, "busy, try again". Anything else is a problem.
    private func classify(_ action: String, _ outcome: SoakProcess) {
        let refusal = outcome.lastError.contains("nothing changed") || outcome.lastError.contains("nothing to revoke")
        let key: String
        if outcome.signalled {
            key = "crashed"
            problems.append("\(action) was killed by signal \(outcome.status): \(outcome.lastError)")
        } else if outcome.status == 0 || (action == "import" && outcome.status == 1) {
            key = "ok"
        } else if outcome.status == 75 {
            key = "busy"
        } else if refusal {
            key = "refused"
        } else {
            key = "failed"
            problems.append("\(action) exited \(outcome.status): \(outcome.lastError)")
        }
        counts["\(action) \(key)", default: 0] += 1
    }

    var summary: String { counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ") }

    var check: SoakCheck {
        // A grant refused because another operator's is in force is a correct outcome too.
        let imports = counts["import ok", default: 0]
        let grants = counts["grant ok", default: 0] + counts["grant refused", default: 0]
        return SoakCheck(name: "\(operatorName) imported and granted, no child crashed or failed",
                         passed: problems.isEmpty && imports > 0 && grants > 0,
                         detail: problems.isEmpty ? summary : problems.prefix(3).joined(separator: " | "))
    }
}
