import Foundation
import ReceiptCore

/// The lists the console pages through, one per tab.
public enum BrowseTable: String, Sendable, CaseIterable {
    case customers, orders, transactions, receipts, conflicts, audit

    /// The tab's title.
    public var title: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }

    /// What the list holds, in words ("audit entries").
    public var rows: String { self == .audit ? "audit entries" : rawValue }

    /// Whether the list shows the newest row first (the audit log); every other list is oldest first.
    public var newestFirst: Bool { self == .audit }
}

/// A customer in the list, with what the row shows beside the id.
public struct CustomerListRow: Sendable, Equatable {
    public let customerId: String
    public let isTester: Bool
    /// Transactions owned, counted up to `BrowseLimits.countCap` (`transactionCountCapped` says when it stopped).
    public let transactionCount: Int
    public let transactionCountCapped: Bool
    /// Entitlements held now (from the stored entitlement rows), sorted.
    public let activeEntitlements: [String]
    /// The environments of their transactions and receipts (stored names), sorted.
    public let environments: [String]
    /// When the customer was first recorded.
    public var createdAt: Date?
    /// Whether Apple reported another environment than a receipt of theirs states.
    public let environmentMismatch: Bool
    /// Open conflicts they are part of.
    public let openConflicts: Int
    /// The name and email the merchant gave them (`customer add --name --email`), if any.
    public var displayName: String?
    public var email: String?
    /// Why a search found them when it was through a related id (a transaction, an order, a
    /// token…), not their own id, name or email; nil otherwise or without a search.
    public var matchedVia: SearchReason?

    public init(customerId: String, isTester: Bool, transactionCount: Int, transactionCountCapped: Bool, activeEntitlements: [String],
                environments: [String], environmentMismatch: Bool, openConflicts: Int, displayName: String? = nil, email: String? = nil, createdAt: Date? = nil) {
        self.displayName = displayName
        self.createdAt = createdAt
        self.email = email
        self.customerId = customerId
        self.isTester = isTester
        self.transactionCount = transactionCount
        self.transactionCountCapped = transactionCountCapped
        self.activeEntitlements = activeEntitlements
        self.environments = environments
        self.environmentMismatch = environmentMismatch
        self.openConflicts = openConflicts
    }
}

/// A receipt in the list: the stored record and the environment Apple reported, if re-verified.
public struct ReceiptListRow: Sendable, Equatable {
    public let record: ReceiptRecord
    /// The environment Apple's last answer named (stored name), nil before any re-verification.
    public let appleEnvironment: String?
    /// When it was last re-verified.
    public let lastVerifiedAt: Date?

    /// Whether Apple's environment differs from the receipt's.
    public var environmentMismatch: Bool {
        guard let appleEnvironment, appleEnvironment != "Unknown", record.environment != "Unknown" else { return false }
        return appleEnvironment != record.environment
    }
}

/// A transaction in the list, and whether another customer claims it.
public struct TransactionListRow: Sendable, Equatable {
    public let record: TransactionRecord
    public let inOpenConflict: Bool
}

/// One row of a list. `key` is the row's primary key (`BrowseKey`): lists are ordered by it and
/// paged by it.
public enum BrowseRow: Sendable, Equatable {
    case customer(BrowseKey, CustomerListRow)
    case order(BrowseKey, OrderRecord)
    case transaction(BrowseKey, TransactionListRow)
    case receipt(BrowseKey, ReceiptListRow)
    case conflict(BrowseKey, ConflictRecord)
    case audit(BrowseKey, AuditEntry)

    /// The key the list is ordered and paged by.
    public var key: BrowseKey {
        switch self {
        case .customer(let key, _), .order(let key, _), .transaction(let key, _), .receipt(let key, _),
             .conflict(let key, _), .audit(let key, _):
            return key
        }
    }

    /// The customer the row belongs to, when it belongs to one.
    public var customerId: String? {
        switch self {
        case .customer(_, let row): return row.customerId
        case .order(_, let order): return order.customerId
        case .transaction(_, let row): return row.record.customerId
        case .receipt(_, let row): return row.record.customerId
        case .conflict(_, let conflict): return conflict.claimantCustomerId
        case .audit(_, let entry):
            return entry.target.hasPrefix("customer:") ? String(entry.target.dropFirst("customer:".count)) : nil
        }
    }
}

/// Where a page starts, in the list's display order.
public enum PageCursor: Sendable, Equatable {
    /// The start of the list.
    case first
    /// The end of the list (the page ends with the last row).
    case last
    /// Rows after this key.
    case after(BrowseKey)
    /// Rows before this key (the page ends just before it).
    case before(BrowseKey)
    /// This key and the rows after it.
    case from(BrowseKey)
}

/// One page of a list, in display order.
public struct BrowsePage: Sendable, Equatable {
    public let rows: [BrowseRow]
    /// True when the page stopped because the limit was reached (there may be more beyond it).
    public let isFull: Bool
    /// A filter on an unindexed property (`env:`, `verdict:`, `status:paid` …) scans the table in
    /// key order, at most `BrowseLimits.scanBudget` keys per page; when it stopped early this
    /// is the last key it examined (continue with `.after(scannedThrough)`), else nil.
    public let scannedThrough: BrowseKey?
    /// Filter words this list does not apply (`verdict:` on the orders list), for the console to say so.
    public let ignored: [String]
    /// The order the rows are in (nil: the list's own, by its key).
    public let sort: BrowseSort?
    /// Why the page is in key order rather than the sort asked for (a broad search), if it is.
    public let sortNote: String?

    public init(rows: [BrowseRow], isFull: Bool, scannedThrough: BrowseKey? = nil, ignored: [String] = [], sort: BrowseSort? = nil,
                sortNote: String? = nil) {
        self.rows = rows
        self.isFull = isFull
        self.scannedThrough = scannedThrough
        self.ignored = ignored
        self.sort = sort
        self.sortNote = sortNote
    }
}

/// The bounds that keep every list query small.
public enum BrowseLimits {
    /// Per-row counts stop here ("999+").
    public static let countCap = 999
    /// Keys examined per page by a filter that has no index to use: about 50 ms of work on a
    /// million transactions (wide rows and customers, who each check their transactions, cost more).
    public static func scanBudget(_ table: BrowseTable) -> Int64 {
        switch table {
        case .customers: return 10_000
        case .transactions: return 20_000
        default: return 50_000
        }
    }
    /// Keys examined per statement of such a scan.
    public static let scanChunk: Int64 = 5_000
    /// PostgreSQL lists up to this many rows are counted exactly; beyond, estimated.
    public static let exactCount: Int64 = 100_000
    /// Search results are counted up to this many ("1,000+" beyond).
    public static let matchCountCap: Int64 = 1_000
    /// A lookup is broad (walked rather than sorted) only past this many matches: sorting them
    /// costs a few milliseconds per ten thousand, where a walk in key order finds nothing for long
    /// when the matches sit together far from the list's start (a prefix of the key: `cust-2`
    /// behind 49,000 customers whose ids sort first showed an empty first page).
    public static let sortCap: Int64 = 25_000
    /// The largest page.
    public static let maxPage = 500
}
