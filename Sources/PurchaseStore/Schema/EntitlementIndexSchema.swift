/// Migration 0021: `entitlements_by_customer` carries `active` after (customer, entitlement), so
/// the customers list's active entitlements (`ListRowLookups.activeEntitlements`) read the index
/// only. Without it each entitlement row of the page's customers was read from the table, rows a
/// customer gathers over months and scattered across it: with the page cache cold at ten million
/// transactions, the slowest of a customers page's lookups (up to 7 ms of a page-down, where the
/// index alone took 1). Same name, same leading columns: every other read is unchanged.
enum EntitlementIndexSchema {
    static let migration = Migration("0021-active-entitlements-by-customer") { _ in
        [
            "DROP INDEX entitlements_by_customer",
            "CREATE INDEX entitlements_by_customer ON entitlements(customer_id, entitlement, active)",
        ]
    }
}
