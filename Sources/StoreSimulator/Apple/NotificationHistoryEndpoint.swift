import Foundation
import ReceiptCore

/// Get Notification History:
///
///     POST /inApps/v1/notifications/history[?paginationToken=…]
///          {"startDate":ms,"endDate":ms,"notificationType":"REFUND","notificationSubtype":"…",
///           "transactionId":"…","onlyFailures":false}
///     → 200 {"notificationHistory":[{"signedPayload":"<JWS as minted>",
///                                    "sendAttempts":[{"attemptDate":ms,"sendAttemptResult":"SUCCESS"}]}],
///            "hasMore":true,"paginationToken":"…"}
///
/// This environment's notifications signed in [startDate, endDate), oldest first, a page of the
/// simulator's `historyPageSize`; `paginationToken` only when more follow. `transactionId`
/// selects the notifications about any transaction of that transaction's subscription or
/// purchase; `onlyFailures` those whose every send attempt failed. Errors: startDate missing
/// or not a number 4000015, endDate 4000016, startDate more than 180 days before now 4000012,
/// start after end 4000013, a token this query did not hand out 4000014, an unknown
/// notificationType 4000018, both notificationType and transactionId 4000019.
extension ServerAPIEndpoints {
    /// The notification types Apple documents.
    static let notificationTypes: Set<String> = [
        "CONSUMPTION_REQUEST", "DID_CHANGE_RENEWAL_PREF", "DID_CHANGE_RENEWAL_STATUS", "DID_FAIL_TO_RENEW", "DID_RENEW",
        "EXPIRED", "EXTERNAL_PURCHASE_TOKEN", "GRACE_PERIOD_EXPIRED", "METADATA_UPDATE", "MIGRATION", "OFFER_REDEEMED",
        "ONE_TIME_CHARGE", "PRICE_CHANGE", "PRICE_INCREASE", "REFUND", "REFUND_DECLINED", "REFUND_REVERSED",
        "RENEWAL_EXTENDED", "RENEWAL_EXTENSION", "RESCIND_CONSENT", "REVOKE", "SUBSCRIBED", "TEST",
    ]

    func notificationHistory(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        let body = try ServerAPIRequestBody(request)
        guard let start = try body.optionalInteger("startDate", else: .invalidStartDate), start >= 0 else { throw ServerAPIError.invalidStartDate }
        guard let end = try body.optionalInteger("endDate", else: .invalidEndDate), end >= 0 else { throw ServerAPIError.invalidEndDate }
        guard start >= JSONMembers.milliseconds(now) - 180 * 86_400_000 else { throw ServerAPIError.startDateTooFarInPast }
        guard start <= end else { throw ServerAPIError.startDateAfterEndDate }
        let type = try body.optionalString("notificationType", else: .invalidNotificationType)
        if let type, !Self.notificationTypes.contains(type) { throw ServerAPIError.invalidNotificationType }
        let subtype = try body.optionalString("notificationSubtype", else: .generalBadRequest)
        let transactionId = try body.optionalString("transactionId", else: .invalidTransactionId)
        if type != nil, transactionId != nil { throw ServerAPIError.multipleFiltersSupplied }
        if let transactionId { _ = try validTransactionId(transactionId) }
        let onlyFailures = try body.optionalBool("onlyFailures", else: .generalBadRequest) ?? false

        let records = state.snapshot()
        let original = transactionId.flatMap { records.transaction($0, in: environment)?.originalTransactionId }
        let list = records.notifications.filter { record in
            let signed = JSONMembers.milliseconds(record.signedDate)
            guard record.environment == environment, record.signedPayload != nil, signed >= start, signed < end else { return false }
            if let type, record.notificationType != type { return false }
            if let subtype, record.subtype != subtype { return false }
            if transactionId != nil, original == nil || record.originalTransactionId != original { return false }
            return !onlyFailures || record.hasOnlyFailedAttempts
        }
        let fingerprint = Self.fingerprint(request.body)
        var offset = 0
        if let token = request.queryValue("paginationToken") {
            guard let bytes = try? Base64.decodeURL(token, "paginationToken"),  // every decoding failure is the same 4000014
                  let text = String(validating: bytes, as: UTF8.self) else { throw ServerAPIError.invalidPaginationToken }
            let parts = text.split(separator: ":")
            guard parts.count == 3, parts[0] == "n", parts[2] == fingerprint, let value = Int(parts[1]),
                  (0...list.count).contains(value) else { throw ServerAPIError.invalidPaginationToken }
            offset = value
        }
        let endIndex = min(list.count, offset + max(1, pageSize))
        let page = list[offset..<endIndex]
        var members: [(String, JSONValue)] = [
            ("notificationHistory", .array(page.map { record in
                .object([("signedPayload", .string(record.signedPayload ?? "")), ("sendAttempts", Self.attempts(record))])
            })),
            ("hasMore", .bool(endIndex < list.count)),
        ]
        if endIndex < list.count {
            members.append(("paginationToken", .string(Base64.encodeURL(Array("n:\(endIndex):\(fingerprint)".utf8)))))
        }
        return .json(200, .object(members))
    }

    /// A short digest of the request body, so a token only continues the query that made it.
    static func fingerprint(_ body: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        for byte in body { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return String(hash, radix: 36)
    }
}
