import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk audit [--target T] [--limit N]` lists entries; `audit --verify …` checks the log
/// (`AuditVerifyCommand`); `audit anchor …` signs its head (`AuditAnchorCommand`).
enum AuditCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        if arguments.first == "anchor" { return try AuditAnchorCommand.run(Array(arguments.dropFirst())) }
        if arguments.contains("--verify") { return try AuditVerifyCommand.run(arguments) }
        var args = Arguments(arguments)
        let options = try StoreOptions.take(&args)
        let target = try args.value("--target")
        let limitText = try args.value("--limit")
        for option in ["--expect", "--anchors", "--public-key"] where try args.value(option) != nil {
            throw CommandFailure.usage("\(option) goes with --verify")
        }
        if args.flag("--skip-entitlements") { throw CommandFailure.usage("--skip-entitlements goes with --verify") }
        _ = try args.finish(maxPositionals: 0)
        let limit = try limitText.map { text -> Int in
            guard let value = Int(text), value > 0, value <= 100_000 else { throw CommandFailure.usage("--limit \(text) is not between 1 and 100000") }
            return value
        } ?? 50
        let ledger = try options.openLedgerForReading()
        let entries = try AuditLog.entries(ledger.database, target: target, limit: limit)
        if options.json {
            print(JSONValue.array(entries.map(LedgerJSON.audit)).serialized())
        } else {
            for e in entries {
                let login = e.databaseUser.map { " [\($0)]" } ?? ""
                print("#\(e.seq)  \(RFC3339.format(e.at))  \(e.operatorName)\(login)  \(e.action)  \(e.target)  \(e.details)")
            }
        }
        return .ok
    }
}
