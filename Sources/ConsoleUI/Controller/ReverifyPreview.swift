import Foundation
import PurchaseStore
import ReceiptCore

/// The one preview of re-verifying the tagged rows: every receipt Apple will be asked about,
/// each once, grouped by the tagged receipt or customer that brings it, read from the ledger as
/// it is now (a customer's erased receipts are left out: nothing is left to ask about).
enum ReverifyPreview {
    /// The most receipts one re-verification of tagged rows asks about (Apple is asked one at a time).
    static let maxReceipts = 500
    /// The lines listing receipts before "… N more".
    static let maxListed = 14

    static func confirmation(receipts: [Int64], customers: [String], ledger: PurchaseLedger, appleLabel: String) throws -> Confirmation {
        var ids: [Int64] = []
        var seen = Set<Int64>()
        var listed: [StyledLine] = []
        for id in receipts {
            guard let stored = try Browser(ledger.database).receipt(id) else { throw ConsoleFailure("re-verify: tagged receipt #\(id) is no longer in the ledger") }
            guard stored.erasedAt == nil else {
                listed.append([Span("  receipt #\(id)", .bold), Span("  left out: its bytes were erased", .muted)])
                continue
            }
            guard seen.insert(id).inserted else { continue }
            ids.append(id)
            listed.append([Span("  receipt #\(id)", .bold), Span("  \(stored.record.format) · customer \(stored.record.customerId ?? "–")", .muted)])
        }
        for customer in customers {
            let theirs = try ledger.receiptIds(customer: customer).filter { seen.insert($0).inserted }
            ids += theirs
            let shown = theirs.prefix(8).map { "#\($0)" }.joined(separator: ", ") + (theirs.count > 8 ? ", … \(theirs.count - 8) more" : "")
            listed.append([Span("  customer \(customer)", .bold),
                           Span(theirs.isEmpty ? "  no receipt to ask about" : "  \(Plural.of(theirs.count, "receipt")): \(shown)", theirs.isEmpty ? .muted : .plain)])
        }
        guard !ids.isEmpty else { throw ConsoleFailure("re-verify: the tagged rows have no receipt to ask Apple about") }
        guard ids.count <= maxReceipts else {
            throw ConsoleFailure("re-verify: the tagged rows hold \(ids.count) receipts, over the \(maxReceipts) one re-verification asks about: tag fewer")
        }
        var lines: [StyledLine] = [[Span("Ask \(appleLabel) about \(Plural.of(ids.count, "receipt")), one at a time, each once:", .bold)], []]
        lines += listed.prefix(maxListed)
        if listed.count > maxListed { lines.append([Span("  … \(listed.count - maxListed) more tagged rows", .muted)]) }
        lines += [[], [Span("Writes: ", .muted),
                       Span("each answer recorded with its receipt; what Apple knows applied (entitlements recomputed); one audit entry \"reverify\" per answer")]]
        return Confirmation(change: .reverify(receipts: receipts, customers: customers, receiptIds: ids),
                            title: "Re-verify \(Plural.of(receipts.count + customers.count, "tagged row")) with Apple: preview", lines: lines)
    }
}
