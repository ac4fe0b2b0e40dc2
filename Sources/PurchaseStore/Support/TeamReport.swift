import Foundation
import ReceiptCore

/// The team lead's overview of a period (this ISO week or this calendar month, UTC, up to now):
/// what arrived, what was refunded and why, what Apple revoked, conflicts opened and resolved,
/// sandbox receipts that reached production, grants and revokes by operator, and the active
/// subscriptions by product; the counted figures also per day, for sparklines. One read of the
/// ledger; nothing is written.
public struct TeamReport: Sendable {
    /// Which period: the week starts on Monday 00:00 UTC, the month on the 1st.
    public enum Period: String, Sendable, CaseIterable {
        case week, month

        /// The period's first instant for `now`.
        public func start(_ now: Date) -> Date {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
            let day = calendar.startOfDay(for: now)
            switch self {
            case .week:
                let weekday = calendar.component(.weekday, from: day)  // 1 is Sunday
                return calendar.date(byAdding: .day, value: -((weekday + 5) % 7), to: day) ?? day
            case .month:
                return calendar.date(from: calendar.dateComponents([.year, .month], from: day)) ?? day
            }
        }
    }

    /// A figure counted over the period and per day (`perDay` lines up with `days`).
    public struct Series: Sendable, Equatable {
        public let total: Int64
        public let perDay: [Int64]

        public init(total: Int64, perDay: [Int64]) {
            self.total = total
            self.perDay = perDay
        }
    }

    public let period: Period
    public let start: Date
    public let end: Date
    /// The period's days, "YYYY-MM-DD" (UTC), first to today.
    public let days: [String]
    /// Transactions recorded for the first time.
    public let arrivals: Series
    /// Transactions Apple refunded (revoked or cancelled, not for an upgrade or family sharing).
    public let refunds: Series
    /// The refunds by what Apple said of them ("full refund", "prorated refund 25%", …), most first.
    public let refundReasons: [(reason: String, count: Int64)]
    /// Transactions Apple took back without a refund (family sharing withdrawn).
    public let revocations: Series
    public let conflictsOpened: Series
    public let conflictsResolved: Series
    /// Conflicts open now, whenever they were opened.
    public let conflictsOpenNow: Int64
    /// Sandbox receipts imported for customers who are not sandbox testers.
    public let sandboxOnProduction: Series
    /// Manual grants and revokes (audit entries `grant`, `revoke`) by operator, most active first.
    public let byOperator: [(operatorName: String, grants: Int64, revokes: Int64)]
    public let grants: Series
    /// Production subscriptions not expired or refunded at `end`, by product (one per original transaction).
    public let activeSubscriptions: [(productId: String, count: Int64)]
}

extension PurchaseLedger {
    /// The team's overview of `period` ending at `now` (a read only).
    public func teamReport(_ period: TeamReport.Period, now: Date) throws -> TeamReport {
        let start = period.start(now)
        var days: [String] = []
        var day = start
        while day <= now && days.count < 32 {
            days.append(String(StoreDates.format(day).prefix(10)))
            day = day.addingTimeInterval(86_400)
        }
        let range: [SQLValue] = [.date(start), .date(now)]
        func series(_ column: String, _ from: String, _ condition: String = "1 = 1", _ extra: [SQLValue] = []) throws -> TeamReport.Series {
            let rows = try database.query("""
                SELECT substr(\(column), 1, 10) AS day, count(*) AS n FROM \(from)
                WHERE \(column) >= ? AND \(column) <= ? AND \(condition) GROUP BY substr(\(column), 1, 10)
                """, range + extra)
            var counts: [String: Int64] = [:]
            for row in rows { counts[row.string("day") ?? ""] = row.int("n") ?? 0 }
            let perDay = days.map { counts[$0] ?? 0 }
            return TeamReport.Series(total: perDay.reduce(0, +), perDay: perDay)
        }
        let ended = "coalesce(revocation_date, cancellation_date)"
        let refundCondition = "coalesce(is_upgraded, 0) = 0 AND coalesce(revocation_type, '') <> 'FAMILY_REVOKE'"
        let refunds = try series(ended, "transactions", refundCondition)
        let reasonRows = try database.query("""
            SELECT revocation_type, revocation_percentage, count(*) AS n FROM transactions
            WHERE \(ended) >= ? AND \(ended) <= ? AND \(refundCondition) GROUP BY revocation_type, revocation_percentage
            """, range)
        var reasons: [String: Int64] = [:]
        for row in reasonRows {
            let words = RevocationType.describe(raw: row.string("revocation_type"), percentage: row.int("revocation_percentage")) ?? "refund (Apple gave no type)"
            reasons[words, default: 0] += row.int("n") ?? 0
        }
        let operatorRows = try database.query("""
            SELECT operator, action, count(*) AS n FROM audit_log WHERE at >= ? AND at <= ? AND action IN ('grant', 'revoke')
            GROUP BY operator, action
            """, range)
        var byOperator: [String: (Int64, Int64)] = [:]
        for row in operatorRows {
            let name = row.string("operator") ?? "?"
            let n = row.int("n") ?? 0
            if row.string("action") == "grant" { byOperator[name, default: (0, 0)].0 += n } else { byOperator[name, default: (0, 0)].1 += n }
        }
        let active = try database.query("""
            SELECT product_id, count(DISTINCT coalesce(original_transaction_id, transaction_id)) AS n FROM transactions
            WHERE product_type = 'auto-renewable' AND lower(environment) = 'production' AND expires_date > ?
              AND revocation_date IS NULL AND cancellation_date IS NULL
            GROUP BY product_id
            """, [.date(now)]).map { (productId: $0.string("product_id") ?? "?", count: $0.int("n") ?? 0) }
        return TeamReport(
            period: period, start: start, end: now, days: days,
            arrivals: try series("recorded_at", "transactions"),
            refunds: refunds,
            refundReasons: reasons.map { (reason: $0.key, count: $0.value) }.sorted { ($0.count, $1.reason) > ($1.count, $0.reason) },
            revocations: try series(ended, "transactions", "revocation_type = 'FAMILY_REVOKE'"),
            conflictsOpened: try series("opened_at", "conflicts"),
            conflictsResolved: try series("resolved_at", "conflicts"),
            conflictsOpenNow: try database.queryFirst("SELECT count(*) AS n FROM conflicts WHERE status = 'open'", [])?.int("n") ?? 0,
            sandboxOnProduction: try series("imported_at", "receipts", """
                lower(environment) = 'sandbox' AND NOT EXISTS (SELECT 1 FROM customers c WHERE c.customer_id = receipts.customer_id AND c.is_tester = 1)
                """),
            byOperator: byOperator.map { (operatorName: $0.key, grants: $0.value.0, revokes: $0.value.1) }
                .sorted { ($0.grants + $0.revokes, $1.operatorName) > ($1.grants + $1.revokes, $0.operatorName) },
            grants: try series("at", "audit_log", "action = 'grant'"),
            activeSubscriptions: active.sorted { ($0.count, $1.productId) > ($1.count, $0.productId) })
    }
}
