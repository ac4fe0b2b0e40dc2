import Foundation
import ReceiptCore

/// Extending subscription renewal dates, as Apple does:
///
///     PUT  /inApps/v1/subscriptions/extend/{originalTransactionId}
///          {"extendByDays":30,"extendReasonCode":1,"requestIdentifier":"<uuid>"}
///       →  200 {"originalTransactionId":"…","webOrderLineItemId":"…","success":true,"effectiveDate":<ms>}
///     POST /inApps/v1/subscriptions/extend/mass
///          {"extendByDays":..,"extendReasonCode":..,"requestIdentifier":"<uuid>","productId":"…",
///           "storefrontCountryCodes":["USA"]}
///       →  200 {"requestIdentifier":"…"}
///     GET  /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}
///       →  200 {"requestIdentifier":"…","complete":false,"succeededCount":n,"failedCount":n}
///
/// Body errors: `extendByDays` not 1…90 → 4000009, `extendReasonCode` not 0…3 → 4000010,
/// `requestIdentifier` not a UUID → 4000011, an unknown `productId` → 4000023. A non-numeric
/// original → 4000008; unknown here → 404 4040005; not an active auto-renewable subscription
/// → 403 4030004; twice or 180 days extended in the past 365 days → 403 4030005. The same
/// `requestIdentifier` again answers as the first time, without extending again.
///
/// A mass request completes on the `massExtensionStatusPolls`-th status request (counts grow
/// before that); then each eligible subscription is extended (those at their yearly limit count
/// as failed), each success mints `RENEWAL_EXTENDED` and the request one `RENEWAL_EXTENSION`
/// `SUMMARY` whose payload carries `summary` instead of `data`.
extension ServerAPIEndpoints {
    /// The three members every extension request carries.
    private struct ExtensionTerms {
        let days: Int64
        let reasonCode: Int64
        let requestIdentifier: String

        init(_ body: ServerAPIRequestBody) throws {
            days = try body.integer("extendByDays", in: 1...90, else: .invalidExtendByDays)
            reasonCode = try body.integer("extendReasonCode", in: 0...3, else: .invalidExtendReasonCode)
            requestIdentifier = try body.uuid("requestIdentifier", else: .invalidRequestIdentifier)
        }
    }

