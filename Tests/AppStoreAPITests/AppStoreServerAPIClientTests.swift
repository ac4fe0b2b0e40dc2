import Foundation
import StoreSimulator
import Testing
@testable import AppStoreAPI
@testable import ReceiptCore

/// Signed data for the Server API tests, from the StoreSimulator's test authority.
enum ServerAPIFixtures {
    static let now = AppStoreFixtures.now
    static let base = URL(string: "http://127.0.0.1:9") ?? URL(fileURLWithPath: "/")
    static let endpoints = AppStoreEndpoints.rooted(at: base)

    static func transaction(_ id: String, environment: String = "Production", bundleId: String = "com.example.game",
                            builder: JWSBuilder? = nil) throws -> String {
        let payload = TransactionPayload(transactionId: id, originalTransactionId: "2000000000000001", bundleId: bundleId,
                                         productId: "pro.monthly", type: "Auto-Renewable Subscription", purchaseDate: now,
                                         expiresDate: now.addingTimeInterval(30 * 86_400), signedDate: now, environment: environment)
        return try (builder ?? JWSBuilder(authority: try TestCertificateAuthority.shared())).signedTransaction(payload)
    }

    static func renewal(environment: String = "Production", builder: JWSBuilder? = nil) throws -> String {
        let payload = RenewalInfoPayload(originalTransactionId: "2000000000000001", productId: "pro.monthly", signedDate: now,
                                         environment: environment)
        return try (builder ?? JWSBuilder(authority: try TestCertificateAuthority.shared())).signedRenewalInfo(payload)
    }

    static func client(_ transport: ScriptedTransport, _ sleeps: SleepRecorder = SleepRecorder(), maxAttempts: Int = 4,
                       maxPages: Int = 50) throws -> (AppStoreServerAPIClient, ServerAPICredentials) {
        let credentials = try ServerAPICredentials(keyId: "2X9R4HXF34", issuerId: "57246542-96fe-1a63-e053-0824d011072a",
                                                   bundleId: "com.example.game", privateKey: try PrivateKey.generateP256())
        let verifier = ReceiptVerifier(trust: try TestCertificateAuthority.shared().trustStore())
        let client = try AppStoreServerAPIClient(endpoints: endpoints, transport: transport, credentials: credentials, verifier: verifier,
                                                 retry: sleeps.policy(maxAttempts: maxAttempts), clock: AppStoreFixtures.clock,
                                                 monotonic: AppStoreFixtures.steppingClock(), maxPages: maxPages)
        return (client, credentials)
    }

