import Foundation
import ReceiptCore

/// What a streamed import (`importStream`) knows about the customers it has already refreshed:
/// each one's entitlement input and stored entitlement rows as its last batch left them, so the
/// next batch that touches the customer need not read either back. Each batch's own imports are
/// applied to it as they are written (`recorded`, `storedReceipt`).
///
/// It is only an optimisation, and is dropped whenever it might be wrong: at the start of each
/// batch when another connection has committed since (SQLite's `data_version`) or this one has
/// changed a row since the last batch committed (SQLite's `total_changes`: a change made between
/// batches through the ledger's own connection, in `report` say), after any batch that
/// failed, and for batches that run with a savepoint per artefact (a rolled-back savepoint would
/// leave records here that the database does not hold). A customer it does not know is read from
/// the database as always. It is consulted only while a batch is applied.
final class EntitlementCache {
    struct Entry {
        var input: EntitlementInput
        var rows: [EntitlementRow]
        /// Transactions, grants, revocations and rows: what the entry holds, for the budget.
        var size: Int { input.transactions.count + input.grants.count + input.revocations.count + rows.count }
    }

    /// At most this many transactions and rows are kept (a few hundred bytes each): a stream of
    /// a million receipts keeps what it can and reads the rest back.
    let budget: Int
    private var entries: [String: Entry] = [:]
    private var held = 0
    /// This batch's records, applied to an entry when the customer is next refreshed.
    private var newTransactions: [String: [OwnedTransaction]] = [:]
    private var newFacts: [String: AppPurchaseFacts] = [:]
    /// The database's `data_version` when this connection last looked, nil when unknown.
    private var dataVersion: Int64?
    /// The rows this connection had changed when the last batch committed, nil when unknown.
    private var changes: Int64?

    init(budget: Int = 100_000) {
        self.budget = budget
    }

    /// At the start of a batch, inside its write transaction: everything is forgotten when the
    /// database changed since the last batch committed, through another connection (`dataVersion`
    /// differs) or through this one (`changes`, this connection's count of changed rows, differs),
    /// or when either cannot tell.
    func beginBatch(dataVersion: Int64?, changes: Int64?) {
        if dataVersion == nil || dataVersion != self.dataVersion || changes == nil || changes != self.changes { removeEntries() }
        self.dataVersion = dataVersion
        self.changes = nil  // until this batch commits
        newTransactions.removeAll()
        newFacts.removeAll()
    }

    /// After the batch committed: `changes` is this connection's count of changed rows, with the
    /// batch's own writes, which the entries already hold.
    func endBatch(changes: Int64?) {
        self.changes = changes
    }

    /// Forgets everything (a batch failed, or ran with savepoints).
    func forgetAll() {
        removeEntries()
        newTransactions.removeAll()
        newFacts.removeAll()
        dataVersion = nil
        changes = nil
    }

    /// A transaction just recorded for `customer`, with the values written, as reading it back
    /// would return them.
    func recorded(_ transaction: IncomingTransaction, for customer: String) {
        guard entries[customer] != nil else { return }
        newTransactions[customer, default: []].append(OwnedTransaction(
            transactionId: transaction.transactionId, originalTransactionId: transaction.originalTransactionId,
            productId: transaction.productId, productType: transaction.productType, environment: transaction.environment,
            purchaseDate: Self.stored(transaction.purchaseDate), expiresDate: Self.stored(transaction.expiresDate),
            revocationDate: Self.stored(transaction.revocationDate), cancellationDate: Self.stored(transaction.cancellationDate),
            quantity: transaction.quantity, ownershipType: transaction.ownershipType,
            revocationTypeRaw: transaction.revocationTypeRaw, revocationPercentage: transaction.revocationPercentage,
            isUpgraded: transaction.isUpgraded == true))
    }

    /// A receipt just stored for `customer`: the newest, so its app purchase facts are the ones
    /// the paid-to-free rule reads when it is valid and states any.
    func storedReceipt(valid: Bool, summary: ArtefactSummary, for customer: String) {
        guard entries[customer] != nil, valid, summary.originalAppVersion != nil || summary.originalPurchaseDate != nil else { return }
        newFacts[customer] = AppPurchaseFacts(originalAppVersion: summary.originalAppVersion,
                                              originalPurchaseDate: Self.stored(summary.originalPurchaseDate),
                                              environment: summary.environment.environment)
    }

    /// The customer's input and stored rows with this batch's records applied, or nil when unknown.
    func entry(_ customer: String) -> Entry? {
        guard var entry = entries.removeValue(forKey: customer) else {
            newTransactions[customer] = nil
            newFacts[customer] = nil
            return nil
        }
        held -= entry.size
        entry.input.transactions += newTransactions.removeValue(forKey: customer) ?? []
        if let facts = newFacts.removeValue(forKey: customer) { entry.input.appPurchase = facts }
        return entry
    }

    /// What a refresh of `customer` read (or was given) and wrote.
    func store(_ customer: String, input: EntitlementInput, rows: [EntitlementRow]) {
        // Copied to arrays of their exact size: grown by appending, they hold up to twice the
        // room, and the entries can stay for the whole stream.
        var input = input
        input.transactions = input.transactions.withUnsafeBufferPointer { Array($0) }
        let entry = Entry(input: input, rows: rows.withUnsafeBufferPointer { Array($0) })
        if let replaced = entries.removeValue(forKey: customer) { held -= replaced.size }
        // Over budget, the oldest knowledge goes first: everything, to be read back as needed.
        if held + entry.size > budget { removeEntries() }
        guard entry.size <= budget else { return }
        entries[customer] = entry
        held += entry.size
    }

    private func removeEntries() {
        entries.removeAll()
        held = 0
    }

    /// A date as the database returns it: at millisecond precision.
    private static func stored(_ date: Date?) -> Date? {
        date.flatMap { StoreDates.parse(StoreDates.format($0)) }
    }
}
