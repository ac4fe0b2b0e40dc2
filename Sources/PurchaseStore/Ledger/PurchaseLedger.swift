import Foundation
import ReceiptCore

/// The only way the purchase database changes. Every operation is one write transaction: the
/// change, the recomputed entitlements and the audit entry land together or not at all, and an
/// operation repeated changes nothing the second time.
public final class PurchaseLedger {
    public let database: SQLDatabase
    public let configuration: StoreConfiguration
    public let verifier: ReceiptVerifier
    /// The ledger's clock, injected so tests can fix time; the core itself never reads one. Every
    /// reading is truncated to the millisecond (the precision dates are stored with), so one
    /// change stores, audits and refreshes at the very instant it read, and never at a stored
    /// instant rounded past it.
    let clock: () -> Date
    /// Set while `importStream` applies a batch on SQLite, and during each PostgreSQL batch (see
    /// `EntitlementCache`); nil otherwise, so that no other change reads it.
    var entitlementCache: EntitlementCache?
    /// Set during a PostgreSQL batch import: what its imports read, read ahead (see `ImportSnapshot`).
    var importSnapshot: ImportSnapshot?
    /// Refreshes that `entitlementCache` spared a read (for tests).
    var entitlementCacheHits = 0
    /// Whether `importStream` on PostgreSQL may write with a second session (`ImportLanes`);
    /// off to compare with one session.
    var importsOnTwoSessions = true
    /// The sessions the last `importStream` wrote with (for tests).
    var lastImportSessions = 0
    /// How many batches of the last `importStream` its two sessions wrote before it went on with
    /// one (all of them, unless another import of the ledger began meanwhile; for tests).
    var lastImportBatchesOnTwoSessions = 0
    /// How many transactions and rows `entitlementCache` may hold.
    var entitlementCacheBudget = 100_000
    /// Called on the writing thread after each artefact of an import is written, inside the still
    /// open write transaction, with the artefact's position in the import. Crash tests stop a
    /// process there, at a known point (`receiptdesk import` sets it from RECEIPTDESK_TEST_HOLD_*);
    /// nil otherwise.
    public var importItemWritten: ((Int) -> Void)?
    /// Where imports and notifications learn whether their signing chain was revoked (the
    /// config's `appStore.revocation`); nil: not checked, and the stored verdict says "off".
    public var revocation: (any RevocationSource)?

    public init(database: SQLDatabase, configuration: StoreConfiguration, verifier: ReceiptVerifier,
                clock: @escaping () -> Date = Date.init) {
        self.database = database
        self.configuration = configuration
        self.verifier = verifier
        self.clock = { RFC3339.truncatedToMilliseconds(clock()) }
    }

    // MARK: shared steps

    /// Creates the customer row when missing.
    func ensureCustomer(_ customerId: String, now: Date) throws {
        try Validate.identifier(customerId, "customer id")
        if let snapshot = importSnapshot {
            guard !snapshot.hasCustomer(customerId) else { return }  // locked by the batch at its start, or created by it
            // No ON CONFLICT: if another writer created the customer after the batch read ahead,
            // this fails and the batch runs again, instead of going on with what it read.
            try database.executeLater("INSERT INTO customers (customer_id, is_tester, created_at, updated_at) VALUES (?, 0, ?, ?)",
                                      [.text(customerId), .date(now), .date(now)])
            snapshot.createdCustomer(customerId)
            return
        }
        try database.execute("""
            INSERT INTO customers (customer_id, is_tester, created_at, updated_at) VALUES (?, 0, ?, ?)
            ON CONFLICT (customer_id) DO NOTHING
            """, [.text(customerId), .date(now), .date(now)])
        try database.lockCustomer(customerId)  // PostgreSQL: one change per customer at a time
    }

    /// Fails with `notFound` unless the customer exists.
    func requireCustomer(_ customerId: String) throws {
        guard try customerExists(customerId) else {
            throw StoreError(.notFound, "customer \(customerId) not found: import a receipt for them or add them with `receiptdesk customer add \(customerId)`")
        }
    }

