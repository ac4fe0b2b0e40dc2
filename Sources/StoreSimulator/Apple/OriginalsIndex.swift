import Foundation

/// The ids of the transactions of each original transaction, worked out once per set of
/// records (`SimulatorRecords.transactions`) when first asked: every verifyReceipt answer looks
/// up its originals, and scanning every transaction the simulator ever issued for each was most
/// of an answer's work. Records that change get a fresh, empty index; snapshots of the records
/// taken before keep theirs, which still matches them. Safe to share between the threads that
/// answer from one snapshot.
final class OriginalsIndex: @unchecked Sendable {
    private let lock = NSLock()
    private var ids: [String: [String]]?

    /// Transaction ids by original transaction id, built from `transactions` on first use.
    func ids(in transactions: [String: IssuedTransaction]) -> [String: [String]] {
        lock.lock()
        defer { lock.unlock() }
        if let ids { return ids }
        var built: [String: [String]] = [:]
        for (id, transaction) in transactions { built[transaction.originalTransactionId, default: []].append(id) }
        ids = built
        return built
    }
}
