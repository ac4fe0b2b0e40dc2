/// Apple's side of the story (migration 0006): each subscription's latest state as Apple reported
/// it, the events that drew its timeline, refund requests waiting for consumption information,
/// renewal extensions (single and mass), notification history fetches with their paging tokens,
/// and test notifications.
enum AppleStateSchema {
    static let migration = Migration("0006-apple-state") { dialect in
        let id = dialect.autoIncrementPrimaryKey
        let int = dialect.integerType
        return [
            // One row per subscription (original transaction): the newest signed state wins
            // (`signed_date`), whether it came in a notification or from Get All Subscription Statuses.
            """
            CREATE TABLE subscription_states (
                original_transaction_id TEXT PRIMARY KEY,
                customer_id TEXT REFERENCES customers(customer_id),
                environment TEXT NOT NULL,
                subscription_group TEXT,
                product_id TEXT,
                status \(int),
                auto_renew \(int),
                auto_renew_product_id TEXT,
                expiration_intent \(int),
                expires_date TEXT,
                renewal_date TEXT,
                grace_period_expires_date TEXT,
                in_billing_retry \(int),
                billing_retry_since TEXT,
                price_increase_status \(int),
                offer_type \(int),
                offer_identifier TEXT,
                price \(int),
                renewal_price \(int),
                currency TEXT,
                storefront TEXT,
                revocation_date TEXT,
                revocation_reason \(int),
                refund_count \(int) NOT NULL DEFAULT 0,
                last_event TEXT,
                source TEXT NOT NULL,
                signed_date TEXT NOT NULL,
                updated_at TEXT NOT NULL)
            """,
            "CREATE INDEX subscription_states_by_customer ON subscription_states(customer_id)",
            "CREATE INDEX subscription_states_by_product ON subscription_states(product_id, status)",
            // What happened to a subscription, as Apple told it: renewals, billing retry, grace
            // periods, refunds and their outcome, extensions, expiry, offers, price increases.
            """
            CREATE TABLE subscription_events (
                event_id \(id),
                original_transaction_id TEXT NOT NULL,
                customer_id TEXT REFERENCES customers(customer_id),
                transaction_id TEXT,
                kind TEXT NOT NULL,
                notification_type TEXT,
                subtype TEXT,
                occurred_at TEXT NOT NULL,
                detail TEXT NOT NULL,
                source TEXT NOT NULL)
            """,
            "CREATE INDEX subscription_events_by_customer ON subscription_events(customer_id, occurred_at)",
            "CREATE INDEX subscription_events_by_original ON subscription_events(original_transaction_id, occurred_at)",
            // A customer asked Apple for a refund and Apple asks what they consumed
            // (CONSUMPTION_REQUEST), answered with Send Consumption Information before the deadline.
            """
            CREATE TABLE refund_requests (
                request_id \(id),
                notification_uuid TEXT NOT NULL UNIQUE,
                transaction_id TEXT NOT NULL,
                original_transaction_id TEXT,
                customer_id TEXT REFERENCES customers(customer_id),
                product_id TEXT,
                environment TEXT NOT NULL,
                requested_at TEXT NOT NULL,
                deadline TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('open', 'sent', 'refunded', 'declined')),
                consumption TEXT,
                sent_at TEXT,
                sent_by TEXT,
                reason TEXT,
                outcome_at TEXT)
            """,
            "CREATE INDEX refund_requests_by_status ON refund_requests(status, deadline)",
            "CREATE INDEX refund_requests_by_transaction ON refund_requests(transaction_id)",
            "CREATE INDEX refund_requests_by_customer ON refund_requests(customer_id)",
            // Every renewal extension asked of Apple, one customer's or a mass extension's.
            """
            CREATE TABLE renewal_extensions (
                extension_id \(id),
                request_identifier TEXT NOT NULL UNIQUE,
                original_transaction_id TEXT NOT NULL,
                customer_id TEXT REFERENCES customers(customer_id),
                days \(int) NOT NULL,
                reason_code \(int) NOT NULL,
                requested_at TEXT NOT NULL,
                operator TEXT NOT NULL,
                reason TEXT NOT NULL,
                outcome TEXT NOT NULL,
                effective_date TEXT)
            """,
            "CREATE INDEX renewal_extensions_by_original ON renewal_extensions(original_transaction_id, requested_at)",
            """
            CREATE TABLE mass_extensions (
                request_identifier TEXT PRIMARY KEY,
                product_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                days \(int) NOT NULL,
                reason_code \(int) NOT NULL,
                storefronts TEXT NOT NULL,
                requested_at TEXT NOT NULL,
                operator TEXT NOT NULL,
                reason TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('requested', 'complete', 'refused')),
                succeeded \(int) NOT NULL DEFAULT 0,
                failed \(int) NOT NULL DEFAULT 0,
                completed_at TEXT,
                checked_at TEXT)
            """,
            // A Get Notification History fetch: its period and the token of the next page, so a
            // fetch that stopped resumes where it was.
            """
            CREATE TABLE notification_fetches (
                fetch_id \(id),
                environment TEXT NOT NULL,
                start_date TEXT NOT NULL,
                end_date TEXT NOT NULL,
                next_token TEXT,
                pages \(int) NOT NULL DEFAULT 0,
                seen \(int) NOT NULL DEFAULT 0,
                applied \(int) NOT NULL DEFAULT 0,
                status TEXT NOT NULL CHECK (status IN ('running', 'done')),
                started_at TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                operator TEXT NOT NULL)
            """,
            """
            CREATE TABLE test_notifications (
                token TEXT PRIMARY KEY,
                environment TEXT NOT NULL,
                requested_at TEXT NOT NULL,
                operator TEXT NOT NULL,
                last_result TEXT,
                checked_at TEXT)
            """,
        ]
    }

    /// The tables `db copy` carries, parents first, with the columns rows are paged by.
    static let copiedTables: [(name: String, order: [String])] = [
        ("subscription_states", ["original_transaction_id"]), ("subscription_events", ["event_id"]),
        ("refund_requests", ["request_id"]), ("renewal_extensions", ["extension_id"]),
        ("mass_extensions", ["request_identifier"]), ("notification_fetches", ["fetch_id"]), ("test_notifications", ["token"]),
    ]

    /// Their auto-numbered keys.
    static let identities: [(table: String, column: String)] = [
        ("subscription_events", "event_id"), ("refund_requests", "request_id"), ("renewal_extensions", "extension_id"),
        ("notification_fetches", "fetch_id"),
    ]
}