    func extend(_ request: HTTPServerRequest, originalTransactionId original: String) throws -> HTTPServerResponse {
        guard !original.isEmpty, original.count <= 32, original.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw ServerAPIError.invalidOriginalTransactionId
        }
        let terms = try ExtensionTerms(ServerAPIRequestBody(request))
        let outcome: (granted: SubscriptionExtension, latest: IssuedTransaction?) = try state.withRecords { records in
            if let earlier = records.extensionGranted(requestIdentifier: terms.requestIdentifier, original: original) {
                return (earlier, nil)
            }
            let (granted, latest) = try records.extend(original: original, environment: environment, days: terms.days,
                                                       reasonCode: terms.reasonCode, requestIdentifier: terms.requestIdentifier, now: now)
            return (granted, latest)
        }
        if let latest = outcome.latest {
            _ = try state.mintNotification(type: "RENEWAL_EXTENDED", transactionId: latest.transactionId, signedDate: now)
        }
        var members = JSONMembers()
        members.add("originalTransactionId", original)
        members.add("webOrderLineItemId", outcome.granted.webOrderLineItemId)
        members.add("success", true)
        members.add("effectiveDate", milliseconds: outcome.granted.effectiveDate)
        return .json(200, members.object)
    }

    func massExtend(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        let body = try ServerAPIRequestBody(request)
        let terms = try ExtensionTerms(body)
        let productId = try body.string("productId", else: .invalidProductId)
        let storefronts = try body.optionalStrings("storefrontCountryCodes", else: .generalBadRequest)
        if let storefronts, storefronts.contains(where: { $0.count != 3 || !$0.utf8.allSatisfy({ (0x41...0x5A).contains($0) }) }) {
            throw ServerAPIError.generalBadRequest
        }
        try state.withRecords { records in
            guard records.transactions.values.contains(where: {
                $0.productId == productId && $0.productType == .autoRenewable && $0.environment == environment
            }) else { throw ServerAPIError.invalidProductId }
            // The same request identifier again answers as the first time.
            if records.massExtensions[terms.requestIdentifier] != nil { return }
            records.massExtensions[terms.requestIdentifier] = MassExtensionRequest(
                requestIdentifier: terms.requestIdentifier, environment: environment, productId: productId,
                storefrontCountryCodes: storefronts, days: terms.days, reasonCode: terms.reasonCode,
                requestDate: SimulatorRecords.wholeMilliseconds(now), statusPolls: 0, completeDate: nil, succeededCount: 0, failedCount: 0)
        }
        return HTTPServerResponse.json(200, .object([("requestIdentifier", .string(terms.requestIdentifier))]))
    }

    func massExtensionStatus(productId: String, requestIdentifier: String) throws -> HTTPServerResponse {
        let polls = state.massExtensionStatusPolls
        let (request, extended, completed) = try state.withRecords { records -> (MassExtensionRequest, [IssuedTransaction], Bool) in
            guard var request = records.massExtensions[requestIdentifier.lowercased()], request.productId == productId,
                  request.environment == environment else {
                throw ServerAPIError.statusRequestNotFound
            }
            var extended: [IssuedTransaction] = []
            var completed = false
            if request.completeDate == nil {
                request.statusPolls += 1
                let eligible = records.massExtensionEligible(productId: productId, environment: environment,
                                                             storefronts: request.storefrontCountryCodes, now: now)
                if request.statusPolls >= polls {
                    var failed: Int64 = 0
                    for original in eligible {
                        do {
                            extended.append(try records.extend(original: original, environment: environment, days: request.days,
                                                               reasonCode: request.reasonCode,
                                                               requestIdentifier: request.requestIdentifier, now: now).1)
                        } catch {
                            failed += 1  // at the yearly limit
                        }
                    }
                    request.succeededCount = Int64(extended.count)
                    request.failedCount = failed
                    request.completeDate = SimulatorRecords.wholeMilliseconds(now)
                    completed = true
                } else {
                    request.succeededCount = Int64(eligible.count * request.statusPolls / polls)
                }
            }
            records.massExtensions[request.requestIdentifier] = request
            return (request, extended, completed)
        }
        if completed {
            for latest in extended {
                _ = try state.mintNotification(type: "RENEWAL_EXTENDED", transactionId: latest.transactionId, signedDate: now)
            }
            _ = try mintSummary(request)
        }
        var members = JSONMembers()
        members.add("requestIdentifier", request.requestIdentifier)
        members.add("complete", request.completeDate != nil)
        members.add("completeDate", milliseconds: request.completeDate)
        members.add("succeededCount", request.succeededCount)
        members.add("failedCount", request.failedCount)
        return .json(200, members.object)
    }

    /// The `RENEWAL_EXTENSION`/`SUMMARY` notification of a completed mass extension.
    private func mintSummary(_ request: MassExtensionRequest) throws -> MintedNotification {
        var summary = JSONMembers()
        summary.add("requestIdentifier", request.requestIdentifier)
        summary.add("environment", request.environment.rawValue)
        summary.add("appAppleId", state.appAppleId)
        summary.add("bundleId", state.bundleId)
        summary.add("productId", request.productId)
        summary.add("storefrontCountryCodes", JSONValue.array((request.storefrontCountryCodes ?? [SimulatorRecords.storefront]).map { .string($0) }))
        summary.add("failedCount", request.failedCount)
        summary.add("succeededCount", request.succeededCount)
        var payload = NotificationPayload(notificationType: "RENEWAL_EXTENSION", subtype: "SUMMARY",
                                          notificationUUID: UUID().uuidString.lowercased(),
                                          signedDate: SimulatorRecords.wholeMilliseconds(now), data: nil)
        payload.extraMembers = [("summary", summary.object)]
        return try state.mint(payload, environment: request.environment, transactionId: nil, originalTransactionId: nil)
    }
}
