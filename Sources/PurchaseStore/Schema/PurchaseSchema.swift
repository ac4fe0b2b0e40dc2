/// The purchase database's schema, as migrations. Dates are RFC 3339 UTC text (see `StoreDates`);
/// every lookup the console and the ledger make (customer, transaction id, original transaction id,
/// order id, product) has an index.
public enum PurchaseSchema {
    public static let migrations: [Migration] = [
        Migration("0001-purchase-ledger") { dialect in
            let id = dialect.autoIncrementPrimaryKey
            let int = dialect.integerType
            return [
                """
                CREATE TABLE customers (
                    customer_id TEXT PRIMARY KEY,
                    is_tester \(int) NOT NULL DEFAULT 0,
                    created_at TEXT NOT NULL,
                    updated_at TEXT NOT NULL,
                    version \(int) NOT NULL DEFAULT 1)
                """,
                """
                CREATE TABLE orders (
                    order_id TEXT PRIMARY KEY,
                    customer_id TEXT NOT NULL REFERENCES customers(customer_id),
                    product_id TEXT NOT NULL,
                    app_account_token TEXT,
                    created_at TEXT NOT NULL,
                    status TEXT NOT NULL CHECK (status IN ('pending', 'paid', 'failed', 'refunded')),
                    transaction_id TEXT,
                    failure_reason TEXT,
                    failed_at TEXT,
                    version \(int) NOT NULL DEFAULT 1)
                """,
                "CREATE INDEX orders_by_customer ON orders(customer_id, created_at)",
                "CREATE INDEX orders_by_product ON orders(product_id)",
                "CREATE INDEX orders_by_token ON orders(app_account_token)",
                """
                CREATE TABLE receipts (
                    receipt_id \(id),
                    sha256 TEXT NOT NULL UNIQUE,
                    raw \(dialect.blobType) NOT NULL,
                    format TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    verdict TEXT NOT NULL,
                    verdict_reason TEXT NOT NULL,
                    decoded_json TEXT NOT NULL,
                    bundle_id TEXT,
                    original_app_version TEXT,
                    original_purchase_date TEXT,
                    source TEXT NOT NULL,
                    customer_id TEXT REFERENCES customers(customer_id),
                    imported_at TEXT NOT NULL,
                    imported_by TEXT NOT NULL)
                """,
                "CREATE INDEX receipts_by_customer ON receipts(customer_id, receipt_id)",
                """
                CREATE TABLE transactions (
                    transaction_id TEXT PRIMARY KEY,
                    original_transaction_id TEXT,
                    product_id TEXT NOT NULL,
                    product_type TEXT,
                    customer_id TEXT NOT NULL REFERENCES customers(customer_id),
                    order_id TEXT REFERENCES orders(order_id),
                    binding TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    purchase_date TEXT,
                    expires_date TEXT,
                    revocation_date TEXT,
                    cancellation_date TEXT,
                    quantity \(int) NOT NULL,
                    app_account_token TEXT,
                    web_order_line_item_id TEXT,
                    first_receipt_id \(int) NOT NULL REFERENCES receipts(receipt_id),
                    recorded_at TEXT NOT NULL,
                    version \(int) NOT NULL DEFAULT 1)
                """,
                "CREATE INDEX transactions_by_customer ON transactions(customer_id, purchase_date)",
                "CREATE INDEX transactions_by_original ON transactions(original_transaction_id)",
                "CREATE INDEX transactions_by_order ON transactions(order_id)",
                "CREATE INDEX transactions_by_product ON transactions(product_id)",
                "CREATE INDEX transactions_by_receipt ON transactions(first_receipt_id)",
                """
                CREATE TABLE conflicts (
                    conflict_id \(id),
                    transaction_id TEXT NOT NULL REFERENCES transactions(transaction_id),
                    owner_customer_id TEXT NOT NULL REFERENCES customers(customer_id),
                    claimant_customer_id TEXT NOT NULL REFERENCES customers(customer_id),
                    receipt_id \(int) REFERENCES receipts(receipt_id),
                    opened_at TEXT NOT NULL,
                    status TEXT NOT NULL CHECK (status IN ('open', 'resolved')),
                    resolved_owner TEXT,
                    resolved_at TEXT,
                    resolved_by TEXT,
                    resolution_reason TEXT,
                    UNIQUE (transaction_id, claimant_customer_id))
                """,
                "CREATE INDEX conflicts_by_status ON conflicts(status, conflict_id)",
                "CREATE INDEX conflicts_by_claimant ON conflicts(claimant_customer_id)",
                "CREATE INDEX conflicts_by_owner ON conflicts(owner_customer_id)",
                """
                CREATE TABLE grants (
                    grant_id \(id),
                    customer_id TEXT NOT NULL REFERENCES customers(customer_id),
                    entitlement TEXT NOT NULL,
                    starts_at TEXT NOT NULL,
                    ends_at TEXT,
                    reason TEXT NOT NULL,
                    granted_by TEXT NOT NULL,
                    granted_at TEXT NOT NULL,
                    revoked_at TEXT,
                    revoked_by TEXT,
                    revoke_reason TEXT)
                """,
                // At most one grant in force per customer and entitlement, whoever writes it.
                "CREATE UNIQUE INDEX grants_one_open ON grants(customer_id, entitlement) WHERE revoked_at IS NULL",
                "CREATE INDEX grants_by_customer ON grants(customer_id)",
                """
                CREATE TABLE revocations (
                    revocation_id \(id),
                    customer_id TEXT NOT NULL REFERENCES customers(customer_id),
                    entitlement TEXT NOT NULL,
                    revoked_at TEXT NOT NULL,
                    revoked_by TEXT NOT NULL,
                    reason TEXT NOT NULL)
                """,
                "CREATE INDEX revocations_by_customer ON revocations(customer_id)",
                """
                CREATE TABLE entitlements (
                    customer_id TEXT NOT NULL REFERENCES customers(customer_id),
                    entitlement TEXT NOT NULL,
                    source TEXT NOT NULL CHECK (source IN ('purchase', 'manual', 'legacy-paid')),
                    transaction_id TEXT,
                    grant_id \(int),
                    starts_at TEXT,
                    ends_at TEXT,
                    units \(int),
                    active \(int) NOT NULL,
                    revoked \(int) NOT NULL,
                    revoked_by TEXT,
                    reason TEXT NOT NULL,
                    flags TEXT NOT NULL,
                    computed_at TEXT NOT NULL)
                """,
                "CREATE INDEX entitlements_by_customer ON entitlements(customer_id, entitlement)",
                """
                CREATE TABLE verification_attempts (
                    attempt_id \(id),
                    receipt_id \(int) REFERENCES receipts(receipt_id),
                    transaction_id TEXT,
                    endpoint TEXT NOT NULL,
                    environment TEXT,
                    status TEXT,
                    http_status \(int),
                    retries \(int) NOT NULL DEFAULT 0,
                    latency_ms \(int),
                    outcome TEXT NOT NULL,
                    detail TEXT,
                    attempted_at TEXT NOT NULL,
                    operator TEXT NOT NULL)
                """,
                "CREATE INDEX attempts_by_receipt ON verification_attempts(receipt_id, attempt_id)",
                """
                CREATE TABLE audit_log (
                    seq \(int) PRIMARY KEY,
                    at TEXT NOT NULL,
                    operator TEXT NOT NULL,
                    action TEXT NOT NULL,
                    target TEXT NOT NULL,
                    details TEXT NOT NULL,
                    prev_hash TEXT NOT NULL,
                    hash TEXT NOT NULL)
                """,
                "CREATE INDEX audit_by_target ON audit_log(target, seq)",
                """
                CREATE TABLE audit_head (
                    id \(int) PRIMARY KEY CHECK (id = 1),
                    seq \(int) NOT NULL,
                    hash TEXT NOT NULL)
                """,
            ]
        },
        Migration("0002-apple-updates") { dialect in
            let int = dialect.integerType
            return [
                """
                CREATE TABLE notifications (
                    notification_uuid TEXT PRIMARY KEY,
                    notification_type TEXT NOT NULL,
                    subtype TEXT,
                    environment TEXT NOT NULL,
                    signed_date TEXT,
                    receipt_id \(int) REFERENCES receipts(receipt_id),
                    customer_id TEXT REFERENCES customers(customer_id),
                    outcome TEXT NOT NULL,
                    received_at TEXT NOT NULL)
                """,
                "ALTER TABLE transactions ADD COLUMN updated_by_apple_at TEXT",
                "ALTER TABLE receipts ADD COLUMN apple_environment TEXT",
                "ALTER TABLE receipts ADD COLUMN last_verified_at TEXT",
            ]
        },
        // Apple's last word on a receipt (valid / invalid) and, when it contradicts the local
        // verdict, the one line that says so (NULL otherwise).
        Migration("0003-apple-verdict") { _ in
            [
                "ALTER TABLE receipts ADD COLUMN apple_verdict TEXT",
                "ALTER TABLE receipts ADD COLUMN apple_contradiction TEXT",
            ]
        },
        SearchSchema.migration,
        HistorySchema.migration,
        AppleStateSchema.migration,
        // Who the database says made each audited change (PostgreSQL's session_user, the OS user
        // on SQLite), beside the operator name the client gave; part of the entry's hash.
        Migration("0007-audit-database-user") { _ in
            ["ALTER TABLE audit_log ADD COLUMN db_user TEXT"]
        },
        EntitlementFieldsSchema.migration,
        AppleIdentifiersSchema.migration,
        MoneySchema.migration,
        FinishedTransactionsSchema.migration,
        SearchRowidSchema.migration,
        CustomerNotesSchema.migration,
        ErasureSchema.migration,
        SortIndexSchema.migration,
        TransactionOfferSchema.migration,
        ContactPastIdSchema.migration,
        EnvironmentIndexSchema.migration,
        RedundantIndexSchema.migration,
        EntitlementIndexSchema.migration,
        OptionalIdIndexSchema.migration,
        SearchDeferralSchema.migration,
    ]
}
