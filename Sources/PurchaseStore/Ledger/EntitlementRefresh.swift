import Foundation
import ReceiptCore
import Synchronization

extension PurchaseLedger {
    /// What the entitlement calculation needs about one customer, read from the database.
    func entitlementInput(_ customerId: String) throws -> EntitlementInput {
        var transactions: [OwnedTransaction] = []
        try database.forEachRow("SELECT \(Self.ownedTransactionColumns) FROM transactions WHERE customer_id = ?", [.text(customerId)]) {
            transactions.append(Self.ownedTransaction($0))
        }
        let graces = try database.query("SELECT \(Self.gracePeriodColumns) FROM subscription_states WHERE customer_id = ? AND \(Self.gracePeriodCondition)",
                                        [.text(customerId)])
        Self.applyGracePeriods(graces, to: &transactions)
        let grants = try database.query("SELECT \(Self.manualGrantColumns) FROM grants WHERE customer_id = ?",
                                        [.text(customerId)]).map(Self.manualGrant)
        let revocations = try database.query("SELECT \(Self.manualRevocationColumns) FROM revocations WHERE customer_id = ?",
                                             [.text(customerId)]).map(Self.manualRevocation)
        let tester = try database.queryFirst("SELECT is_tester FROM customers WHERE customer_id = ?", [.text(customerId)])?
            .bool("is_tester") ?? false
        // The newest valid receipt that says when and in which version the app was first bought.
        let app = try database.queryFirst("""
            SELECT \(Self.appPurchaseColumns) FROM receipts WHERE customer_id = ? AND \(Self.appPurchaseCondition)
            ORDER BY receipt_id DESC LIMIT 1
            """, [.text(customerId)]).map(Self.appPurchaseFacts)
        return EntitlementInput(transactions: transactions, grants: grants, revocations: revocations,
                                appPurchase: app, isTester: tester)
    }

    // The columns each part of the input is read from, and how a row becomes it (shared with
    // `PostgresDatabase.prefetchImports`, which reads them for a whole batch).

    /// Read by position (`ownedTransaction`): keep the two in the same order.
    static let ownedTransactionColumns = """
        transaction_id, original_transaction_id, product_id, product_type, environment, purchase_date,
        expires_date, revocation_date, cancellation_date, quantity, ownership_type, revocation_type,
        revocation_percentage, is_upgraded
        """

    /// The transaction in `ownedTransactionColumns`, starting at column `first`.
    static func ownedTransaction(_ c: any SQLColumns, from first: Int = 0) -> OwnedTransaction {
        OwnedTransaction(transactionId: c.string(first) ?? "",
                         originalTransactionId: c.string(first + 1),
                         productId: c.string(first + 2) ?? "",
                         productType: c.string(first + 3).flatMap(ProductType.init(rawValue:)),
                         environment: Environment(rawValue: c.string(first + 4) ?? "") ?? .unknown,
                         purchaseDate: c.date(first + 5), expiresDate: c.date(first + 6),
                         revocationDate: c.date(first + 7), cancellationDate: c.date(first + 8),
                         quantity: c.int(first + 9) ?? 1, ownershipType: c.string(first + 10),
                         revocationTypeRaw: c.string(first + 11), revocationPercentage: c.int(first + 12),
                         isUpgraded: c.int(first + 13) == 1)
    }

    /// Apple's billing grace periods (signed renewal info, kept in `subscription_states`).
    static let gracePeriodColumns = "customer_id, original_transaction_id, grace_period_expires_date"
    static let gracePeriodCondition = "status = 4 AND grace_period_expires_date IS NOT NULL"

    /// The newest period of a subscription in Apple's billing grace period keeps granting until
    /// the grace period ends: its transaction carries the grace period's end.
    static func applyGracePeriods(_ rows: [SQLRow], to transactions: inout [OwnedTransaction]) {
        for grace in rows {
            guard let original = grace.string("original_transaction_id"), let end = grace.date("grace_period_expires_date") else { continue }
            let latest = transactions.indices.filter { (transactions[$0].originalTransactionId ?? transactions[$0].transactionId) == original }
                .max { (transactions[$0].expiresDate ?? .distantPast) < (transactions[$1].expiresDate ?? .distantPast) }
            if let latest { transactions[latest].gracePeriodEnd = end }
        }
    }

    static let manualGrantColumns = "grant_id, entitlement, starts_at, ends_at, revoked_at, reason, granted_by"

    static func manualGrant(_ row: SQLRow) -> ManualGrant {
        ManualGrant(id: row.int("grant_id") ?? 0, entitlement: row.string("entitlement") ?? "",
                    starts: row.date("starts_at") ?? .distantPast, ends: row.date("ends_at"),
                    revokedAt: row.date("revoked_at"), reason: row.string("reason") ?? "",
                    grantedBy: row.string("granted_by") ?? "")
    }

    static let manualRevocationColumns = "revocation_id, entitlement, revoked_at, revoked_by, reason"

    static func manualRevocation(_ row: SQLRow) -> ManualRevocation {
        ManualRevocation(id: row.int("revocation_id") ?? 0, entitlement: row.string("entitlement") ?? "",
                         at: row.date("revoked_at") ?? .distantPast, reason: row.string("reason") ?? "",
                         by: row.string("revoked_by") ?? "")
    }

