import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk audit [--verify] [--target T] [--limit N]`
enum AuditCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let options = try StoreOptions.take(&args)
        let verify = args.flag("--verify")
        let target = try args.value("--target")
        let limitText = try args.value("--limit")
        _ = try args.finish(maxPositionals: 0)
        let limit = try limitText.map { text -> Int in
            guard let value = Int(text), value > 0, value <= 100_000 else { throw CommandFailure.usage("--limit \(text) is not between 1 and 100000") }
            return value
        } ?? 50
        let ledger = try options.openLedger()
        if verify {
            let result = try AuditLog.verify(ledger.database)
            if options.json {
                print(JSONValue.object([("intact", .bool(result.isIntact)), ("checked", .int(Int64(result.checked))),
                                        ("problem", .string(result.problem))]).serialized())
            } else {
                print(result.problem.map { "audit log BROKEN after \(result.checked) good entries: \($0)" }
                      ?? "audit log intact: \(result.checked) entries verified")
            }
            return result.isIntact ? .ok : .verificationFailed
        }
        let entries = try AuditLog.entries(ledger.database, target: target, limit: limit)
        if options.json {
            print(JSONValue.array(entries.map(LedgerJSON.audit)).serialized())
        } else {
            for e in entries { print("#\(e.seq)  \(RFC3339.format(e.at))  \(e.operatorName)  \(e.action)  \(e.target)  \(e.details)") }
        }
        return .ok
    }
}
