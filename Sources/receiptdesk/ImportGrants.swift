import Foundation
import ReceiptCore

/// What `import` newly granted its customer, said in one line after the files' own lines:
/// each entitlement in force after the imports that was not before ("pro granted until …"), and
/// the units each consumable entitlement gained ("coins ×1200 granted (2400 in all)"). It compares
/// the customer's entitlements before and after the command's imports, so a change another
/// operator made to the same customer meanwhile would be counted as well.
enum ImportGrants {
    /// The parts of the line, in `after`'s order; empty when nothing was newly granted.
    static func granted(before: [EntitlementState], after: [EntitlementState]) -> [String] {
        let was = Dictionary(before.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var parts: [String] = []
        for state in after where state.isActive {
            let old = was[state.name]
            if let units = state.balance, units > (old?.balance ?? 0) {
                let added = units - (old?.balance ?? 0)
                parts.append("\(state.name) ×\(added) granted" + (added == units ? "" : " (\(units) in all)"))
            } else if old?.isActive != true {
                parts.append("\(state.name) granted " + (state.ends.map { "until " + RFC3339.format($0) } ?? "with no end"))
            }
        }
        return parts
    }

    /// "alice: pro granted until 2026-12-31T10:00:00.000Z", or "alice: nothing newly granted".
    static func line(customer: String, before: [EntitlementState], after: [EntitlementState]) -> String {
        let parts = granted(before: before, after: after)
        return "\(customer): " + (parts.isEmpty ? "nothing newly granted" : parts.joined(separator: "; "))
    }
}
