import Foundation
import ReceiptCore

/// The App Store Server API paths under `/production` and `/sandbox`, answering as Apple does
/// with JWS signed by the simulator's JWS chain:
///
///     GET /inApps/v1/transactions/{transactionId}   {"signedTransactionInfo":"<JWS>"}
///     GET /inApps/v2/history/{transactionId}        {"revision":"…","hasMore":true,"bundleId":"…","appAppleId":1,
///                                                    "environment":"Sandbox","signedTransactions":["<JWS>",…]}
///     GET /inApps/v1/lookup/{orderId}               {"status":0,"signedTransactions":[…]}   (status 1: no such order)
///     GET /inApps/v1/subscriptions/{transactionId}  {"environment":"Sandbox","bundleId":"…","appAppleId":1,
///                                                    "data":[{"subscriptionGroupIdentifier":"pro","lastTransactions":[
///                                                      {"originalTransactionId":"…","status":1,
///                                                       "signedTransactionInfo":"<JWS>","signedRenewalInfo":"<JWS>"}]}]}
///     GET /inApps/v2/refund/lookup/{transactionId}  {"signedTransactions":[…],"revision":"…","hasMore":false}
///
/// Every request needs a valid Bearer token (`BearerToken`), else 401 with Apple's text body
/// (the reason in `X-Simulator-Reason`). History and refund look-ups return the whole account's
/// transactions, oldest first (`sort=DESCENDING` for newest first), `pageSize` a page, the next
/// page asked for with the `revision` of the last. A transaction unknown in this environment →
/// 404 `{"errorCode":4040010,"errorMessage":"Transaction id not found."}`; an id that is not a
/// number → 400 with 4000006.
struct ServerAPIEndpoints {
    let state: SimulatorState
    let environment: SimulatorEnvironment
    let now: Date
    let pageSize: Int

    /// Answers `request`, whose path below the environment prefix is `components`.
    func answer(_ request: HTTPServerRequest, components: [Substring]) -> HTTPServerResponse {
        guard request.method == "GET" else {
            return .json(405, ServerAPIError.body(4000000, "Method not allowed."), headers: [("Allow", "GET")])
        }
        let records = state.snapshot()
        if let problem = BearerToken.problem(authorization: request.header("Authorization"), key: state.serverAPIKey,
                                             bundleId: records.bundleId, now: now) {
            return .text(401, "Unauthenticated\n\nRequest ID: SIMULATOR.0.0\n", headers: [("X-Simulator-Reason", problem)])
        }
        do {
            let parts = components.map(String.init)
            let id = parts.count > 1 ? parts[parts.count - 1] : ""
            switch Array(parts.dropLast()) {
            case ["inApps", "v1", "transactions"]: return try transactionInfo(id, records)
            case ["inApps", "v2", "history"]: return try history(id, request, records)
            case ["inApps", "v1", "lookup"]: return try lookup(id, records)
            case ["inApps", "v1", "subscriptions"]: return try subscriptions(id, records)
            case ["inApps", "v2", "refund", "lookup"]: return try refunds(id, request, records)
            default: return .error(404, "no App Store Server API endpoint at \(request.path)")
            }
        } catch let error as ServerAPIError {
            return .json(error.status, ServerAPIError.body(error.code, error.message))
        } catch {
            return .json(500, ServerAPIError.body(5000000, "An unknown error occurred."))
        }
    }

    private func transactionInfo(_ id: String, _ records: SimulatorRecords) throws -> HTTPServerResponse {
        let transaction = try known(id, records)
        return .json(200, .object([("signedTransactionInfo", .string(try sign(transaction)))]))
    }

    private func history(_ id: String, _ request: HTTPServerRequest, _ records: SimulatorRecords) throws -> HTTPServerResponse {
        _ = try known(id, records)
        var list = records.accountHistory(of: id, in: environment) ?? []
        if request.queryValue("sort") == "DESCENDING" { list.reverse() }
        let page = try Page(list, revision: request.queryValue("revision"), size: pageSize)
        return .json(200, .object([
            ("revision", .string(page.revision)), ("hasMore", .bool(page.hasMore)), ("bundleId", .string(records.bundleId)),
            ("appAppleId", .int(records.appAppleId)), ("environment", .string(environment.rawValue)),
            ("signedTransactions", .array(try page.items.map { .string(try sign($0)) })),
        ]))
    }

    private func lookup(_ orderId: String, _ records: SimulatorRecords) throws -> HTTPServerResponse {
        let list = records.transactions(orderId: orderId, in: environment)
        return .json(200, .object([("status", .int(list.isEmpty ? 1 : 0)),
                                   ("signedTransactions", .array(try list.map { .string(try sign($0)) }))]))
    }

