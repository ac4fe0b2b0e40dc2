/// Migration 0008: what Apple says changes an entitlement, kept with each transaction and with
/// each subscription's state (see ReceiptCore's `EntitlementChanges` for what each grants).
///
/// - `transactions`: `ownership_type` (`PURCHASED` / `FAMILY_SHARED`), `revocation_type`
///   (`REFUND_FULL` / `REFUND_PRORATED` / `FAMILY_REVOKE`, as written), `revocation_percentage`
///   (milliunits of a percent), `is_upgraded` (1/0, NULL when not said), `billing_plan_type`
///   and the commitment (`commitment_period` of `commitment_periods`, `commitment_price` in
///   milliunits, `commitment_expires_date`).
/// - `subscription_states`: the newest transaction's revocation type and share, its plan and commitment from the newest signed transaction,
///   and the renewal info's `renewal_billing_plan_type` and commitment renewal (product,
///   auto-renew, date, price).
enum EntitlementFieldsSchema {
    static let migration = Migration("0008-apple-entitlement-fields") { dialect in
        let int = dialect.integerType
        return [
            "ALTER TABLE transactions ADD COLUMN ownership_type TEXT",
            "ALTER TABLE transactions ADD COLUMN revocation_type TEXT",
            "ALTER TABLE transactions ADD COLUMN revocation_percentage \(int)",
            "ALTER TABLE transactions ADD COLUMN is_upgraded \(int)",
            "ALTER TABLE transactions ADD COLUMN billing_plan_type TEXT",
            "ALTER TABLE transactions ADD COLUMN commitment_period \(int)",
            "ALTER TABLE transactions ADD COLUMN commitment_periods \(int)",
            "ALTER TABLE transactions ADD COLUMN commitment_price \(int)",
            "ALTER TABLE transactions ADD COLUMN commitment_expires_date TEXT",
            "ALTER TABLE subscription_states ADD COLUMN revocation_type TEXT",
            "ALTER TABLE subscription_states ADD COLUMN revocation_percentage \(int)",
            "ALTER TABLE subscription_states ADD COLUMN billing_plan_type TEXT",
            "ALTER TABLE subscription_states ADD COLUMN commitment_period \(int)",
            "ALTER TABLE subscription_states ADD COLUMN commitment_periods \(int)",
            "ALTER TABLE subscription_states ADD COLUMN commitment_price \(int)",
            "ALTER TABLE subscription_states ADD COLUMN commitment_expires_date TEXT",
            "ALTER TABLE subscription_states ADD COLUMN renewal_billing_plan_type TEXT",
            "ALTER TABLE subscription_states ADD COLUMN commitment_renewal_product_id TEXT",
            "ALTER TABLE subscription_states ADD COLUMN commitment_auto_renew \(int)",
            "ALTER TABLE subscription_states ADD COLUMN commitment_renewal_date TEXT",
            "ALTER TABLE subscription_states ADD COLUMN commitment_renewal_price \(int)",
        ]
    }
}
