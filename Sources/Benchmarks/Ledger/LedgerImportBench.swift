import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// 10,000 distinct unified receipts of 3 purchases each (signed by the shared test CA, written to
/// 10,000 files before timing) imported into two fresh database files, spread over 2,000
/// customers, verification on and the chain cache warm: into one, one `importArtefact` each
/// (reading its file first: the floor); into the other through `importStream` in batches of 100
/// with the files read on worker threads (what `receiptdesk import FILE…` does: the case). The
/// two are interleaved: 10 rounds of 1,000 receipts, the same receipts into both databases each
/// round (which goes first alternates), so both databases grow alike and each round's ratio
/// (batched ÷ one operation each) compares the same work on the same machine moment. The rates
/// are over all 10,000 receipts. The notes split the time between the calling (writing) thread
/// and the whole process, whose other threads read, decode and verify ahead of the writer.
enum LedgerImportBench {
    static let receiptCount = 10_000
    static let purchasesPerReceipt = 3
    static let customerCount = 2_000
    static let rounds = 10
    static let rateName = "ledger import 10,000 receipts × 3 transactions, one operation each, transactions/s"
    static let batchedRateName = "ledger import 10,000 receipts × 3 transactions, batches of 100, transactions/s"
    static let memoryName = "ledger import peak memory MB"
    static var names: [String] { [rateName, batchedRateName, memoryName] }

    static func run(into report: inout LedgerBenchReport, progress: Bool) throws {
        let peakWasReset = ProcessStats.resetPeakMemory()
        let authority = try TestCertificateAuthority.shared()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-bench-receipts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort: a leftover temp folder is harmless
        LedgerBenchCases.say("ledger import: writing \(receiptCount) receipts to files…", progress)
        let files = try writeReceipts(authority, into: folder)
        let single = try ImportTarget(authority: authority, batched: false, firstFile: files[0])
        let batched = try ImportTarget(authority: authority, batched: true, firstFile: files[0])
        defer { single.remove(); batched.remove() }
        let perRound = receiptCount / rounds
        LedgerBenchCases.say("ledger import: \(receiptCount) receipts one operation each and in batches of 100, \(rounds) interleaved rounds…", progress)
        for round in 0..<rounds {
            let range = (round * perRound)..<((round + 1) * perRound)
            for target in round % 2 == 0 ? [single, batched] : [batched, single] { try target.importFiles(files, range) }
        }
        let ratio = RatioSummary(caseSeconds: batched.roundSeconds, floorSeconds: single.roundSeconds)
        // One write transaction per receipt is how the console imports a pasted receipt: the
        // floor; the aim is for a run of files, as `receiptdesk import` does it.
        report.figures.append(LedgerFigure(name: rateName, value: try single.finish(), aim: .none))
        report.figures.append(LedgerFigure(name: batchedRateName, value: try batched.finish(), aim: .atLeast(15_000),
                                           floorName: "one operation each", ratio: ratio))
        report.notes += [single.timing, batched.timing]
        if let peak = ProcessStats.peakMegabytes() { report.figures.append(LedgerFigure(name: memoryName, value: peak, aim: .below(100))) }
        report.notes.append("ledger import: peak RSS \(peakWasReset ? "since the import case began" : "of the whole process"), "
                            + "the receipts read from their files as they are imported")
    }

    /// One of the two databases the import rounds fill, and the time its rounds took.
    final class ImportTarget {
        let batched: Bool
        let directory: URL
        let database: SQLDatabase
        let ledger: PurchaseLedger
        private(set) var roundSeconds: [Double] = []
        private var running = 0.0, waiting = 0.0, processCPU = 0.0
        private var threadStats = true

        init(authority: TestCertificateAuthority, batched: Bool, firstFile: String) throws {
            self.batched = batched
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-bench-import-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            database = try PurchaseDatabase.open(directory.appendingPathComponent("purchases.sqlite").path)
            let verifier = ReceiptVerifier(trust: authority.trustStore(), expectedBundleIds: Set(LedgerBenchCases.configuration.bundleIds))
            let now = LedgerBenchCases.now
            ledger = PurchaseLedger(database: database, configuration: LedgerBenchCases.configuration, verifier: verifier, clock: { now })
            // Warm the chain cache: the first chain check is not what is measured.
            let warm = verifier.verify(try ReceiptDecoder.decode(try readFile(firstFile)))
            try LedgerBenchCases.expect(warm.isValid, "a generated receipt does not verify: \(warm.reason)")
        }

