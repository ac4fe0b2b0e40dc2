import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk report [--week | --month] [--json]`: the team lead's overview (this ISO week and
/// this calendar month, UTC, up to now; both unless one is named). Reads only.
enum ReportCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let options = try StoreOptions.take(&args)
        let week = args.flag("--week")
        let month = args.flag("--month")
        _ = try args.finish(maxPositionals: 0)
        guard !(week && month) else { throw CommandFailure.usage("report: name --week or --month, not both (neither: both reports)") }
        let periods: [TeamReport.Period] = week ? [.week] : month ? [.month] : [.week, .month]
        let ledger = try options.openLedgerForReading()
        let now = Date()
        let reports = try periods.map { try ledger.teamReport($0, now: now) }
        if options.json {
            print(JSONValue.object(reports.map { ($0.period.rawValue, $0.json) }).serialized())
        } else {
            print(reports.map { $0.lines.joined(separator: "\n") }.joined(separator: "\n\n"))
        }
        return .ok
    }
}
