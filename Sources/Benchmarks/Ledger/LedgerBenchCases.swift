import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// The fixed-size ledger benchmarks of issue 3: importing 10,000 generated receipts (transactions/s,
/// peak memory) and lookups on a generated database of 1,000,000 transactions (median and p99 ms).
/// Both are slow, so each runs once (not the ops/s loop); `--only` selects them by any of their
/// figure names (`--only ledger`, `--only import`, `--only lookup`).
enum LedgerBenchCases {
    /// The catalogue of the generated purchases (the same as the ledger tests').
    static let configuration = StoreConfiguration(
        bundleIds: ["com.example.app"],
        products: [
            "com.example.pro.monthly": CatalogueProduct(entitlement: "pro", type: .autoRenewable),
            "com.example.pro.lifetime": CatalogueProduct(entitlement: "pro", type: .nonConsumable),
            "com.example.coins.100": CatalogueProduct(entitlement: "coins", type: .consumable, units: 100),
        ],
        paidToFree: PaidToFreeRule(entitlement: "pro", beforeBuild: "42", beforeDate: nil))
    /// The ledger's fixed clock; every generated purchase lies before it.
    static let now = RFC3339.parse("2025-06-01T12:00:00Z") ?? Date(timeIntervalSince1970: 1_748_779_200)
    static let month: TimeInterval = 2_592_000

    /// Runs the ledger benchmarks `only` selects (all when nil).
    static func run(only: String?, progress: Bool) throws -> LedgerBenchReport {
        var report = LedgerBenchReport()
        func selected(_ names: [String]) -> Bool { only.map { wanted in names.contains { $0.contains(wanted) } } ?? true }
        if selected(LedgerImportBench.names) { try LedgerImportBench.run(into: &report, progress: progress) }
        if selected(LedgerLookupBench.names) { try LedgerLookupBench.run(into: &report, progress: progress) }
        if selected(ReverifyBench.names) { try ReverifyBench.run(into: &report, progress: progress) }
        if selected(ConsoleBench.names) { try ConsoleBench.run(into: &report, progress: progress) }
        if selected(SearchBench.names) { try SearchBench.run(into: &report, progress: progress) }
        if selected(ServeBench.names) { try ServeBench.run(into: &report, progress: progress) }
        return report
    }

    /// A progress line on standard error (text mode only).
    static func say(_ text: String, _ progress: Bool) { if progress { FileHandle.standardError.write(Data("  \(text)\n".utf8)) } }

    /// Fails the benchmark unless `condition` holds: a figure over wrong data is worse than none.
    static func expect(_ condition: Bool, _ problem: @autoclosure () -> String) throws {
        if !condition { throw BenchmarkError.ledger(problem()) }
    }

    static func seconds(_ duration: Duration) -> Double {
        let (whole, attoseconds) = duration.components
        return Double(whole) + Double(attoseconds) / 1e18
    }

    /// `value` in decimal, zero-padded to `width` digits (stable, sortable ids).
    static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
