import Foundation
import ReceiptCore

/// The App Store Server API paths under `/production` and `/sandbox`, answering as Apple does
/// with JWS signed by the simulator's JWS chain:
///
///     GET /inApps/v1/transactions/{transactionId}   {"signedTransactionInfo":"<JWS>"}
///     GET /inApps/v1/transactions/appTransactions/{anyTransactionId}   {"signedAppTransactionInfo":"<JWS>"}
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
///
/// The endpoints that act at Apple live in their own files: `ExtensionEndpoints` (PUT
/// extend/{id}, POST extend/mass, GET extend/mass/{productId}/{requestIdentifier}),
/// `ConsumptionEndpoint` (PUT transactions/consumption/{id}), `AppAccountTokenEndpoint` (PUT
/// transactions/{id}/appAccountToken), `FinishTransactionEndpoint` (POST transactions/{id}/finish),
/// `NotificationHistoryEndpoint` (POST notifications/history)
/// and `TestNotificationEndpoints` (POST notifications/test, GET notifications/test/{token}).
/// Their bodies are JSON (`ServerAPIRequestBody`: at most 64 KiB, else 400 4000000). A route
/// that changes the records runs as one `SimulatorState.change`: with a state directory, under
/// its lock, from the latest records another process may have saved, and saved before the
/// answer goes back (a save that fails is the 500 Apple would send); the others answer from
/// memory.
struct ServerAPIEndpoints {
    let state: SimulatorState
    let environment: SimulatorEnvironment
    let now: Date
    let pageSize: Int

    /// One endpoint: its method and path below the environment prefix, `{}` standing for one
    /// path parameter, whether it may change the records, and the function answering it with
    /// the parameters in order.
    struct Route: Sendable {
        let method: String
        let pattern: [String]
        let changes: Bool
        let handle: @Sendable (ServerAPIEndpoints, HTTPServerRequest, [String]) throws -> HTTPServerResponse

        init(_ method: String, _ path: String, changes: Bool = false,
             _ handle: @escaping @Sendable (ServerAPIEndpoints, HTTPServerRequest, [String]) throws -> HTTPServerResponse) {
            self.method = method
            self.pattern = path.split(separator: "/").map(String.init)
            self.changes = changes
            self.handle = handle
        }

        /// The path parameters when `parts` matches, else nil.
        func match(_ parts: [String]) -> [String]? {
            guard parts.count == pattern.count else { return nil }
            var parameters: [String] = []
            for (expected, part) in zip(pattern, parts) {
                if expected == "{}" { parameters.append(part) } else if expected != part { return nil }
            }
            return parameters
        }
    }

    /// Every endpoint; literal paths come before parameter ones (`extend/mass` before `extend/{}`).
    /// A status request of a mass extension counts the poll, so it changes the records too.
    static let routes: [Route] = [
        Route("GET", "inApps/v1/transactions/appTransactions/{}") { e, r, p in try e.appTransactionInfo(p[0]) },
        Route("GET", "inApps/v1/transactions/{}") { e, r, p in try e.transactionInfo(p[0]) },
        Route("PUT", "inApps/v1/transactions/consumption/{}", changes: true) { e, r, p in try e.sendConsumption(r, transactionId: p[0]) },
        Route("PUT", "inApps/v2/transactions/consumption/{}", changes: true) { e, r, p in try e.sendConsumptionV2(r, transactionId: p[0]) },
        Route("PUT", "inApps/v1/transactions/{}/appAccountToken", changes: true) { e, r, p in try e.setAppAccountToken(r, originalTransactionId: p[0]) },
        Route("POST", "inApps/v1/transactions/{}/finish", changes: true) { e, _, p in try e.finishTransaction(transactionId: p[0]) },
        Route("GET", "inApps/v2/history/{}") { e, r, p in try e.history(p[0], r) },
        Route("GET", "inApps/v1/lookup/{}") { e, r, p in try e.lookup(p[0]) },
        Route("POST", "inApps/v1/subscriptions/extend/mass", changes: true) { e, r, p in try e.massExtend(r) },
        Route("GET", "inApps/v1/subscriptions/extend/mass/{}/{}", changes: true) { e, r, p in try e.massExtensionStatus(productId: p[0], requestIdentifier: p[1]) },
        Route("PUT", "inApps/v1/subscriptions/extend/{}", changes: true) { e, r, p in try e.extend(r, originalTransactionId: p[0]) },
        Route("GET", "inApps/v1/subscriptions/{}") { e, r, p in try e.subscriptions(p[0]) },
        Route("GET", "inApps/v2/refund/lookup/{}") { e, r, p in try e.refunds(p[0], r) },
        Route("POST", "inApps/v1/notifications/history") { e, r, p in try e.notificationHistory(r) },
        Route("POST", "inApps/v1/notifications/test", changes: true) { e, r, p in try e.requestTestNotification(r) },
        Route("GET", "inApps/v1/notifications/test/{}") { e, r, p in try e.testNotificationStatus(token: p[0]) },
    ]

    /// Whether `request` (its path below the environment prefix: `components`) goes to a route
    /// that changes the records.
    static func changes(_ request: HTTPServerRequest, components: ArraySlice<Substring>) -> Bool {
        let parts = components.map(String.init)
        return routes.contains { $0.changes && $0.method == request.method && $0.match(parts) != nil }
    }

