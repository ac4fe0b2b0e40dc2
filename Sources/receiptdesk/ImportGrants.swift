import Foundation
import PurchaseStore
import ReceiptCore

/// What `import` newly granted its customer, said in one line after the files' own lines, and as
/// `granted` in `--json`: each entitlement in force after the imports that was not before ("pro
/// granted until …"), and the units each consumable entitlement gained ("coins ×1200 granted
/// (2400 in all)"). It compares the customer's entitlements before and after the command's
/// imports, so a change another operator made to the same customer meanwhile would be counted as well.
enum ImportGrants {
    /// One entitlement newly granted: until when (nil: no end), or how many units it gained.
    struct Grant: Equatable {
        let entitlement: String
        let until: Date?
        /// Units gained and held in all, for a consumable entitlement; nil otherwise.
        let quantity: Int64?
        let total: Int64?

        var text: String {
            if let quantity, let total { return "\(entitlement) ×\(quantity) granted" + (quantity == total ? "" : " (\(total) in all)") }
            return "\(entitlement) granted " + (until.map { "until " + RFC3339.format($0) } ?? "with no end")
        }
    }

    /// The grants, in `after`'s order; empty when nothing was newly granted.
    static func granted(before: [EntitlementState], after: [EntitlementState]) -> [Grant] {
        let was = Dictionary(before.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var grants: [Grant] = []
        for state in after where state.isActive {
            let old = was[state.name]
            if let units = state.balance, units > (old?.balance ?? 0) {
                grants.append(Grant(entitlement: state.name, until: nil, quantity: units - (old?.balance ?? 0), total: units))
            } else if old?.isActive != true {
                grants.append(Grant(entitlement: state.name, until: state.ends, quantity: nil, total: nil))
            }
        }
        return grants
    }

    /// "alice: pro granted until 2026-12-31T10:00:00.000Z", or "alice: nothing newly granted".
    static func line(customer: String, _ grants: [Grant]) -> String {
        "\(customer): " + (grants.isEmpty ? "nothing newly granted" : grants.map(\.text).joined(separator: "; "))
    }

    /// `--json`'s `granted`: `{"customerId", "entitlement", "until"}` (null: no end), or for a
    /// consumable entitlement `{"customerId", "entitlement", "quantity", "total"}`.
    static func json(customer: String, _ grants: [Grant]) -> JSONValue {
        .array(grants.map { grant in
            var members: [(String, JSONValue)] = [("customerId", .string(customer)), ("entitlement", .string(grant.entitlement))]
            if let quantity = grant.quantity, let total = grant.total {
                members += [("quantity", .int(quantity)), ("total", .int(total))]
            } else {
                members.append(("until", .date(grant.until)))
            }
            return .object(members)
        })
    }
}
