/// Identifiers Apple added since 2024 (migration 0009): the app transaction id that links one
/// customer's purchases across reinstalls and devices (on transactions, and on the stored app
/// transactions and JWS that carry it), the notification it came with (RESCIND_CONSENT), and a
/// subscription's renewal offer details (offer period, discount type, eligible win-back offers).
enum AppleIdentifiersSchema {
    static let migration = Migration("0009-apple-identifiers") { _ in
        [
            "ALTER TABLE transactions ADD COLUMN app_transaction_id TEXT",
            "CREATE INDEX transactions_by_app_transaction ON transactions(app_transaction_id)",
            "ALTER TABLE receipts ADD COLUMN app_transaction_id TEXT",
            "CREATE INDEX receipts_by_app_transaction ON receipts(app_transaction_id)",
            "ALTER TABLE notifications ADD COLUMN app_transaction_id TEXT",
            // ISO 8601 duration ("P1M"), "FREE_TRIAL" / "PAY_AS_YOU_GO" / "PAY_UP_FRONT" / …, and the
            // win-back offer ids the customer may redeem, space-separated.
            "ALTER TABLE subscription_states ADD COLUMN offer_period TEXT",
            "ALTER TABLE subscription_states ADD COLUMN offer_discount_type TEXT",
            "ALTER TABLE subscription_states ADD COLUMN eligible_win_back_offer_ids TEXT",
        ]
    }
}
