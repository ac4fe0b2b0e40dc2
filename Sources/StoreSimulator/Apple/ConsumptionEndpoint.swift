import Foundation
import ReceiptCore

/// Send Consumption Information, answering a `CONSUMPTION_REQUEST`:
///
///     PUT /inApps/v1/transactions/consumption/{transactionId}
///         {"customerConsented":true,"consumptionStatus":0,"platform":1,"sampleContentProvided":false,
///          "deliveryStatus":0,"appAccountToken":"","accountTenure":0,"playTime":0,
///          "lifetimeDollarsRefunded":0,"lifetimeDollarsPurchased":0,"userStatus":1,"refundPreference":0}
///     → 202, empty body
///
/// Each member missing or out of range is 400 with its own code (4000032…4000042, 4000044 for
/// `refundPreference`, which may be left out); `customerConsented` must be `true` (4000035);
/// `appAccountToken` is a UUID or "" (4000033). Then: unknown here → 404 4040010; neither a
/// consumable nor an auto-renewable subscription → 400 4000043. What was sent is kept
/// (`SimulatorState.consumptionRecords(transactionId:)`) and settles a pending request.
extension ServerAPIEndpoints {
    func sendConsumption(_ request: HTTPServerRequest, transactionId: String) throws -> HTTPServerResponse {
        _ = try validTransactionId(transactionId)
        let body = try ServerAPIRequestBody(request)
        guard try body.bool("customerConsented", else: .invalidCustomerConsented) else { throw ServerAPIError.invalidCustomerConsented }
        let token = try body.string("appAccountToken", else: .invalidAppAccountToken)
        guard token.isEmpty || UUID(uuidString: token) != nil else { throw ServerAPIError.invalidAppAccountToken }
        var record = ConsumptionRecord(
            transactionId: transactionId, environment: environment, receivedDate: SimulatorRecords.wholeMilliseconds(now),
            customerConsented: true,
            consumptionStatus: try body.integer("consumptionStatus", in: 0...3, else: .invalidConsumptionStatus),
            platform: try body.integer("platform", in: 0...2, else: .invalidPlatform),
            sampleContentProvided: try body.bool("sampleContentProvided", else: .invalidSampleContentProvided),
            deliveryStatus: try body.integer("deliveryStatus", in: 0...5, else: .invalidDeliveryStatus),
            appAccountToken: token.lowercased(),
            accountTenure: try body.integer("accountTenure", in: 0...7, else: .invalidAccountTenure),
            playTime: try body.integer("playTime", in: 0...7, else: .invalidPlayTime),
            lifetimeDollarsRefunded: try body.integer("lifetimeDollarsRefunded", in: 0...7, else: .invalidLifetimeDollarsRefunded),
            lifetimeDollarsPurchased: try body.integer("lifetimeDollarsPurchased", in: 0...7, else: .invalidLifetimeDollarsPurchased),
            userStatus: try body.integer("userStatus", in: 0...4, else: .invalidUserStatus))
        if let preference = try body.optionalInteger("refundPreference", else: .invalidRefundPreference) {
            guard (0...3).contains(preference) else { throw ServerAPIError.invalidRefundPreference }
            record.refundPreference = preference
        }
        let kept = record
        try state.withRecords { records in
            guard let transaction = records.transaction(transactionId, in: environment) else { throw ServerAPIError.transactionIdNotFound }
            guard transaction.productType == .consumable || transaction.productType == .autoRenewable else {
                throw ServerAPIError.invalidTransactionNotConsumable
            }
            records.consumption.append(kept)
            records.pendingConsumptionRequests[transactionId] = nil
        }
        return HTTPServerResponse(status: 202)
    }

    /// `id` when it is a transaction id (1…32 digits), else 400 4000006.
    func validTransactionId(_ id: String) throws -> String {
        guard !id.isEmpty, id.count <= 32, id.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw ServerAPIError.invalidTransactionId
        }
        return id
    }
}
