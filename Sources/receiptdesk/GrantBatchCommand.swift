import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk grant (--customers FILE | --search QUERY) --entitlement E [--until DATE | --for
/// P30D | --days N] --reason TEXT [--yes]`: goodwill for many. Without `--yes` it previews (who
/// would get what, who is left out and why) and writes nothing; with it, one audited batch and
/// the report of who got what. `grant` hands over here when `--customers` or `--search` is given.
enum GrantBatchCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let options = try StoreOptions.take(&args)
        let listPath = try args.value("--customers")
        let query = try args.value("--search")
        guard let entitlement = try args.value("--entitlement") else {
            throw CommandFailure.usage("grant --customers FILE | --search QUERY needs --entitlement E --reason TEXT")
        }
        let reason = try args.value("--reason") ?? ""
        let untilText = try args.value("--until"), durationText = try args.value("--for"), daysText = try args.value("--days")
        let confirmed = args.flag("--yes")
        if try args.value("--customer") != nil { throw CommandFailure.usage("give --customer ID, or --customers FILE / --search QUERY for many, not both") }
        _ = try args.finish(maxPositionals: 0)
        guard (listPath == nil) != (query == nil) else { throw CommandFailure.usage("give --customers FILE or --search QUERY, not both") }
        guard [untilText, durationText, daysText].compactMap({ $0 }).count <= 1 else {
            throw CommandFailure.usage("give one of --until, --for and --days")
        }
        let now = Date()
        var until: Date?
        if let untilText { until = try OperatorDate.parse(untilText, flag: "--until") }
        if let durationText {
            guard let duration = ISODuration(durationText) else { throw CommandFailure.usage("--for \(durationText) is not an ISO 8601 duration (P30D, P1M, P1Y)") }
            until = duration.adding(to: now)
        }
        if let daysText {
            guard let days = Int(daysText), (1...3650).contains(days) else { throw CommandFailure.usage("--days takes a number from 1 to 3650, not '\(daysText)'") }
            until = now.addingTimeInterval(Double(days) * 86_400)
        }
        let ledger = try options.openLedger(checking: [(entitlement, "entitlement")])
        let customers: [String]
        do {
            if let listPath {
                guard let text = String(validating: try InputReader.read(listPath), as: UTF8.self) else {
                    throw CommandFailure(status: .badInput, message: "\(listPath): not UTF-8 text (one customer id a line)")
                }
                customers = try GrantBatch.customers(fromList: text, source: listPath)
            } else {
                customers = try GrantBatch.customers(matching: try BrowseFilter(parsing: query ?? ""), in: ledger.database)
            }
        } catch let error as StoreError { throw CommandFailure.from(error) }
        let batch = confirmed
            ? try ledger.grantBatch(customers: customers, entitlement: entitlement, until: until, reason: reason, operatorName: options.operatorName)
            : try ledger.planGrantBatch(customers: customers, entitlement: entitlement, until: until, reason: reason)
        print(options.json ? json(batch).serialized() : text(batch, source: listPath ?? "search \(query ?? "")"))
        return .ok
    }

    static func text(_ batch: GrantBatch, source: String) -> String {
        let end = batch.until.map { "until " + RFC3339.format($0) } ?? "forever"
        var lines = [batch.applied
            ? "batch \(batch.batchId): granted \(batch.entitlement) \(end) to \(batch.granted.count) of \(batch.lines.count) customers from \(source)"
            : "preview: would grant \(batch.entitlement) \(end) to \(batch.granted.count) of \(batch.lines.count) customers from \(source)",
                     "  reason: \(batch.reason)"]
        for line in batch.lines {
            let id = UnsafeText.escaped(line.customerId, keeping: [])
            switch line.outcome {
            case .granted(let grantId): lines.append("  + \(id)" + (grantId.map { "  grant #\($0)" } ?? ""))
            case .alreadyGranted(let grantId, let ends):
                lines.append("  = \(id)  already has grant #\(grantId) (\(ends.map { "until " + RFC3339.format($0) } ?? "forever")): left as it is")
            case .notFound: lines.append("  ? \(id)  not in the ledger: left out")
            }
        }
        if !batch.applied { lines.append("nothing written: run it again with --yes to grant") }
        return lines.joined(separator: "\n")
    }

    static func json(_ batch: GrantBatch) -> JSONValue {
        .object([("batchId", batch.applied ? .string(batch.batchId) : .null), ("applied", .bool(batch.applied)),
                 ("entitlement", .string(batch.entitlement)), ("until", .date(batch.until)), ("reason", .string(batch.reason)),
                 ("customers", .array(batch.lines.map { line in
                     switch line.outcome {
                     case .granted(let grantId):
                         return .object([("customerId", .string(line.customerId)), ("outcome", .string(batch.applied ? "granted" : "would-grant")),
                                         ("grantId", grantId.map { .int($0) } ?? .null)])
                     case .alreadyGranted(let grantId, let ends):
                         return .object([("customerId", .string(line.customerId)), ("outcome", .string("already-granted")),
                                         ("grantId", .int(grantId)), ("endsAt", .date(ends))])
                     case .notFound:
                         return .object([("customerId", .string(line.customerId)), ("outcome", .string("not-found"))])
                     }
                 }))])
    }
}
