import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk transaction history TX` (Get Transaction History: everything Apple has for that
/// customer's Apple account, verified) and `transaction set-token ORIGINAL --token UUID --reason T`
/// (Set App Account Token at Apple, then in the ledger), and `transaction app-info ID` (Get App
/// Transaction Info: the customer's download of the app, from any of their transaction ids,
/// original transaction ids or their app transaction id, verified), `transaction show TX` (one
/// transaction as the ledger holds it) and `transaction finish TX --reason T` (`FinishCommand`).
enum TransactionCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        guard let sub = arguments.first else { throw CommandFailure.usage("transaction needs a subcommand: show, history, app-info, set-token or finish") }
        var args = Arguments(Array(arguments.dropFirst()))
        let options = try StoreOptions.take(&args)
        switch sub {
        case "show": return try show(&args, options)
        case "history": return try history(&args, options)
        case "set-token": return try setToken(&args, options)
        case "app-info": return try appInfo(&args, options)
        case "finish": return try FinishCommand.finish(&args, options)
        default: throw CommandFailure.usage("unknown transaction subcommand '\(sub)': use show, history, app-info, set-token or finish")
        }
    }

    /// The ledger's record of one transaction: who owns it, what it is, its order, whether it was
    /// refunded, and whether (when, by whom) it was finished at Apple.
    private static func show(_ args: inout Arguments, _ options: StoreOptions) throws -> ExitStatus {
        guard let id = try args.finish(maxPositionals: 1).first else { throw CommandFailure.usage("transaction show needs TRANSACTION_ID") }
        let ledger = try options.openLedgerForReading()
        guard let t = try ledger.transaction(id) else {
            throw CommandFailure.badInput("transaction \(id) is not in the ledger")
        }
        if options.json {
            print(LedgerJSON.transaction(t).serialized())
            return .ok
        }
        func date(_ d: Date?) -> String { d.map(RFC3339.format) ?? "–" }
        var lines = ["transaction \(t.transactionId)  \(t.productId) ×\(t.quantity)  \(t.environment.uppercased())",
                     "  customer         \(t.customerId)"]
        if let original = t.originalTransactionId, original != t.transactionId { lines.append("  original         \(original)") }
        lines.append("  bought           \(date(t.purchaseDate))" + (t.expiresDate.map { "  expires \(date($0))" } ?? ""))
        if let revoked = t.revocationDate ?? t.cancellationDate {
            lines.append("  refunded         \(date(revoked))" + (t.revocationWords.map { " (\($0))" } ?? ""))
        }
        lines.append("  order            " + (t.orderId.map { "\($0) (\(t.binding))" } ?? t.binding))
        lines.append("  first receipt    #\(t.firstReceiptId)")
        lines.append("  Apple            " + (t.finishedAt.map { "finished at Apple \(date($0)) by \(t.finishedBy ?? "unknown")" } ?? "not finished at Apple"))
        print(lines.joined(separator: "\n"))
        return .ok
    }

    private static func history(_ args: inout Arguments, _ options: StoreOptions) throws -> ExitStatus {
        guard let id = try args.finish(maxPositionals: 1).first else { throw CommandFailure.usage("transaction history needs TRANSACTION_ID") }
        let session = try AppleActionSession(options, command: "transaction history", checking: [(id, "transaction id")])
        defer { session.close() }
        // Any of a transaction, original transaction or app transaction id, as Apple takes them.
        let environment = try session.ledger.environment(ofAnyTransactionId: id)
        let client = session.actions.client
        let list = try session.run { try await client.transactionHistory(id, environment: environment) }
        let rows = try list.transactions.map { verified -> (VerifiedTransaction, String?) in
            (verified, try verified.transactionId.flatMap { try session.ledger.transaction($0)?.customerId })
        }
        if options.json {
            print(JSONValue.object([("transactionId", .string(id)), ("environment", .string(list.environment.rawValue)), ("pages", .int(Int64(list.pages))),
                                    ("transactions", .array(rows.map { verified, owner in
                                        let p = verified.transaction.purchase
                                        return .object([("transactionId", .string(p.transactionId)), ("originalTransactionId", .string(p.originalTransactionId)),
                                                        ("productId", .string(p.productId)), ("purchaseDate", .string(p.purchaseDate.map(RFC3339.format))),
                                                        ("expiresDate", .string(p.expiresDate.map(RFC3339.format))),
                                                        ("revocationDate", .string(p.revocationDate.map(RFC3339.format))),
                                                        ("appAccountToken", .string(p.appAccountToken)),
                                                        ("price", AppleSideText.money(verified.transaction.price, verified.transaction.currency,
                                                                                      storefront: verified.transaction.storefront)),
                                                        ("inLedgerFor", .string(owner))])
                                    })), ("rejected", .array(list.rejected.map { .string($0.description) }))]).serialized())
        } else {
            print("Apple's transaction history around \(id) (\(list.environment.rawValue.lowercased()), \(list.pages) page\(list.pages == 1 ? "" : "s"), verified):")
            for (verified, owner) in rows {
                let p = verified.transaction.purchase
                var line = "  \(p.transactionId ?? "?")  \(p.productId ?? "?")  bought \(p.purchaseDate.map(RFC3339.format) ?? "?")"
                if let expires = p.expiresDate { line += "  expires \(RFC3339.format(expires))" }
                if p.ownership == .familyShared { line += "  FAMILY SHARED" }
                if let revoked = p.revocationDate {
                    line += p.isUpgraded == true ? "  UPGRADED \(RFC3339.format(revoked))" : "  REFUNDED \(RFC3339.format(revoked))"
                }
                if let price = AppleMoney.format(verified.transaction.price, currency: verified.transaction.currency) { line += "  \(price)" }
                line += owner.map { "  (ledger: \($0))" } ?? "  (not in the ledger)"
                print(line)
            }
            list.rejected.forEach { print("not believed: \($0)") }
        }
        return list.rejected.isEmpty ? .ok : .verificationFailed
    }

    private static func appInfo(_ args: inout Arguments, _ options: StoreOptions) throws -> ExitStatus {
        guard let id = try args.finish(maxPositionals: 1).first else {
            throw CommandFailure.usage("transaction app-info needs TRANSACTION_ID (a transaction, original transaction or app transaction id)")
        }
        let session = try AppleActionSession(options, command: "transaction app-info", checking: [(id, "transaction id")])
        defer { session.close() }
        let environment: Environment? = try session.ledger.transaction(id).flatMap { Environment(rawValue: $0.environment) }
        let client = session.actions.client
        let info = try session.run { try await client.appTransactionInfo(id, environment: environment) }
        let app = info.appTransaction.appTransaction
        let owner = try app.appTransactionId.flatMap { try session.ledger.customer(appTransactionId: $0) }
        if options.json {
            print(JSONValue.object([("anyTransactionId", .string(id)), ("environment", .string(info.environment.rawValue)),
                                    ("appTransactionId", .string(app.appTransactionId)), ("bundleId", .string(app.bundleId)),
                                    ("applicationVersion", .string(app.applicationVersion)),
                                    ("originalApplicationVersion", .string(app.originalApplicationVersion)),
                                    ("originalPurchaseDate", .string(app.originalPurchaseDate.map(RFC3339.format))),
                                    ("inLedgerFor", .string(owner))]).serialized())
        } else {
            print("Apple's app transaction for \(id) (\(info.environment.rawValue.lowercased()), verified):")
            print("  app transaction id  \(app.appTransactionId ?? "(none)")")
            print("  bundle id           \(app.bundleId ?? "?")")
            print("  first downloaded    \(app.originalPurchaseDate.map(RFC3339.format) ?? "?") (version \(app.originalApplicationVersion ?? "?"))")
            print("  ledger              \(owner.map { "customer \($0)" } ?? "no customer here has this app transaction id")")
        }
        return .ok
    }

    private static func setToken(_ args: inout Arguments, _ options: StoreOptions) throws -> ExitStatus {
        let token = try args.value("--token")
        let reason = try args.value("--reason")
        let dryRun = args.flag("--dry-run")
        guard let original = try args.finish(maxPositionals: 1).first else {
            throw CommandFailure.usage("transaction set-token needs ORIGINAL_TRANSACTION_ID --token UUID --reason TEXT")
        }
        guard let token else { throw CommandFailure.usage("transaction set-token needs --token UUID") }
        guard dryRun || reason != nil else { throw CommandFailure.usage("transaction set-token needs --reason TEXT (it is audited)") }
        let session = try AppleActionSession(options, command: "transaction set-token", checking: [(original, "original transaction id")])
        defer { session.close() }
        let plan = try session.ledger.planAppAccountToken(original: original, token: token)
        plan.lines.forEach { print(($0 == plan.lines.first ? "" : "  ") + $0) }
        if dryRun { print("dry run: nothing asked of Apple"); return .ok }
        let actions = session.actions, operatorName = options.operatorName, text = reason ?? ""
        try session.run { try await actions.setAppAccountToken(plan, reason: text, operatorName: operatorName) }
        print("set at Apple and in the ledger: \(plan.originalTransactionId) carries \(plan.token)")
        return .ok
    }
}
