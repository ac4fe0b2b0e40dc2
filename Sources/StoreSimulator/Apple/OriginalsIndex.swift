import Foundation

/// The ids of the transactions of each original transaction (`SimulatorRecords.transactions`):
/// every verifyReceipt answer and every renewal looks up its originals, and scanning every
/// transaction the simulator ever issued for each was most of their work (building the demo's
/// 30,000 customers took quadratic time while each change threw the index away).
///
/// Built from the records when first asked, then kept up to date as transactions are issued
/// (`SimulatorRecords.issue`, which copies it first when another copy of the records shares
/// it). A transaction's original never changes, so only new transactions touch it; should the
/// records hold a count of transactions it has not seen (one set without `issue`), it is built
/// again. Safe to share between the threads that answer from one snapshot.
final class OriginalsIndex: @unchecked Sendable {
    private let lock = NSLock()
    private var ids: [String: [String]]?
    private var count = 0

    init() {}

    private init(ids: [String: [String]]?, count: Int) {
        self.ids = ids
        self.count = count
    }

    /// Transaction ids by original transaction id for `transactions`.
    func ids(in transactions: [String: IssuedTransaction]) -> [String: [String]] {
        lock.lock()
        defer { lock.unlock() }
        if let ids, count == transactions.count { return ids }
        var built: [String: [String]] = [:]
        for (id, transaction) in transactions { built[transaction.originalTransactionId, default: []].append(id) }
        ids = built
        count = transactions.count
        return built
    }

    /// Records a newly issued transaction (nothing to do until the index is first built).
    func add(_ transaction: IssuedTransaction) {
        lock.lock()
        defer { lock.unlock() }
        guard ids != nil else { return }
        ids?[transaction.originalTransactionId, default: []].append(transaction.transactionId)
        count += 1
    }

    /// An index of its own for records about to change while another copy keeps this one.
    func copy() -> OriginalsIndex {
        lock.lock()
        defer { lock.unlock() }
        return OriginalsIndex(ids: ids, count: count)
    }
}
