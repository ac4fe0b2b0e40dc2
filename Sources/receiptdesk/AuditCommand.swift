import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk audit [--verify [--expect SEQ:HASH]] [--target T] [--limit N]`
enum AuditCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let options = try StoreOptions.take(&args)
        let verify = args.flag("--verify")
        let target = try args.value("--target")
        let limitText = try args.value("--limit")
        let expectText = try args.value("--expect")
        _ = try args.finish(maxPositionals: 0)
        let limit = try limitText.map { text -> Int in
            guard let value = Int(text), value > 0, value <= 100_000 else { throw CommandFailure.usage("--limit \(text) is not between 1 and 100000") }
            return value
        } ?? 50
        var anchor: AuditAnchor?
        if let expectText {
            guard verify else { throw CommandFailure.usage("--expect goes with --verify") }
            guard let parsed = AuditAnchor(expectText) else {
                throw CommandFailure.usage("--expect \(expectText) is not SEQ:HASH (an entry number and its 64-hex-digit hash, as audit --verify prints them)")
            }
            anchor = parsed
        }
        let ledger = try options.openLedgerForReading()
        if verify {
            let result = try AuditLog.verify(ledger.database, expecting: anchor)
            if options.json {
                print(JSONValue.object([("intact", .bool(result.isIntact)), ("checked", .int(Int64(result.checked))),
                                        ("problem", .string(result.problem)), ("head", .string(result.head?.description))]).serialized())
            } else if let problem = result.problem {
                print("audit log BROKEN after \(result.checked) good entries: \(problem)")
            } else {
                print("audit log intact: \(result.checked) entries verified")
                if let head = result.head {
                    print("head \(head)  (keep it outside the database; `audit --verify --expect \(head)` checks the log still holds it)")
                }
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
