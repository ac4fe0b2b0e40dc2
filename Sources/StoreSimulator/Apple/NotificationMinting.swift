import Foundation
import ReceiptCore

/// Minting App Store Server Notifications V2: each is signed by the authority's JWS chain,
/// recorded with its JWS (so Get Notification History returns it byte for byte), and, when a
/// `notificationURL` is set, POSTed there at once with the attempt recorded.
extension SimulatorState {
    /// A notification about a known transaction (its subscription's renewal info and status
    /// included), recorded in the notification history. `notificationUUID` defaults to a new one.
    public func mintNotification(type: String, subtype: String? = nil, transactionId: String, signedDate: Date,
                                 notificationUUID: String? = nil, consumptionRequestReason: String? = nil) throws -> MintedNotification {
        // Read under the lock, holding no copy of the records: a copy alive while the notification
        // is recorded made each append copy the whole history (quadratic in a large demo).
        let (transaction, read) = try withRecords { records -> (IssuedTransaction, NotificationData) in
            guard let transaction = records.transactions[transactionId] else {
                throw SimulatorError(.invalidRequest, "notification \(type): transaction \(transactionId) was not issued by the simulator")
            }
            let original = transaction.originalTransactionId
            let renewal = records.renewalPayload(original: original, signedDate: signedDate)
            return (transaction, NotificationData(appAppleId: records.appAppleId, bundleId: records.bundleId, bundleVersion: "1.0",
                                                  environment: transaction.environment.rawValue,
                                                  signedTransactionInfo: .payload(transaction.payload(signedDate: signedDate)),
                                                  signedRenewalInfo: renewal.map { .payload($0) },
                                                  status: records.subscriptionStatus(original: original, at: SimulatorRecords.wholeMilliseconds(signedDate))))
        }
        let original = transaction.originalTransactionId
        var data = read
        data.consumptionRequestReason = consumptionRequestReason
        var payload = NotificationPayload(notificationType: type, subtype: subtype,
                                          notificationUUID: notificationUUID ?? UUID().uuidString.lowercased(),
                                          signedDate: signedDate, data: data)
        payload.signedDate = SimulatorRecords.wholeMilliseconds(signedDate)
        return try mint(payload, environment: transaction.environment, transactionId: transactionId, originalTransactionId: original)
    }

    /// Signs `payload`, delivers it when a notification URL is set, and records it.
    func mint(_ payload: NotificationPayload, environment: SimulatorEnvironment, transactionId: String?,
              originalTransactionId: String?) throws -> MintedNotification {
        let signed = try JWSBuilder(authority: authority).signedNotification(payload)
        let body = JSONValue.object([("signedPayload", .string(signed))]).serialized()
        var record = NotificationRecord(notificationUUID: payload.notificationUUID, notificationType: payload.notificationType,
                                        subtype: payload.subtype, transactionId: transactionId, environment: environment,
                                        signedDate: SimulatorRecords.wholeMilliseconds(payload.signedDate))
        record.signedPayload = signed
        record.originalTransactionId = originalTransactionId
        record.sendAttempts = []
        if let url = notificationURL {
            // Sent outside the lock: a slow receiver must not stall the simulator's other requests.
            let result = NotificationDelivery.post(body: body, to: url, timeout: notificationTimeout)
            record.sendAttempts = [NotificationSendAttempt(attemptDate: record.signedDate, result: result)]
        }
        let recorded = record
        withRecords { $0.record(recorded) }
        return MintedNotification(body: body, signedPayload: signed, record: recorded)
    }

    /// The notification `uuid` as recorded, if any.
    public func notification(uuid: String) -> NotificationRecord? {
        withRecords { records in records.notifications.first { $0.notificationUUID == uuid } }
    }
}
