import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// Writes the scale benchmark's SQLite database of exactly `transactions` transactions
/// (`ScaleCustomer` after `ScaleCustomer`, the last one cut short), through the product's
/// schema and its SQLite connection: prepared INSERTs in write transactions of about 50,000
/// transactions, synchronous off and a large page cache while building (the fastest bulk path
/// the schema allows: its indexes, the name search's FTS5 table and its triggers are all
/// maintained as rows arrive, as in a real database), the audit chain hashed as `AuditLog`
/// does. Built at `PATH.partial` and renamed into place, so an interrupted build leaves no
/// half-written database behind.
struct ScaleBuilder {
    /// Bump when the generated content changes, so a kept database is not reused.
    static let generatorVersion = "real1"
    static let now = LedgerBenchCases.now
    static let day: TimeInterval = 86_400

    let path: String
    let transactions: Int
    let progress: Bool

    private let database: SQLDatabase
    private var nextTransaction = ScaleCustomer.firstTransactionId
    private var written = 0
    private var nextOrder = 10_000_001
    private var seq: Int64 = 0
    private var previousHash = AuditLog.genesis
    private(set) var customers = 0

    /// Builds the database at `path` (which must not exist).
    static func build(_ path: String, transactions: Int, progress: Bool) throws {
        let partial = path + ".partial"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: partial + suffix) }  // an interrupted build's leftovers
        do {  // the connection closes at the end of this block, before the rename
            var builder = try ScaleBuilder(partial, transactions: transactions, progress: progress)
            try builder.fill()
            _ = try builder.database.query("PRAGMA wal_checkpoint(TRUNCATE)", [])
        }
        guard rename(partial, path) == 0 else {
            throw BenchmarkError.ledger("cannot move \(partial) to \(path): \(String(cString: strerror(errno)))")
        }
    }

    private init(_ path: String, transactions: Int, progress: Bool) throws {
        self.path = path
        self.transactions = transactions
        self.progress = progress
        database = try PurchaseDatabase.open(path)
        try database.execute("PRAGMA synchronous=OFF", [])
        try database.execute("PRAGMA cache_size=-524288", [])
    }

    private mutating func fill() throws {
        let clock = ContinuousClock()
        let start = clock.now
        var index = 0
        while written < transactions {
            let target = min(transactions, written + 50_000)
            var builder = self
            try database.writeTransaction {
                while builder.written < target {
                    try builder.insert(ScaleCustomer(index), limit: transactions - builder.written)
                    index += 1
                }
            }
            self = builder
            let seconds = LedgerBenchCases.seconds(clock.now - start)
            LedgerBenchCases.say(String(format: "scale: %d of %d transactions written (%d customers, %.0f s, %.0f transactions/s)",
                                        written, transactions, customers, seconds, Double(written) / max(seconds, 0.001)), progress)
        }
        _ = try database.writeTransaction {
            try database.execute("INSERT INTO audit_head (id, seq, hash) VALUES (1, ?, ?)", [.integer(seq), .text(previousHash)])
        }
    }

    /// One customer's rows: at most `limit` transactions of theirs.
    private mutating func insert(_ customer: ScaleCustomer, limit: Int) throws {
        customers += 1
        let joined = customer.joined
        try database.execute("INSERT INTO customers (customer_id, is_tester, created_at, updated_at, display_name, email) VALUES (?, ?, ?, ?, ?, ?)",
                             [.text(customer.id), .integer(customer.index % 500 == 0 ? 1 : 0), .date(joined), .date(joined),
                              customer.name.map(SQLValue.text) ?? .null, customer.email.map(SQLValue.text) ?? .null])
        if customer.name != nil {
            try audit(at: joined, action: "customer contact", target: "customer:\(customer.id)", details: "{\"fields\":[\"display_name\",\"email\"]}")
        }
        let sandbox = customer.index % 33 == 5
        let environment = sandbox ? "Sandbox" : "Production"
        var left = limit
        var receiptId: Int64 = 0
        var inReceipt = 0
        var entitlements: [String: (transaction: String, ends: Date?, units: Int64)] = [:]
        for (number, purchase) in customer.purchases.enumerated() where left > 0 {
            let started = joined.addingTimeInterval(Double(number) * 3 * Self.day + 3_600)
            let (product, type, period, price): (String, String, TimeInterval, Int64) = switch purchase.kind {
            case .monthly: ("com.example.pro.monthly", ProductType.autoRenewable.rawValue, 30 * Self.day, 4_990)
            case .yearly: ("com.example.pro.yearly", ProductType.autoRenewable.rawValue, 365 * Self.day, 39_990)
            case .consumable: ("com.example.coins.100", ProductType.consumable.rawValue, 0, 990)
            case .lifetime: ("com.example.pro.lifetime", ProductType.nonConsumable.rawValue, 0, 79_990)
            }
            var order: String?
            let original = String(nextTransaction)
            if purchase.hasOrder {
                order = "ORD-\(nextOrder)"
                nextOrder += 1
                try database.execute("""
                    INSERT INTO orders (order_id, customer_id, product_id, created_at, status, transaction_id) VALUES (?, ?, ?, ?, 'paid', ?)
                    """, [.text(order ?? ""), .text(customer.id), .text(product), .date(started.addingTimeInterval(-60)), .text(original)])
            }
            var expires: Date?
            for renewal in 0..<min(purchase.transactionCount, left) {
                if inReceipt == 0 || inReceipt >= 2 {
                    receiptId = try receipt(customer, at: started.addingTimeInterval(Double(renewal) * period + 120), environment: environment)
                    inReceipt = 0
                }
                inReceipt += 1
                let id = String(nextTransaction)
                nextTransaction += 1
                let bought = started.addingTimeInterval(Double(renewal) * period)
                expires = period > 0 ? bought.addingTimeInterval(period) : nil
                let bound = renewal == 0 ? order : nil
                try database.execute("""
                    INSERT INTO transactions (transaction_id, original_transaction_id, product_id, product_type, customer_id, order_id,
                                              binding, environment, purchase_date, expires_date, quantity, web_order_line_item_id,
                                              first_receipt_id, recorded_at, ownership_type, price, currency)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, 'PURCHASED', ?, ?)
                    """, [.text(id), .text(period > 0 ? original : id), .text(product), .text(type), .text(customer.id), bound.map(SQLValue.text) ?? .null,
                          .text(bound == nil ? "unbound" : "single-pending-order"), .text(environment), .date(bought), .date(expires),
                          period > 0 ? .text(String(nextTransaction + 1_000_000_000)) : .null, .integer(receiptId), .date(bought.addingTimeInterval(90)),
                          .integer(price * 1_000), .text(customer.index % 4 == 1 ? "EUR" : "USD")])
                written += 1
                left -= 1
            }
            switch purchase.kind {
            case .monthly, .yearly:
                try subscriptionState(purchase, customer: customer.id, original: original, product: product, expires: expires, environment: environment)
                if [1, 3, 4].contains(purchase.status) { entitlements["pro"] = (original, expires, 0) }
            case .lifetime: entitlements["pro"] = (original, nil, 0)
            case .consumable:
                let units = (entitlements["coins"]?.units ?? 0) + 100
                entitlements["coins"] = (original, nil, units)
            }
        }
        if customer.failedOrder {
            try database.execute("""
                INSERT INTO orders (order_id, customer_id, product_id, created_at, status, failure_reason, failed_at)
                VALUES (?, ?, 'com.example.coins.100', ?, 'failed', 'payment declined', ?)
                """, [.text("ORD-\(nextOrder)"), .text(customer.id), .date(joined.addingTimeInterval(600)), .date(joined.addingTimeInterval(660))])
            nextOrder += 1
        }
        for (entitlement, source) in entitlements.sorted(by: { $0.key < $1.key }) {
            try database.execute("""
                INSERT INTO entitlements (customer_id, entitlement, source, transaction_id, starts_at, ends_at, units, active, revoked, reason, flags, computed_at)
                VALUES (?, ?, 'purchase', ?, ?, ?, ?, 1, 0, ?, '', ?)
                """, [.text(customer.id), .text(entitlement), .text(source.transaction), .date(joined), .date(source.ends),
                      source.units > 0 ? .integer(source.units) : .null, .text("via \(source.transaction)"), .date(Self.now)])
        }
    }

    /// A receipt row (its raw bytes the size of a unified receipt of a few purchases) and its audit entry.
    private mutating func receipt(_ customer: ScaleCustomer, at date: Date, environment: String) throws -> Int64 {
        var random = SplitMix64(seed: UInt64(written) &* 0x2545_F491_4F6C_DD1D)
        let size = 1_400 + Int(random.next() % 800)
        var raw = [UInt8](repeating: 0, count: size)
        for offset in stride(from: 0, to: size, by: 8) {
            withUnsafeBytes(of: random.next()) { word in
                for (shift, byte) in word.enumerated() where offset + shift < size { raw[offset + shift] = byte }
            }
        }
        let json = "{\"format\":\"unified\",\"bundle_id\":\"com.example.app\",\"application_version\":\"212\",\"receipt_type\":\"\(environment == "Sandbox" ? "ProductionSandbox" : "Production")\",\"original_application_version\":\"87\",\"customer\":\"\(customer.id)\"}"
        let id = try database.queryFirst("""
            INSERT INTO receipts (sha256, raw, format, environment, verdict, verdict_reason, decoded_json, bundle_id,
                                  original_app_version, original_purchase_date, source, customer_id, imported_at, imported_by)
            VALUES (?, ?, 'unified', ?, 'valid', 'signature verified', ?, 'com.example.app', '87', ?, 'app', ?, ?, 'bench')
            RETURNING receipt_id
            """, [.text(DigestAlgorithm.sha256.hash(raw).hexString), .blob(raw), .text(environment), .text(json), .date(customer.joined),
                  .text(customer.id), .date(date)])?.int("receipt_id")
        guard let id else { throw BenchmarkError.ledger("storing a generated receipt returned no id") }
        try audit(at: date, action: "import", target: "customer:\(customer.id)", details: "{\"receipt\":\(id),\"source\":\"app\",\"verdict\":\"valid\"}")
        return id
    }

    /// Apple's last word on a subscription.
    private mutating func subscriptionState(_ purchase: ScaleCustomer.Purchase, customer: String, original: String, product: String,
                                            expires: Date?, environment: String) throws {
        let signed = expires?.addingTimeInterval(-Self.day) ?? Self.now
        try database.execute("""
            INSERT INTO subscription_states (original_transaction_id, customer_id, environment, subscription_group, product_id, status, auto_renew,
                                             auto_renew_product_id, expiration_intent, expires_date, in_billing_retry, grace_period_expires_date,
                                             revocation_date, refund_count, last_event, source, signed_date, updated_at)
            VALUES (?, ?, ?, '21000001', ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, 'notification', ?, ?)
            """, [.text(original), .text(customer), .text(environment), .text(product), .integer(Int64(purchase.status)),
                  .integer(purchase.status == 1 || purchase.status >= 3 ? 1 : 0), .text(product),
                  purchase.status == 2 ? .integer(1) : .null, .date(expires), .integer(purchase.status == 3 || purchase.status == 4 ? 1 : 0),
                  purchase.status == 4 ? .date(expires?.addingTimeInterval(16 * Self.day)) : .null,
                  purchase.status == 5 ? .date(signed) : .null, .text(["", "DID_RENEW", "EXPIRED", "DID_FAIL_TO_RENEW", "DID_FAIL_TO_RENEW", "REVOKE"][purchase.status]),
                  .date(signed), .date(signed)])
    }

    /// An audit entry chained to the one before, hashed as `AuditLog` hashes it.
    private mutating func audit(at date: Date, action: String, target: String, details: String) throws {
        seq += 1
        let at = StoreDates.format(date)
        let hash = AuditLog.hash(seq: seq, at: at, operatorName: "bench", action: action, target: target, details: details,
                                 previousHash: previousHash, databaseUser: "bench")
        try database.execute("""
            INSERT INTO audit_log (seq, at, operator, action, target, details, prev_hash, hash, db_user) VALUES (?, ?, 'bench', ?, ?, ?, ?, ?, 'bench')
            """, [.integer(seq), .text(at), .text(action), .text(target), .text(details), .text(previousHash), .text(hash)])
        previousHash = hash
    }
}