    private func subscriptions(_ id: String, _ records: SimulatorRecords) throws -> HTTPServerResponse {
        _ = try known(id, records)
        let history = records.accountHistory(of: id, in: environment) ?? []
        var groups: [(String, [JSONValue])] = []
        for original in SimulatorRecords.subscriptionOriginals(history) {
            guard let latest = records.latestTransaction(original: original),
                  let status = records.subscriptionStatus(original: original, at: now) else { continue }
            var item: [(String, JSONValue)] = [("originalTransactionId", .string(original)), ("status", .int(status)),
                                               ("signedTransactionInfo", .string(try sign(latest)))]
            if let renewal = records.renewalPayload(original: original, signedDate: now) {
                item.append(("signedRenewalInfo", .string(try JWSBuilder(authority: state.authority).signedRenewalInfo(renewal))))
            }
            let group = latest.subscriptionGroupIdentifier ?? latest.productId
            if let index = groups.firstIndex(where: { $0.0 == group }) {
                groups[index].1.append(.object(item))
            } else {
                groups.append((group, [.object(item)]))
            }
        }
        return .json(200, .object([
            ("environment", .string(environment.rawValue)), ("bundleId", .string(records.bundleId)),
            ("appAppleId", .int(records.appAppleId)),
            ("data", .array(groups.map { .object([("subscriptionGroupIdentifier", .string($0.0)), ("lastTransactions", .array($0.1))]) })),
        ]))
    }

    private func refunds(_ id: String, _ request: HTTPServerRequest, _ records: SimulatorRecords) throws -> HTTPServerResponse {
        _ = try known(id, records)
        let refunded = (records.accountHistory(of: id, in: environment) ?? []).filter(\.isRevoked)
        let page = try Page(refunded, revision: request.queryValue("revision"), size: pageSize)
        return .json(200, .object([
            ("signedTransactions", .array(try page.items.map { .string(try sign($0)) })),
            ("revision", .string(page.revision)), ("hasMore", .bool(page.hasMore)),
        ]))
    }

    /// The transaction `id` in this environment, or the error Apple answers.
    private func known(_ id: String, _ records: SimulatorRecords) throws -> IssuedTransaction {
        guard !id.isEmpty, id.count <= 32, id.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw ServerAPIError(status: 400, code: 4000006, message: "Invalid transaction id.")
        }
        guard let transaction = records.transaction(id, in: environment) else {
            throw ServerAPIError(status: 404, code: 4040010, message: "Transaction id not found.")
        }
        return transaction
    }

    private func sign(_ transaction: IssuedTransaction) throws -> String {
        try JWSBuilder(authority: state.authority).signedTransaction(transaction.payload(signedDate: now))
    }
}

/// One page of a paginated answer. The revision is opaque to clients (base64url of `o:<offset>`);
/// the last page's revision points past the end, where new transactions will appear.
struct Page {
    let items: [IssuedTransaction]
    let revision: String
    let hasMore: Bool

    init(_ list: [IssuedTransaction], revision: String?, size: Int) throws {
        var offset = 0
        if let revision {
            guard let bytes = try? Base64.decodeURL(revision, "revision"),  // any decoding failure is the same 4000005
                  let text = String(validating: bytes, as: UTF8.self), text.hasPrefix("o:"),
                  let value = Int(text.dropFirst(2)), value >= 0 else {
                throw ServerAPIError(status: 400, code: 4000005, message: "Invalid request revision.")
            }
            offset = min(value, list.count)
        }
        let end = offset + min(max(1, size), list.count - offset)
        items = Array(list[offset..<end])
        hasMore = end < list.count
        self.revision = Base64.encodeURL(Array("o:\(end)".utf8))
    }
}

/// An App Store Server API error answer: `{"errorCode":4040010,"errorMessage":"Transaction id not found."}`.
struct ServerAPIError: Error {
    let status: Int
    let code: Int64
    let message: String

    static func body(_ code: Int64, _ message: String) -> JSONValue {
        .object([("errorCode", .int(code)), ("errorMessage", .string(message))])
    }

    /// What Apple sends with an HTTP status the simulator was told to fail with.
    static func forStatus(_ status: Int) -> JSONValue {
        switch status {
        case 429: return body(4290000, "Rate limit exceeded.")
        case 500: return body(5000000, "An unknown error occurred.")
        case 500...599: return body(5000001, "An unknown error occurred. Please try again.")
        case 404: return body(4040010, "Transaction id not found.")
        default: return body(4000000, "An error occurred.")
        }
    }
}