    static let appPurchaseColumns = "original_app_version, original_purchase_date, environment"
    /// Receipts that count for the paid-to-free rule (the newest one decides).
    static let appPurchaseCondition = "verdict = 'valid' AND (original_app_version IS NOT NULL OR original_purchase_date IS NOT NULL)"

    static func appPurchaseFacts(_ row: SQLRow) -> AppPurchaseFacts {
        AppPurchaseFacts(originalAppVersion: row.string("original_app_version"),
                         originalPurchaseDate: row.date("original_purchase_date"),
                         environment: Environment(rawValue: row.string("environment") ?? "") ?? .unknown)
    }

    /// The customer's entitlements at `now`, computed by the core's pure function.
    public func entitlements(_ customerId: String, now: Date) throws -> [EntitlementState] {
        EntitlementCalculator.compute(try entitlementInput(customerId), configuration: configuration, now: now)
    }

    /// Recomputes the customer's entitlements and stores them, one row per source (inside the
    /// caller's transaction). Only rows whose content changed are written (see `EntitlementRowWriter`).
    @discardableResult
    func refreshEntitlements(_ customerId: String, now: Date) throws -> [EntitlementState] {
        let read = try refreshInput(customerId, now: now)
        let states = EntitlementCalculator.compute(read.input, configuration: configuration, now: now)
        try storeRefreshed(read, rows: Self.rows(of: states))
        return states
    }

    /// `refreshEntitlements` of each of `customers` in turn (a batch's), with the same reads and
    /// writes in the same order, but the calculations in between (pure, and a quarter of a batch
    /// import's writing thread on SQLite) worked out side by side on the machine's cores. No
    /// customer's input depends on another's rows.
    func refreshEntitlements(_ customers: [String]) throws {
        var pending: [RefreshInput] = []
        pending.reserveCapacity(customers.count)
        for customer in customers { pending.append(try refreshInput(customer, now: clock())) }
        let calculated = Self.entitlementRows(pending.map { ($0.input, $0.now) }, configuration: configuration)
        for (read, rows) in zip(pending, calculated) { try storeRefreshed(read, rows: rows) }
    }

    /// What a refresh of one customer starts from: its input and, when the cache knew them, its
    /// stored rows.
    struct RefreshInput {
        let customer: String
        let now: Date
        let input: EntitlementInput
        let stored: [EntitlementRow]?
    }

    /// Locks the customer where a refresh must (PostgreSQL, outside a batch that locked it at its
    /// start: a concurrent recomputation would duplicate rows) and reads its input, from the
    /// entitlement cache when it knows the customer.
    private func refreshInput(_ customer: String, now: Date) throws -> RefreshInput {
        if importSnapshot?.hasCustomer(customer) != true { try database.lockCustomer(customer) }
        let known = entitlementCache?.entry(customer)
        if known != nil { entitlementCacheHits += 1 }
        return RefreshInput(customer: customer, now: now, input: try known?.input ?? entitlementInput(customer), stored: known?.rows)
    }

    /// Writes the rows that changed and keeps what was read and written in the cache.
    private func storeRefreshed(_ read: RefreshInput, rows: [EntitlementRow]) throws {
        let writer = EntitlementRowWriter(database: database, customerId: read.customer, now: read.now)
        try writer.write(rows, stored: read.stored ?? writer.storedRows())
        entitlementCache?.store(read.customer, input: read.input, rows: rows)
    }

    /// One row per source of `states`.
    static func rows(of states: [EntitlementState]) -> [EntitlementRow] {
        states.flatMap { state in state.sources.map { EntitlementRow(state, $0) } }
    }

    /// The rows of each (input, now), calculated on as many threads as the machine has cores
    /// (each result written by one thread, read once all are done).
    static func entitlementRows(_ work: [(EntitlementInput, Date)], configuration: StoreConfiguration) -> [[EntitlementRow]] {
        let calculate = { @Sendable (item: (EntitlementInput, Date)) -> [EntitlementRow] in
            rows(of: EntitlementCalculator.compute(item.0, configuration: configuration, now: item.1))
        }
        let workers = min(ProcessInfo.processInfo.activeProcessorCount, work.count, 8)
        guard workers > 1 else { return work.map(calculate) }
        let slots = RowSlots(count: work.count)
        // Each thread takes the next customer not yet taken: a thread that starts late (its core
        // busy with the import's decoding) leaves the work to the others instead of holding it up.
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while let index = slots.next() { slots.put(calculate(work[index]), at: index) }
        }
        return slots.taken()
    }
}

/// The rows of work spread over threads: slot `i` is taken (`next`) and written by one thread
/// only, and all are read after every thread is done (`DispatchQueue.concurrentPerform` returns then).
private final class RowSlots: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<[EntitlementRow]>
    private let count: Int
    private let taking = Atomic<Int>(0)

    init(count: Int) {
        self.count = count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: [], count: count)
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    /// The next slot to fill, nil once every slot is taken.
    func next() -> Int? {
        let index = taking.wrappingAdd(1, ordering: .relaxed).oldValue
        return index < count ? index : nil
    }

    func put(_ rows: [EntitlementRow], at index: Int) { slots[index] = rows }

    /// Every slot's rows, in order.
    func taken() -> [[EntitlementRow]] { Array(UnsafeBufferPointer(start: slots, count: count)) }
}
