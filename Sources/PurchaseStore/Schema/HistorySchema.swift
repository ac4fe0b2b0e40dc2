/// What the team did stays visible to the team (migration 0005): every re-verification's result
/// with the receipt, every transaction that changed owner (restore, resolved conflict) with both
/// sides, and every repeated arrival of a transaction already recorded.
enum HistorySchema {
    static let migration = Migration("0005-history") { dialect in
        let id = dialect.autoIncrementPrimaryKey
        let int = dialect.integerType
        return [
            // One row per re-verification: Apple's environment and status, the differences
            // between its answer and the local decode, what was applied, and the answer itself.
            """
            CREATE TABLE reverifications (
                reverification_id \(id),
                receipt_id \(int) NOT NULL REFERENCES receipts(receipt_id),
                verified_at TEXT NOT NULL,
                operator TEXT NOT NULL,
                outcome TEXT NOT NULL,
                summary TEXT NOT NULL,
                apple_environment TEXT,
                differences TEXT NOT NULL,
                applied TEXT NOT NULL,
                raw_answer TEXT)
            """,
            "CREATE INDEX reverifications_by_receipt ON reverifications(receipt_id, reverification_id)",
            // A transaction moving from one customer to another: a restore or a resolved conflict.
            """
            CREATE TABLE transfers (
                transfer_id \(id),
                transaction_id TEXT NOT NULL REFERENCES transactions(transaction_id),
                from_customer TEXT NOT NULL REFERENCES customers(customer_id),
                to_customer TEXT NOT NULL REFERENCES customers(customer_id),
                kind TEXT NOT NULL CHECK (kind IN ('restore', 'conflict')),
                transferred_at TEXT NOT NULL,
                operator TEXT NOT NULL,
                reason TEXT NOT NULL)
            """,
            "CREATE INDEX transfers_from ON transfers(from_customer, transfer_id)",
            "CREATE INDEX transfers_to ON transfers(to_customer, transfer_id)",
            "CREATE INDEX transfers_by_transaction ON transfers(transaction_id)",
            // A transaction arriving again (the same receipt, another receipt, a notification):
            // a trace for order mix-ups; it changes nothing the transaction grants.
            """
            CREATE TABLE arrivals (
                arrival_id \(id),
                transaction_id TEXT NOT NULL REFERENCES transactions(transaction_id),
                arrived_at TEXT NOT NULL,
                source TEXT NOT NULL,
                receipt_id \(int) REFERENCES receipts(receipt_id),
                presented_for TEXT,
                operator TEXT NOT NULL)
            """,
            "CREATE INDEX arrivals_by_transaction ON arrivals(transaction_id, arrival_id)",
            "ALTER TABLE transactions ADD COLUMN repeat_arrivals \(int) NOT NULL DEFAULT 0",
        ]
    }
}
