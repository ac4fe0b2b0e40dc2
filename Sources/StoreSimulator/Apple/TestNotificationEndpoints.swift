import Foundation
import ReceiptCore

/// Request a Test Notification and Get Test Notification Status:
///
///     POST /inApps/v1/notifications/test         → 200 {"testNotificationToken":"<uuid>_<ms>"}
///     GET  /inApps/v1/notifications/test/{token} → 200 {"signedPayload":"<JWS>",
///                                                       "sendAttempts":[{"attemptDate":ms,"sendAttemptResult":"SUCCESS"}]}
///
/// The TEST notification's `data` holds only `appAppleId`, `bundleId` and `environment`. It is
/// POSTed to `SimulatorState.notificationURL` before the answer goes back, so the status shows
/// how that went. Like Apple, when no notification URL is set the request is refused with
/// 404 4040007 and nothing is minted. An unknown token → 404 4040008; one that is not
/// `<uuid>_<digits>` → 400 4000020.
extension ServerAPIEndpoints {
    func requestTestNotification(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        guard state.notificationURL != nil else { throw ServerAPIError.serverNotificationURLNotFound }
        let uuid = UUID().uuidString.lowercased()
        let signedDate = SimulatorRecords.wholeMilliseconds(now)
        let token = "\(uuid)_\(JSONMembers.milliseconds(signedDate))"
        let data = NotificationData(appAppleId: state.appAppleId, bundleId: state.bundleId, environment: environment.rawValue)
        let payload = NotificationPayload(notificationType: "TEST", notificationUUID: uuid, signedDate: signedDate, data: data)
        _ = try state.mint(payload, environment: environment, transactionId: nil, originalTransactionId: nil)
        state.withRecords { $0.testNotifications[token] = uuid }
        return .json(200, .object([("testNotificationToken", .string(token))]))
    }

    func testNotificationStatus(token: String) throws -> HTTPServerResponse {
        let parts = token.split(separator: "_", omittingEmptySubsequences: false)
        guard token.utf8.count <= 100, parts.count == 2, UUID(uuidString: String(parts[0])) != nil,
              !parts[1].isEmpty, parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw ServerAPIError.invalidTestNotificationToken
        }
        let records = state.snapshot()
        guard let uuid = records.testNotifications[token],
              let record = records.notifications.first(where: { $0.notificationUUID == uuid }), record.environment == environment,
              let signed = record.signedPayload else {
            throw ServerAPIError.testNotificationNotFound
        }
        return .json(200, .object([("signedPayload", .string(signed)), ("sendAttempts", Self.attempts(record))]))
    }

    /// A notification's send attempts as Apple lists them.
    static func attempts(_ record: NotificationRecord) -> JSONValue {
        .array((record.sendAttempts ?? []).map { attempt in
            .object([("attemptDate", .int(JSONMembers.milliseconds(attempt.attemptDate))),
                     ("sendAttemptResult", .string(attempt.result.rawValue))])
        })
    }
}
