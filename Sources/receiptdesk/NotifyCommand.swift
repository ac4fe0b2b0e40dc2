import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk notify FILE|-`: applies an App Store Server Notification V2 body once per
/// notificationUUID (renewals add transactions, REFUND and REVOKE revoke, EXPIRED ends).
enum NotifyCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let options = try StoreOptions.take(&args)
        let path = try args.finish(maxPositionals: 1).first ?? "-"
        if path == "-" && isatty(STDIN_FILENO) == 1 {
            throw CommandFailure.usage("notify needs FILE, or the notification body on standard input")
        }
        let result = try options.openLedger(mayCreate: true, checkingRevocation: true).applyNotification(try InputReader.read(path), operatorName: options.operatorName)
        if options.json {
            print(JSONValue.object([
                ("notificationUUID", .string(result.notificationUUID)), ("type", .string(result.notificationType)),
                ("subtype", .string(result.subtype)), ("applied", .bool(result.applied)), ("customerId", .string(result.customerId)),
                ("outcome", .string(result.outcome)),
                ("changes", .array(result.changes.map { .object([("kind", .string($0.kind.rawValue)),
                                                                  ("transactionId", .string($0.transactionId)),
                                                                  ("customerId", .string($0.customerId)), ("detail", .string($0.detail))]) })),
            ]).serialized())
        } else {
            print("\(result.notificationType)\(result.subtype.map { "/\($0)" } ?? "") \(result.notificationUUID): \(result.outcome)")
            for change in result.changes { print("  \(change.kind.rawValue) \(change.transactionId) (\(change.customerId)): \(change.detail)") }
        }
        return .ok
    }
}