    /// Adds a customer (optionally a sandbox tester, with a name and email); repeating it changes nothing.
    @discardableResult
    public func addCustomer(_ customerId: String, isTester: Bool, contact: CustomerContact = CustomerContact(),
                            operatorName: String) throws -> Bool {
        let now = clock()
        try contact.validate()
        return try database.writeTransaction {
            try Validate.identifier(customerId, "customer id")
            let existing = try database.queryFirst("SELECT is_tester FROM customers WHERE customer_id = ?", [.text(customerId)])
            if let existing, existing.bool("is_tester") == isTester {
                return try applyContact(customerId, contact, now: now, operatorName: operatorName)
            }
            if existing == nil {
                try database.execute("INSERT INTO customers (customer_id, is_tester, created_at, updated_at) VALUES (?, ?, ?, ?)",
                                     [.text(customerId), .bool(isTester), .date(now), .date(now)])
            } else {
                try database.execute("UPDATE customers SET is_tester = ?, updated_at = ?, version = version + 1 WHERE customer_id = ?",
                                     [.bool(isTester), .date(now), .text(customerId)])
            }
            try refreshEntitlements(customerId, now: now)
            try audit(now, operatorName, existing == nil ? "customer-add" : "customer-tester", "customer:\(customerId)",
                      .object([("tester", .bool(isTester))]))
            _ = try applyContact(customerId, contact, now: now, operatorName: operatorName)
            return true
        }
    }

    func audit(_ now: Date, _ operatorName: String, _ action: String, _ target: String, _ details: JSONValue) throws {
        try Validate.operatorName(operatorName)  // no entry, and so no change, without a proper operator
        try AuditLog.appendAtCommit(database, at: now, operatorName: operatorName, action: action, target: target, details: details)
    }
}

/// Checks on what operators and callers pass in.
public enum Validate {
    /// Names receiptdesk itself writes into the audit log for changes no operator made (Apple's
    /// notifications, grants that ran out): an operator may not take them.
    public static let reservedOperatorNames: Set<String> = ["apple", "system"]

    /// Refuses what the ledger would refuse as an id, before anything is opened or created.
    public static func checkIdentifier(_ value: String, _ what: String) throws { try identifier(value, what) }

    /// Refuses an operator name a person may not use: empty, unsafe characters, or reserved.
    public static func checkOperatorGiven(_ value: String) throws {
        try operatorName(value)
        guard !reservedOperatorNames.contains(value.lowercased()) else {
            throw StoreError(.invalidInput, "operator '\(value)' is reserved for changes receiptdesk records on its own (\(reservedOperatorNames.sorted().joined(separator: ", "))): give your own name with --operator")
        }
    }

    /// Ids (customer, order, entitlement, operator): not blank, at most 256 bytes, and free of
    /// control, bidirectional and zero-width characters, which would change a terminal that
    /// shows them or make two ids look the same.
    static func identifier(_ value: String, _ what: String) throws {
        guard hasNonBlank(value) else {
            throw StoreError(.invalidInput, "\(what) is empty")
        }
        if let (position, scalar) = UnsafeText.firstUnsafe(value) {
            throw StoreError(.invalidInput, "\(what) '\(UnsafeText.escaped(String(value.prefix(40)), keeping: []))' holds \(UnsafeText.describe(scalar)) at character \(position): ids may not contain control, bidirectional or zero-width characters")
        }
        guard value.utf8.count <= 256 else {
            throw StoreError(.invalidInput, "\(what) '\(value.prefix(40))…' is longer than 256 bytes")
        }
    }

    /// Refuses a reason the ledger would refuse, before anything is written (previews).
    public static func checkReason(_ value: String) throws { try reason(value) }

    static func reason(_ value: String) throws {
        guard !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw StoreError(.invalidInput, "a reason is required for every manual change (--reason TEXT)")
        }
        guard value.utf8.count <= 2000 else { throw StoreError(.invalidInput, "the reason is longer than 2000 bytes") }
    }

    static func operatorName(_ value: String) throws {
        guard hasNonBlank(value) else {
            throw StoreError(.invalidInput, "an operator is required (--operator NAME)")
        }
        try identifier(value, "operator")
    }

    /// Whether `value` has a character outside `CharacterSet.whitespaces` (what trimming those
    /// would leave), without bridging to Foundation for the usual ASCII text.
    private static func hasNonBlank(_ value: String) -> Bool {
        value.unicodeScalars.contains { scalar in
            scalar.isASCII ? scalar != " " && scalar != "\t" : !CharacterSet.whitespaces.contains(scalar)
        }
    }
}
