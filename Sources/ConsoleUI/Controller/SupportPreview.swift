import Foundation
import PurchaseStore
import ReceiptCore

/// The previews of the support team's changes: a customer's erasure (what goes, what stays) and
/// goodwill for every customer a filter finds (who would get what). Each is read from the ledger
/// as it is now; applying decides again under the locks.
enum SupportPreview {
    static func erase(_ customer: String, reason: String, ledger: PurchaseLedger, operatorName: String) throws -> Confirmation {
        let plan = try ledger.planErasure(customer: customer)
        guard !plan.isEmpty else { throw ConsoleFailure("\(customer) holds no personal data to erase: nothing changes") }
        var lines: [StyledLine] = [[Span("Erase the personal data of customer ", .bold), Span(customer, CellStyle(.warning, bold: true))]]
        lines += plan.lines.dropFirst().map { line in [Span(line, line.contains("⚠") ? CellStyle(.warning) : .plain)] }
        lines += [[Span("  reason: ", .muted), Span("\"\(reason)\"")], [],
                  [Span("Writes: ", .muted), Span("the erasure by \(operatorName), which cannot be undone; one audit entry \"customer-erase\" (no value)")]]
        return Confirmation(change: .erase(customer: customer, reason: reason), title: "Erase: confirm", lines: lines)
    }

    /// `tagged`: the tagged customers when rows were tagged (else the filter's are looked up).
    static func grantBatch(query: String, tagged: [String]?, entitlement: String, end: GrantEnd, reason: String, ledger: PurchaseLedger,
                           now: Date) throws -> Confirmation {
        let until: Date?
        switch end {
        case .forever: until = nil
        case .date(let date): until = date
        case .duration(let duration): until = duration.adding(to: now)
        }
        let customers = try tagged ?? GrantBatch.customers(matching: try BrowseFilter(parsing: query), in: ledger.database)
        let found = tagged == nil ? "customers found by \(query)" : "tagged customers"
        let plan = try ledger.planGrantBatch(customers: customers, entitlement: entitlement, until: until, reason: reason)
        let endText = plan.until.map { "until \(ConsoleFormat.dateTime($0)) UTC" } ?? "forever (no end)"
        var lines: [StyledLine] = [
            [Span("Grant ", .bold), Span(entitlement, CellStyle(.accent, bold: true)),
             Span(" \(endText) to \(plan.granted.count) of \(plan.lines.count) \(found)", .bold)],
        ]
        for line in plan.lines.prefix(12) {
            switch line.outcome {
            case .granted: lines.append([Span("  + ", CellStyle(.ok)), Span(line.customerId)])
            case .alreadyGranted(let id, let ends):
                lines.append([Span("  = ", .muted), Span(line.customerId), Span("  already has grant #\(id) \(ends.map { "until " + ConsoleFormat.date($0) } ?? "forever"): left out", .muted)])
            case .notFound: lines.append([Span("  ? ", CellStyle(.warning)), Span(line.customerId), Span("  not in the ledger: left out", .muted)])
            }
        }
        if plan.lines.count > 12 { lines.append([Span("  … \(plan.lines.count - 12) more (receiptdesk grant --search shows them all)", .muted)]) }
        lines += [[Span("  reason: ", .muted), Span("\"\(reason)\"")], [],
                  [Span("Writes: ", .muted), Span("one batch: a grant and a \"grant\" entry per customer, one \"grant-batch\" entry naming who got it")]]
        return Confirmation(change: .grantBatch(query: query, customers: customers, entitlement: entitlement,
                                                end: plan.until.map { .date($0) } ?? .forever, reason: reason),
                            title: "Grant to many: confirm", lines: lines)
    }
}
