import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk order create --customer ID --order ORDER --product PRODUCT [--account-token TOKEN] [--unlisted-product]`
/// `receiptdesk order fail ORDER --reason TEXT`
enum OrderCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        guard let sub = arguments.first else { throw CommandFailure.usage("order needs a subcommand: create or fail") }
        var args = Arguments(Array(arguments.dropFirst()))
        let options = try StoreOptions.take(&args)
        switch sub {
        case "create":
            guard let customer = try args.value("--customer"), let order = try args.value("--order"),
                  let product = try args.value("--product") else {
                throw CommandFailure.usage("order create needs --customer ID --order ORDER --product PRODUCT")
            }
            let token = try args.value("--account-token")
            let unlisted = args.flag("--unlisted-product")
            _ = try args.finish(maxPositionals: 0)
            let (record, created) = try options.openLedger(mayCreate: true, checking: [(customer, "customer id"), (order, "order id"), (product, "product id")]).createOrder(order, customer: customer, product: product,
                                                                         accountToken: token, allowUnlisted: unlisted, operatorName: options.operatorName)
            if unlisted { printError("receiptdesk order: warning: product \(product) is not in the catalogue: its purchase will grant nothing") }
            print(options.json ? LedgerJSON.order(record).serialized()
                               : "order \(record.orderId) \(created ? "created" : "already exists"): customer \(record.customerId), product \(record.productId), \(record.status)")
            return .ok
        case "fail":
            guard let reason = try args.value("--reason") else { throw CommandFailure.usage("order fail needs --reason TEXT") }
            guard let order = try args.finish(maxPositionals: 1).first else { throw CommandFailure.usage("order fail needs ORDER") }
            let record = try options.openLedger().recordFailedPayment(order, reason: reason, operatorName: options.operatorName)
            print(options.json ? LedgerJSON.order(record).serialized() : "order \(record.orderId): failed payment recorded (\(reason))")
            return .ok
        default:
            throw CommandFailure.usage("unknown order subcommand '\(sub)': use create or fail")
        }
    }
}