    static func notFound() -> ScriptedTransport.Step {
        ScriptedTransport.json(#"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#, status: 404)
    }

    static func info(_ jws: String) -> ScriptedTransport.Step {
        ScriptedTransport.json(#"{"signedTransactionInfo":"\#(jws)"}"#)
    }

    static func page(_ items: [String], revision: String?, hasMore: Bool) -> ScriptedTransport.Step {
        let list = items.map { "\"\($0)\"" }.joined(separator: ",")
        let rev = revision.map { #","revision":"\#($0)""# } ?? ""
        return ScriptedTransport.json(#"{"signedTransactions":[\#(list)],"hasMore":\#(hasMore),"environment":"Production"\#(rev)}"#)
    }
}

@Suite("AppStore: App Store Server API client over a scripted transport")
struct AppStoreServerAPIClientTests {
    typealias F = ServerAPIFixtures

    @Test("Get Transaction Info: path, bearer token, verified transaction")
    func transactionInfo() async throws {
        let transport = ScriptedTransport([F.info(try F.transaction("2000000000000042"))])
        let (client, credentials) = try F.client(transport)
        let info = try await client.transactionInfo("2000000000000042")
        #expect(info.transaction.transactionId == "2000000000000042")
        #expect(info.transaction.verdict.status == .valid)
        #expect(info.environment == .production)
        #expect(info.attempts.map(\.outcome) == [.accepted])
        #expect(info.attempts.first?.endpoint == "http://127.0.0.1:9/production/inApps/v1/transactions/2000000000000042")
        let request = try #require(transport.requests.first)
        #expect(request.method == "GET" && request.header("accept") == "application/json")
        let bearer = try #require(request.header("authorization"))
        #expect(bearer.hasPrefix("Bearer "))
        let (_, claims, input, signature) = try AppStoreServerAPITokenTests.parts(String(bearer.dropFirst(7)))
        #expect(try claims.string("bid") == "com.example.game")
        #expect(try credentials.privateKey.publicKey().verifyES256(rawSignature: signature, message: Array(input.utf8)))
    }

    @Test("4040010 on production falls back to sandbox once; a known environment goes first")
    func environmentFallback() async throws {
        let sandboxJWS = try F.transaction("7", environment: "Sandbox")
        let transport = ScriptedTransport([F.notFound(), F.info(sandboxJWS)])
        let info = try await F.client(transport).0.transactionInfo("7")
        #expect(info.environment == .sandbox)
        #expect(transport.paths == ["/production/inApps/v1/transactions/7", "/sandbox/inApps/v1/transactions/7"])
        #expect(info.attempts.map(\.outcome) == [.redirected(to: .sandbox), .accepted])
        #expect(info.attempts.first?.result == .http(404, apiError: .transactionIdNotFound))

        let known = ScriptedTransport([F.info(sandboxJWS)])
        #expect(try await F.client(known).0.transactionInfo("7", environment: .sandbox).environment == .sandbox)
        #expect(known.paths == ["/sandbox/inApps/v1/transactions/7"])

        let reverse = ScriptedTransport([F.notFound(), F.info(try F.transaction("7"))])
        #expect(try await F.client(reverse).0.transactionInfo("7", environment: .sandbox).environment == .production)
        #expect(reverse.paths == ["/sandbox/inApps/v1/transactions/7", "/production/inApps/v1/transactions/7"])

        let nowhere = ScriptedTransport([F.notFound(), F.notFound(), F.notFound()])
        let error = try await #require(throws: AppStoreError.self) { try await F.client(nowhere).0.transactionInfo("7") }
        #expect(error.code == .appleError && error.apiError == .transactionIdNotFound && error.httpStatus == 404)
        #expect(nowhere.requests.count == 2 && error.attempts.count == 2)
        #expect(error.reason.contains("Transaction id not found."))
    }

    @Test("401 fails at once and says what to check")
    func unauthorized() async throws {
        let transport = ScriptedTransport([ScriptedTransport.status(401, body: "Unauthenticated"), F.info(try F.transaction("1"))])
        let error = try await #require(throws: AppStoreError.self) { try await F.client(transport).0.transactionInfo("1") }
        #expect(error.code == .unauthorized && error.httpStatus == 401 && !error.isTemporary)
        #expect(error.reason.contains("check the key, the issuer id and this machine's clock"))
        #expect(transport.requests.count == 1 && error.attempts.map(\.outcome) == [.refused])
    }

    @Test("429 honours Retry-After; rate limiting on every attempt is .rateLimited")
    func rateLimited() async throws {
        let transport = ScriptedTransport([
            ScriptedTransport.json(#"{"errorCode":4290000,"errorMessage":"Rate limit exceeded."}"#, status: 429, headers: ["Retry-After": "3"]),
            ScriptedTransport.status(429, headers: ["Retry-After": "Sun, 01 Jun 2025 12:00:20 GMT"]),
            ScriptedTransport.status(429, headers: ["retry-after": "86400"]),
            F.info(try F.transaction("1")),
        ])
        let sleeps = SleepRecorder()
        let info = try await F.client(transport, sleeps).0.transactionInfo("1")
        #expect(sleeps.pauses == [.seconds(3), .seconds(20), .seconds(60)])
        #expect(info.attempts.first?.result == .http(429, apiError: .rateLimitExceeded))

        let always = ScriptedTransport(route: { _, _ in ScriptedTransport.status(429) })
        let error = try await #require(throws: AppStoreError.self) { try await F.client(always, maxAttempts: 3).0.transactionInfo("1") }
        #expect(error.code == .rateLimited && error.isTemporary && always.requests.count == 3)
    }

    @Test("Apple's retryable codes and bare 5xx are retried; the other codes are not")
    func retryableCodes() async throws {
        for raw: Int64 in [4040002, 4040004, 4040006, 5000001] {
            let transport = ScriptedTransport([ScriptedTransport.json(#"{"errorCode":\#(raw),"errorMessage":"x"}"#, status: raw >= 5000000 ? 500 : 404),
                                               F.info(try F.transaction("1"))])
            let info = try await F.client(transport).0.transactionInfo("1")
            #expect(transport.requests.count == 2 && info.attempts.first?.outcome == .retried(after: .milliseconds(500)), "\(raw)")
        }
        let bare = ScriptedTransport([ScriptedTransport.status(502), ScriptedTransport.status(503), F.info(try F.transaction("1"))])
        #expect(try await F.client(bare).0.transactionInfo("1").attempts.count == 3)

        for raw: Int64 in [4000006, 4040001, 4040005, 5000000, 4049999] {
            let transport = ScriptedTransport([ScriptedTransport.json(#"{"errorCode":\#(raw),"errorMessage":"x"}"#, status: raw >= 5000000 ? 500 : 400),
                                               F.info(try F.transaction("1"))])
            let error = try await #require(throws: AppStoreError.self) { try await F.client(transport).0.transactionInfo("1") }
            #expect(error.code == .appleError && error.apiError?.rawValue == raw && transport.requests.count == 1, "\(raw)")
        }
        let forbidden = ScriptedTransport([ScriptedTransport.status(403, body: "Forbidden")])
        let error = try await #require(throws: AppStoreError.self) { try await F.client(forbidden).0.transactionInfo("1") }
        #expect(error.code == .httpStatus && error.httpStatus == 403)
    }

    @Test("a signed transaction that does not verify is refused, never returned")
    func unverifiedRefused() async throws {
        var corrupt = JWSBuilder(authority: try TestCertificateAuthority.shared())
        corrupt.corruptSignature = true
        let impostor = JWSBuilder(authority: try TestCertificateAuthority.shared(.impostor))
        let cases: [(String, String)] = [
            (try F.transaction("1", builder: corrupt), "does not verify"),
            (try F.transaction("1", builder: impostor), "does not verify"),
            (try F.transaction("1", environment: "Sandbox"), "signed for environment Sandbox but returned by the production endpoint"),
            (try F.transaction("1", bundleId: "com.other.app"), "belongs to bundle id com.other.app"),
            ("not.a.jws", "does not decode"),
        ]
        for (jws, expected) in cases {
            let transport = ScriptedTransport([F.info(jws)])
            let error = try await #require(throws: AppStoreError.self) { try await F.client(transport).0.transactionInfo("1") }
            #expect(error.code == .unverified && !error.isTemporary, "\(error.reason)")
            #expect(error.reason.contains(expected), "\(error.reason)")
            #expect(transport.requests.count == 1)
        }
        let empty = ScriptedTransport([ScriptedTransport.json(#"{"something":"else"}"#)])
        await #expect(throws: AppStoreError(.badResponse, "")) { try await F.client(empty).0.transactionInfo("1") }
        let html = ScriptedTransport([ScriptedTransport.json("<html>")])
        await #expect(throws: AppStoreError(.badResponse, "")) { try await F.client(html).0.transactionInfo("1") }
    }

    @Test("transaction history follows revision while hasMore, across pages, reporting unverified items")
    func historyPages() async throws {
        var corrupt = JWSBuilder(authority: try TestCertificateAuthority.shared())
        corrupt.corruptSignature = true
        let transport = ScriptedTransport([
            F.page([try F.transaction("1"), try F.transaction("2")], revision: "rev-1", hasMore: true),
            F.page([try F.transaction("3"), try F.transaction("4", builder: corrupt)], revision: "rev+2/x", hasMore: true),
            F.page([try F.transaction("5")], revision: "rev-3", hasMore: false),
        ])
        let list = try await F.client(transport).0.transactionHistory("1")
        #expect(list.transactions.compactMap(\.transactionId) == ["1", "2", "3", "5"])
        #expect(list.rejected.count == 1 && !list.isFullyVerified)
        #expect(list.rejected.first?.location == "page 2 signedTransactions[1]")
        #expect(list.rejected.first?.claimedTransactionId == "4")
        #expect(list.pages == 3 && list.revision == "rev-3" && list.environment == .production)
        #expect(transport.requests.map { $0.url.query ?? "" } == ["", "revision=rev-1", "revision=rev%2B2%2Fx"])
        #expect(Set(transport.paths) == ["/production/inApps/v2/history/1"])
        #expect(list.attempts.count == 3 && list.attempts.allSatisfy { $0.endpoint == "http://127.0.0.1:9/production/inApps/v2/history/1" })
    }

    @Test("the loop guard stops a repeated revision, endless pages, and hasMore without a revision")
    func loopGuard() async throws {
        let jws = try F.transaction("1")
        let repeating = ScriptedTransport(route: { _, _ in F.page([jws], revision: "same", hasMore: true) })
        let repeated = try await #require(throws: AppStoreError.self) { try await F.client(repeating).0.transactionHistory("1") }
        #expect(repeated.code == .pagination && repeated.reason.contains("repeats revision") && repeating.requests.count == 2)

        let endless = ScriptedTransport(route: { _, index in F.page([jws], revision: "r\(index)", hasMore: true) })
        let stopped = try await #require(throws: AppStoreError.self) { try await F.client(endless, maxPages: 5).0.refundHistory("1") }
        #expect(stopped.code == .pagination && endless.requests.count == 5 && stopped.attempts.count == 5)
        #expect(Set(endless.paths) == ["/production/inApps/v2/refund/lookup/1"])

        let noRevision = ScriptedTransport([F.page([jws], revision: nil, hasMore: true)])
        let missing = try await #require(throws: AppStoreError.self) { try await F.client(noRevision).0.transactionHistory("1") }
        #expect(missing.code == .pagination && missing.reason.contains("no revision"))
    }

    @Test("4040010 in the middle of paging is an error, not a switch of environment")
    func noFallbackMidway() async throws {
        let transport = ScriptedTransport([F.page([try F.transaction("1")], revision: "r1", hasMore: true), F.notFound(),
                                           F.page([], revision: "x", hasMore: false)])
        let error = try await #require(throws: AppStoreError.self) { try await F.client(transport).0.transactionHistory("1") }
        #expect(error.apiError == .transactionIdNotFound && transport.requests.count == 2)
        #expect(error.attempts.map(\.outcome) == [.accepted, .refused])
    }

    @Test("refund history falls back to sandbox like the others")
    func refundHistoryFallback() async throws {
        let transport = ScriptedTransport([F.notFound(), F.page([try F.transaction("9", environment: "Sandbox")], revision: "r", hasMore: false)])
        let list = try await F.client(transport).0.refundHistory("9")
        #expect(list.environment == .sandbox && list.transactions.count == 1 && list.isFullyVerified)
        #expect(transport.paths == ["/production/inApps/v2/refund/lookup/9", "/sandbox/inApps/v2/refund/lookup/9"])
    }

    @Test("Look Up Order ID: valid and invalid orders")
    func lookUpOrder() async throws {
        let transport = ScriptedTransport([ScriptedTransport.json(#"{"status":0,"signedTransactions":["\#(try F.transaction("11"))","bogus"]}"#),
                                           ScriptedTransport.json(#"{"status":1}"#)])
        let (client, _) = try F.client(transport)
        let found = try await client.lookUpOrder("MK5TTTVWJH")
        #expect(found.isValidOrder && found.transactions.compactMap(\.transactionId) == ["11"])
        #expect(found.rejected.map(\.location) == ["signedTransactions[1]"])
        let invalid = try await client.lookUpOrder("ZZZZZZZZZZ")
        #expect(!invalid.isValidOrder && invalid.transactions.isEmpty && invalid.orderStatus == 1)
        #expect(transport.paths == ["/production/inApps/v1/lookup/MK5TTTVWJH", "/production/inApps/v1/lookup/ZZZZZZZZZZ"])
        await #expect(throws: ReceiptError(.badValue, "")) { try await client.lookUpOrder("../../v1/transactions/1") }
        #expect(transport.requests.count == 2)
    }

    @Test("Get All Subscription Statuses: verified transactions and renewal infos; unverified ones reported")
    func subscriptionStatuses() async throws {
        var corrupt = JWSBuilder(authority: try TestCertificateAuthority.shared())
        corrupt.corruptSignature = true
        let body = """
        {"environment":"Production","bundleId":"com.example.game","data":[{"subscriptionGroupIdentifier":"21752814","lastTransactions":[
          {"originalTransactionId":"2000000000000001","status":1,"signedTransactionInfo":"\(try F.transaction("21"))","signedRenewalInfo":"\(try F.renewal())"},
          {"originalTransactionId":"2000000000000002","status":2,"signedTransactionInfo":"\(try F.transaction("22"))","signedRenewalInfo":"\(try F.renewal(builder: corrupt))"},
          {"originalTransactionId":"2000000000000003","status":5,"signedTransactionInfo":"\(try F.transaction("23"))"}]}]}
        """
        let transport = ScriptedTransport([ScriptedTransport.json(body)])
        let statuses = try await F.client(transport).0.subscriptionStatuses("2000000000000001")
        #expect(transport.paths == ["/production/inApps/v1/subscriptions/2000000000000001"])
        let group = try #require(statuses.groups.first)
        #expect(group.subscriptionGroupIdentifier == "21752814")
        #expect(group.lastTransactions.map(\.statusName) == ["active", "revoked"])
        #expect(group.lastTransactions.first?.renewalInfo?.renewalInfo.autoRenewProductId == "pro.monthly")
        #expect(group.lastTransactions.last?.renewalInfo == nil)
        #expect(statuses.rejected.map(\.location) == ["data[0].lastTransactions[1].signedRenewalInfo"])
        #expect(!statuses.isFullyVerified)
    }
}