        /// Imports the files of `range` (one operation each, or streamed in batches of 100),
        /// timed; each must record all its transactions.
        func importFiles(_ files: [String], _ range: Range<Int>) throws {
            let clock = ContinuousClock()
            let start = clock.now
            let scheduled = ProcessStats.threadSeconds()
            let processStart = processCPUSeconds()
            func check(_ index: Int, _ result: ImportResult) throws {
                let recorded = result.transactions.filter { if case .recorded = $0.outcome { return true } else { return false } }
                try LedgerBenchCases.expect(result.verdict.isValid && recorded.count == purchasesPerReceipt,
                                            "receipt \(index) recorded \(recorded.count) of \(purchasesPerReceipt) transactions (\(result.verdict.reason))")
            }
            if batched {
                try ledger.importStream(count: range.count, batchSize: 100, operatorName: "bench", item: { offset in
                    let index = range.lowerBound + offset
                    return PurchaseLedger.ImportItem(bytes: try readFile(files[index]), customer: customerId(index % customerCount), source: "bench")
                }, report: { offset, outcome in try check(range.lowerBound + offset, try outcome.get()) })
            } else {
                for index in range {
                    try check(index, try ledger.importArtefact(try readFile(files[index]), customer: customerId(index % customerCount),
                                                               source: "bench", operatorName: "bench"))
                }
            }
            roundSeconds.append(LedgerBenchCases.seconds(clock.now - start))
            if let before = scheduled, let after = ProcessStats.threadSeconds() {
                running += after.running - before.running
                waiting += after.waiting - before.waiting
            } else {
                threadStats = false
            }
            processCPU += processCPUSeconds() - processStart
        }

        /// Checks every transaction arrived; transactions per second over all rounds.
        func finish() throws -> Double {
            let stored = try database.queryFirst("SELECT count(*) AS n FROM transactions", [])?.int("n") ?? 0
            let total = receiptCount * purchasesPerReceipt
            try LedgerBenchCases.expect(stored == Int64(total), "the database holds \(stored) transactions, not \(total)")
            let elapsed = roundSeconds.reduce(0, +)
            return elapsed > 0 ? Double(total) / elapsed : 0
        }

        /// Where the time went, for the notes.
        var timing: String {
            let total = receiptCount * purchasesPerReceipt
            let elapsed = roundSeconds.reduce(0, +)
            var text = String(format: "ledger import\(batched ? " (batched)" : ""): %d transactions in %.2f s (%.3f ms per receipt)", total, elapsed,
                              elapsed * 1_000 / Double(receiptCount))
            if threadStats {
                text += String(format: " = %.2f s on a CPU in the writing thread (%.0f transactions per CPU second) + %.2f s waiting for a core + %.2f s blocked (I/O)",
                               running, Double(total) / running, waiting, max(0, elapsed - running - waiting))
            }
            return text + String(format: "; %.2f s of CPU in the whole process", processCPU)
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }  // best effort: a leftover temp folder is harmless
    }

    /// A receipt file's bytes, read as `receiptdesk import FILE…` reads each file (`InputFile`).
    static func readFile(_ path: String) throws -> [UInt8] {
        do { return try InputFile.read(path) } catch { throw BenchmarkError.ledger(error.message) }
    }

    /// CPU time of every thread of the process so far.
    static func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func customerId(_ index: Int) -> String { "import-customer-" + LedgerBenchCases.padded(index, 5) }

    /// The receipts' files, in import order, each built and written on every core (RSA signing is
    /// most of it), so that the receipts are never all in memory; one that failed is built again
    /// alone, to report its error.
    static func writeReceipts(_ authority: TestCertificateAuthority, into folder: URL) throws -> [String] {
        let files = (0..<receiptCount).map { folder.appendingPathComponent("receipt-\(LedgerBenchCases.padded($0, 5)).der") }
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for index in stride(from: worker, to: receiptCount, by: workers) {
                try? Data(try receipt(index, authority)).write(to: files[index])  // checked below
            }
        }
        for (index, file) in files.enumerated() where !FileManager.default.fileExists(atPath: file.path) {
            try Data(try receipt(index, authority)).write(to: file)
        }
        return files.map(\.path)
    }

    /// Receipt `index`: the customer's next month of a subscription (one renewal chain per customer),
    /// a coin pack, and a lifetime unlock on their first receipt (coins after). Transaction ids are unique.
    static func receipt(_ index: Int, _ authority: TestCertificateAuthority) throws -> [UInt8] {
        let customer = index % customerCount
        let round = index / customerCount
        let start = RFC3339.parse("2024-01-01T00:00:00Z") ?? Date(timeIntervalSince1970: 1_704_067_200)
        let bought = start.addingTimeInterval(Double(round) * LedgerBenchCases.month + Double(customer) * 60)
        let base = 3_000_000_000_000 + index * purchasesPerReceipt
        let chain = String(3_000_000_000_000 + customer * purchasesPerReceipt)
        let purchases = [
            ReceiptPurchase(productId: "com.example.pro.monthly", transactionId: String(base), originalTransactionId: chain,
                            purchaseDate: bought, expiresDate: bought.addingTimeInterval(LedgerBenchCases.month),
                            productTypeCode: 3, webOrderLineItemId: Int64(base)),
            ReceiptPurchase(productId: "com.example.coins.100", transactionId: String(base + 1),
                            purchaseDate: bought.addingTimeInterval(60), productTypeCode: 1),
            ReceiptPurchase(productId: round == 0 ? "com.example.pro.lifetime" : "com.example.coins.100",
                            transactionId: String(base + 2), purchaseDate: bought.addingTimeInterval(120),
                            productTypeCode: round == 0 ? 0 : 1),
        ]
        var builder = UnifiedReceiptBuilder(bundleId: "com.example.app", appVersion: "60",
                                            creationDate: bought.addingTimeInterval(300), purchases: purchases)
        builder.receiptType = "Production"
        builder.originalAppVersion = "50"
        return try builder.build(signedBy: authority).der
    }
}