    /// Answers `request`, whose path below the environment prefix is `components`: a path that
    /// exists with another method is 405 with `Allow`; then the Bearer token is checked; then
    /// the endpoint answers, or 404 when there is none at the path.
    func answer(_ request: HTTPServerRequest, components: [Substring]) -> HTTPServerResponse {
        let parts = components.map(String.init)
        let matches = Self.routes.compactMap { route in route.match(parts).map { (route, $0) } }
        let chosen = matches.first { $0.0.method == request.method }
        if chosen == nil, !matches.isEmpty {
            var allowed: [String] = []
            for (route, _) in matches where !allowed.contains(route.method) { allowed.append(route.method) }
            return .json(405, ServerAPIError.body(4000000, "Method not allowed."), headers: [("Allow", allowed.joined(separator: ", "))])
        }
        if let problem = BearerToken.problem(authorization: request.header("Authorization"), key: state.serverAPIKey,
                                             bundleId: state.bundleId, now: now) {
            return .text(401, "Unauthenticated\n\nRequest ID: SIMULATOR.0.0\n", headers: [("X-Simulator-Reason", problem)])
        }
        guard let (route, parameters) = chosen else { return .error(404, "no App Store Server API endpoint at \(request.path)") }
        do {
            return try route.changes ? state.change { try route.handle(self, request, parameters) } : route.handle(self, request, parameters)
        } catch let error as ServerAPIError {
            return .json(error.status, ServerAPIError.body(error.code, error.message))
        } catch {
            return .json(500, ServerAPIError.body(5000000, "An unknown error occurred."))
        }
    }

    private func transactionInfo(_ id: String) throws -> HTTPServerResponse {
        let transaction = try known(id, state.snapshot())
        return .json(200, .object([("signedTransactionInfo", .string(try sign(transaction)))]))
    }

    /// Get App Transaction Info: the app transaction of the account behind any of its transaction
    /// ids, original transaction ids or its app transaction id.
    private func appTransactionInfo(_ id: String) throws -> HTTPServerResponse {
        let records = state.snapshot()
        guard !id.isEmpty, id.count <= 32, id.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw ServerAPIError(status: 400, code: 4000006, message: "Invalid transaction id.")
        }
        guard let account = records.account(anyTransactionId: id, in: environment) else {
            throw ServerAPIError.transactionIdNotFound
        }
        guard let app = records.appTransaction(account: account, environment: environment, signedDate: now) else {
            throw ServerAPIError(status: 404, code: 4040019, message: "No AppTransaction exists for the customer.")
        }
        return .json(200, .object([("signedAppTransactionInfo", .string(try JWSBuilder(authority: state.authority).signedAppTransaction(app)))]))
    }

    private func history(_ id: String, _ request: HTTPServerRequest) throws -> HTTPServerResponse {
        let records = state.snapshot()
        _ = try knownAccount(id, records)  // any of a transaction, original transaction or app transaction id
        var list = records.accountHistory(of: id, in: environment) ?? []
        if request.queryValue("sort") == "DESCENDING" { list.reverse() }
        let page = try Page(list, revision: request.queryValue("revision"), size: pageSize)
        return .json(200, .object([
            ("revision", .string(page.revision)), ("hasMore", .bool(page.hasMore)), ("bundleId", .string(records.bundleId)),
            ("appAppleId", .int(records.appAppleId)), ("environment", .string(environment.rawValue)),
            ("signedTransactions", .array(try page.items.map { .string(try sign($0)) })),
        ]))
    }

    private func lookup(_ orderId: String) throws -> HTTPServerResponse {
        let records = state.snapshot()
        let list = records.transactions(orderId: orderId, in: environment)
        return .json(200, .object([("status", .int(list.isEmpty ? 1 : 0)),
                                   ("signedTransactions", .array(try list.map { .string(try sign($0)) }))]))
    }

    private func subscriptions(_ id: String) throws -> HTTPServerResponse {
        let records = state.snapshot()
        _ = try knownAccount(id, records)  // any of a transaction, original transaction or app transaction id
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

    private func refunds(_ id: String, _ request: HTTPServerRequest) throws -> HTTPServerResponse {
        let records = state.snapshot()
        _ = try knownAccount(id, records)  // any of a transaction, original transaction or app transaction id
        let refunded = (records.accountHistory(of: id, in: environment) ?? []).filter(\.isRevoked)
        let page = try Page(refunded, revision: request.queryValue("revision"), size: pageSize)
        return .json(200, .object([
            ("signedTransactions", .array(try page.items.map { .string(try sign($0)) })),
            ("revision", .string(page.revision)), ("hasMore", .bool(page.hasMore)),
        ]))
    }

    /// The transaction `id` in this environment, or the error Apple answers.
    func known(_ id: String, _ records: SimulatorRecords) throws -> IssuedTransaction {
        guard !id.isEmpty, id.count <= 32, id.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw ServerAPIError(status: 400, code: 4000006, message: "Invalid transaction id.")
        }
        guard let transaction = records.transaction(id, in: environment) else {
            throw ServerAPIError(status: 404, code: 4040010, message: "Transaction id not found.")
        }
        return transaction
    }

    /// The account behind `id`, any of a transaction id, an original transaction id or an app
    /// transaction id (`anyTransactionId`, API 1.20: transaction history, subscription statuses
    /// and refund look-up take any of them); 400 4000006 when it is not one, 404 4040010 unknown.
    func knownAccount(_ id: String, _ records: SimulatorRecords) throws -> String {
        guard !id.isEmpty, id.count <= 32, id.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw ServerAPIError(status: 400, code: 4000006, message: "Invalid transaction id.")
        }
        guard let account = records.account(anyTransactionId: id, in: environment) else {
            throw ServerAPIError(status: 404, code: 4040010, message: "Transaction id not found.")
        }
        return account
    }

    func sign(_ transaction: IssuedTransaction) throws -> String {
        try JWSBuilder(authority: state.authority).signedTransaction(transaction.payload(signedDate: now))
    }
}
