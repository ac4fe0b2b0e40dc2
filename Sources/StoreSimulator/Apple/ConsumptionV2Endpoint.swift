import Foundation
import ReceiptCore

/// Send Consumption Information version 2 (Apple's since 2025; version 1 is deprecated):
///
///     PUT /inApps/v2/transactions/consumption/{transactionId}
///         {"customerConsented":true,"consumptionPercentage":25000,"deliveryStatus":"DELIVERED",
///          "refundPreference":"GRANT_PRORATED","sampleContentProvided":false}
///     → 202, empty body
///
/// `customerConsented` must be `true` (4000035), `deliveryStatus` one of Apple's names (4000036),
/// `sampleContentProvided` a boolean (4000041); `refundPreference` (DECLINE, GRANT_FULL,
/// GRANT_PRORATED) may be left out (4000044 when wrong); `consumptionPercentage` may be left out
/// and is 0…100000 milliunits (Apple's library names no code for it: 4000000 here). Then: unknown
/// here → 404 4040010; a type Apple does not take (a non-renewing subscription) → 400 4000047.
extension ServerAPIEndpoints {
    static let deliveryStatuses: Set<String> = ["DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM",
                                                "UNDELIVERED_SERVER_OUTAGE", "UNDELIVERED_OTHER"]
    static let refundPreferences: Set<String> = ["DECLINE", "GRANT_FULL", "GRANT_PRORATED"]

    func sendConsumptionV2(_ request: HTTPServerRequest, transactionId: String) throws -> HTTPServerResponse {
        _ = try validTransactionId(transactionId)
        let body = try ServerAPIRequestBody(request)
        guard try body.bool("customerConsented", else: .invalidCustomerConsented) else { throw ServerAPIError.invalidCustomerConsented }
        let delivery = try body.string("deliveryStatus", else: .invalidDeliveryStatus)
        guard Self.deliveryStatuses.contains(delivery) else { throw ServerAPIError.invalidDeliveryStatus }
        let sample = try body.bool("sampleContentProvided", else: .invalidSampleContentProvided)
        let preference = try body.optionalString("refundPreference", else: .invalidRefundPreference)
        if let preference, !Self.refundPreferences.contains(preference) { throw ServerAPIError.invalidRefundPreference }
        let percentage = try body.optionalInteger("consumptionPercentage", else: .generalBadRequest)
        if let percentage, !(0...100_000).contains(percentage) { throw ServerAPIError.generalBadRequest }
        var record = ConsumptionRecord(
            transactionId: transactionId, environment: environment, receivedDate: SimulatorRecords.wholeMilliseconds(now),
            customerConsented: true, consumptionStatus: 0, platform: 0, sampleContentProvided: sample, deliveryStatus: 0,
            appAccountToken: "", accountTenure: 0, playTime: 0, lifetimeDollarsRefunded: 0, lifetimeDollarsPurchased: 0, userStatus: 0)
        record.version = 2
        record.consumptionPercentage = percentage
        record.deliveryStatusName = delivery
        record.refundPreferenceName = preference
        let kept = record
        try state.withRecords { records in
            guard let transaction = records.transaction(transactionId, in: environment) else { throw ServerAPIError.transactionIdNotFound }
            guard transaction.productType != .nonRenewing else { throw ServerAPIError.invalidTransactionTypeNotSupported }
            records.consumption.append(kept)
            records.pendingConsumptionRequests[transactionId] = nil
        }
        return HTTPServerResponse(status: 202)
    }
}
