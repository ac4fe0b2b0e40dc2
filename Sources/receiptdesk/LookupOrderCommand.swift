import Foundation
import PurchaseStore
import AppStoreAPI
import ReceiptCore

/// `receiptdesk lookup-order ORDER_ID --customer ID`: the Apple order id from the customer's email
/// receipt → their transactions (Look Up Order ID), verified and imported for that customer.
enum LookupOrderCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let options = try StoreOptions.take(&args)
        guard let customer = try args.value("--customer") else { throw CommandFailure.usage("lookup-order needs --customer ID") }
        guard let orderId = try args.finish(maxPositionals: 1).first else { throw CommandFailure.usage("lookup-order needs ORDER_ID") }
        let ledger = try options.openLedger(mayCreate: true, checking: [(customer, "customer id"), (orderId, "order id")])
        let connection = try AppleConnection.open(options.configuration, baseTrust: options.trust)
        defer { connection.close() }
        guard let client = connection.service.serverAPI else {
            throw CommandFailure.usage("lookup-order needs the App Store Server API: configure appStore.serverAPI (keyId, issuerId, privateKeyFile)")
        }
        let lookup: ServerAPIOrderLookup
        do {
            lookup = try runThrowing { try await client.lookUpOrder(orderId) }
        } catch let error as AppStoreError {
            throw CommandFailure(status: error.isTemporary ? .temporaryFailure : .unavailable, message: "Apple: \(error.reason)")
        }
        guard lookup.isValidOrder else {
            throw CommandFailure.badInput("Apple does not know order \(orderId) (status \(lookup.orderStatus)): check the id on the customer's email receipt")
        }
        var lines: [String] = []
        var imported: [JSONValue] = []
        for verified in lookup.transactions {
            guard let jws = verified.transaction.jws?.text else { continue }
            let result = try ledger.importArtefact(Array(jws.utf8), customer: customer, source: "lookup-order \(orderId)",
                                                   operatorName: options.operatorName)
            lines.append(ImportCommand.text("transaction \(verified.transactionId ?? "?")", result))
            imported.append(ImportCommand.json("transaction \(verified.transactionId ?? "?")", result))
        }
        for rejected in lookup.rejected { lines.append("not imported: \(rejected)") }
        // Kept, so a search for the id on the invoice email finds these transactions.
        try ledger.recordAppleOrder(orderId, transactionIds: lookup.transactions.compactMap(\.transactionId), operatorName: options.operatorName)
        if options.json {
            print(JSONValue.object([("orderId", .string(orderId)), ("environment", .string(lookup.environment.rawValue)),
                                    ("imported", .array(imported)),
                                    ("rejected", .array(lookup.rejected.map { .string($0.description) }))]).serialized())
        } else {
            print("Apple order \(orderId): \(Plural.of(lookup.transactions.count, "transaction")) (\(lookup.environment.rawValue.lowercased()))")
            lines.forEach { print($0) }
        }
        return lookup.rejected.isEmpty ? .ok : .verificationFailed
    }
}

/// Runs throwing async work from a synchronous command.
func runThrowing<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let result = runCancellable { () async -> Result<T, Error> in
        do { return .success(try await work()) } catch { return .failure(error) }
    }
    return try result.get()
}
