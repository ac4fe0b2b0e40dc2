import ConsoleUI
import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// The console's figures of issue 5 for `receiptdesk bench`: `ConsoleBenchmark` (ConsoleUI driven
/// against the virtual screen, everything but the terminal) on the generated database of 1,000,000
/// transactions the ledger lookups use. Aims: first screen < 150 ms, filter < 50 ms, page-down
/// < 10 ms, a 50 KB paste < 1,000 ms, memory < 100 MB. Each timed figure carries its ratio to
/// the bare page read it was paired with (see `ConsoleBenchmark`).
enum ConsoleBench {
    static let names = ["console first screen", "console filter by transaction id", "console page-down", "console paste 50 KB",
                        "console peak memory MB"]

    static func run(into report: inout LedgerBenchReport, progress: Bool) throws {
        let database = try LedgerLookupBench.openGenerated(into: &report, progress: progress)
        let now = LedgerBenchCases.now
        let ledger = PurchaseLedger(database: database, configuration: LedgerBenchCases.configuration,
                                    verifier: ReceiptVerifier(trust: try TestCertificateAuthority.shared().trustStore()), clock: { now })
        LedgerBenchCases.say("console: first screen, filter and page-down on 1,000,000 transactions…", progress)
        _ = ProcessStats.resetPeakMemory()
        let figures = try ConsoleBenchmark.measure(ledger: ledger, clock: { now })
        append(figures, into: &report)
    }

    /// The same steps on PostgreSQL (`database`: the 1,000,000-transaction database copied there),
    /// with the same aims, named "console on PostgreSQL …" (peak memory is the process's, so left out).
    static func runPostgres(_ database: SQLDatabase, into report: inout LedgerBenchReport, progress: Bool) throws {
        let now = LedgerBenchCases.now
        let ledger = PurchaseLedger(database: database, configuration: LedgerBenchCases.configuration,
                                    verifier: ReceiptVerifier(trust: try TestCertificateAuthority.shared().trustStore()), clock: { now })
        LedgerBenchCases.say("console on PostgreSQL: first screen, filter and page-down on 1,000,000 transactions…", progress)
        let figures = try ConsoleBenchmark.measure(ledger: ledger, clock: { now }).filter { !$0.name.contains("memory") }
        append(figures, into: &report, prefix: "console on PostgreSQL ")
    }

    /// Each figure with its aim and its ratio to the floor, its name's "console " replaced by `prefix`.
    private static func append(_ figures: [ConsoleBenchmark.Figure], into report: inout LedgerBenchReport, prefix: String = "console ") {
        for figure in figures {
            let name = figure.name
            let aim = Self.aim(name)
            let shown = name.hasPrefix("console ") ? prefix + name.dropFirst("console ".count) : name
            report.figures.append(LedgerFigure(name: shown, value: figure.value, aim: aim,
                                               floorName: figure.ratio == nil ? nil : ConsoleBenchmark.floorName, ratio: figure.ratio))
        }
    }

    /// The aim of the console figure named `name`: first screen < 150 ms, filter < 50 ms,
    /// page-down < 10 ms, a paste < 1,000 ms, memory < 100 MB.
    static func aim(_ name: String) -> LedgerFigure.Aim {
        if name.contains("first screen") { return .below(150) }
        if name.contains("filter") { return .below(50) }
        if name.contains("page-down") { return .below(10) }
        if name.contains("paste") { return .below(1_000) }
        if name.contains("memory") { return .below(100) }
        return .none
    }
}
