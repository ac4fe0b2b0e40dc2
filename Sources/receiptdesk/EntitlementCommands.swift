import Foundation
import PurchaseStore
import ReceiptCore

/// `grant`, `revoke` and `restore`: the manual changes, each with a required reason.
enum EntitlementCommands {
    /// `receiptdesk grant --customer ID --entitlement E [--until DATE | --for DURATION] --reason TEXT`
    static func grant(_ arguments: [String]) throws -> ExitStatus {
        if arguments.contains(where: { $0 == "--customers" || $0 == "--search" || $0.hasPrefix("--customers=") || $0.hasPrefix("--search=") }) {
            return try GrantBatchCommand.run(arguments)
        }
        var args = Arguments(arguments)
        let options = try StoreOptions.take(&args)
        guard let customer = try args.value("--customer"), let entitlement = try args.value("--entitlement") else {
            throw CommandFailure.usage("grant needs --customer ID --entitlement E --reason TEXT")
        }
        let reason = try args.value("--reason") ?? ""
        let untilText = try args.value("--until")
        let durationText = try args.value("--for")
        _ = try args.finish(maxPositionals: 0)
        var until: Date?
        if let untilText { until = try OperatorDate.parse(untilText, flag: "--until") }
        if let durationText {
            guard until == nil else { throw CommandFailure.usage("give --until or --for, not both") }
            guard let duration = ISODuration(durationText) else {
                throw CommandFailure.usage("--for \(durationText) is not an ISO 8601 duration (P30D, P1M, P1Y)")
            }
            until = duration.adding(to: Date())
        }
        let record = try options.openLedger(mayCreate: true, checking: [(customer, "customer id"), (entitlement, "entitlement")]).grant(customer: customer, entitlement: entitlement, until: until, reason: reason,
                                                    operatorName: options.operatorName)
        print(options.json ? LedgerJSON.grant(record).serialized()
                           : "granted \(entitlement) to \(customer) until \(record.endsAt.map(RFC3339.format) ?? "forever") (grant #\(record.grantId))")
        return .ok
    }

    /// `receiptdesk revoke --customer ID (--entitlement E | --grant N) --reason TEXT`
    static func revoke(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let options = try StoreOptions.take(&args)
        guard let customer = try args.value("--customer") else { throw CommandFailure.usage("revoke needs --customer ID") }
        let entitlement = try args.value("--entitlement")
        let grantText = try args.value("--grant")
        let reason = try args.value("--reason") ?? ""
        _ = try args.finish(maxPositionals: 0)
        var grantId: Int64?
        if let grantText {
            guard let parsed = Int64(grantText.trimmingCharacters(in: CharacterSet(charactersIn: "#"))) else {
                throw CommandFailure.usage("--grant \(grantText) is not a grant number")
            }
            grantId = parsed
        }
        let ledger = try options.openLedger()
        try ledger.revoke(customer: customer, entitlement: entitlement, grantId: grantId, reason: reason, operatorName: options.operatorName)
        let states = try ledger.entitlements(customer, now: Date())
        if options.json {
            print(JSONValue.object([("customerId", .string(customer)), ("entitlements", .array(states.map(LedgerJSON.entitlement)))]).serialized())
        } else {
            print("revoked \(entitlement ?? "grant #\(grantId ?? 0)") for \(customer)")
        }
        return .ok
    }

    /// `receiptdesk restore --customer ID (--from-customer OLD [--transaction T]... | --receipt FILE) --reason TEXT
    /// [--include-consumables] [--dry-run]`: consumables stay with their owner unless included.
    static func restore(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let options = try StoreOptions.take(&args)
        guard let customer = try args.value("--customer") else { throw CommandFailure.usage("restore needs --customer ID") }
        let from = try args.value("--from-customer")
        let transactions = try args.values("--transaction")
        let receiptPath = try args.value("--receipt")
        let reason = try args.value("--reason") ?? ""
        let dryRun = args.flag("--dry-run")
        let consumables = args.flag("--include-consumables")
        _ = try args.finish(maxPositionals: 0)
        let receipt = try receiptPath.map(InputReader.read)
        let result = try options.openLedger().restore(customer: customer, fromCustomer: from, transactionIds: transactions,
                                                      receipt: receipt, reason: reason, operatorName: options.operatorName,
                                                      includeConsumables: consumables, dryRun: dryRun)
        if options.json {
            print(JSONValue.object([
                ("dryRun", .bool(result.dryRun)),
                ("moved", .array(result.movedTransactions.map { .object([("transactionId", .string($0.transactionId)), ("from", .string($0.fromCustomer))]) })),
                ("imported", .array(result.importedTransactions.map { .string($0) })),
                ("consumablesLeft", .array(result.consumablesLeft.map { .object([("transactionId", .string($0.transactionId)), ("owner", .string($0.fromCustomer))]) })),
                ("consumablesMoved", .int(Int64(result.consumablesMoved))),
            ]).serialized())
        } else {
            let verb = result.dryRun ? "would move" : "moved"
            print("\(verb) \(Plural.of(result.movedTransactions.count, "transaction")) to \(customer)" +
                  (result.importedTransactions.isEmpty ? "" : ", \(result.dryRun ? "would import" : "imported") \(result.importedTransactions.count) new"))
            for move in result.movedTransactions { print("  \(move.transactionId)  from \(move.fromCustomer)") }
            if !result.consumablesLeft.isEmpty {
                print("\(Plural.of(result.consumablesLeft.count, "consumable purchase")) \(result.consumablesLeft.count == 1 ? "stays with its" : "stay with their") owner: Apple does not restore consumables, and moving one lets it be spent twice (--include-consumables moves them)")
                for left in result.consumablesLeft { print("  \(left.transactionId)  stays with \(left.fromCustomer)") }
            }
            if result.consumablesMoved > 0 { print("including \(Plural.of(result.consumablesMoved, "consumable purchase")) (--include-consumables)") }
        }
        return .ok
    }
}
