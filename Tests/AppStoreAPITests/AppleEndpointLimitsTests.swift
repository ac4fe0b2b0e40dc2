import Foundation
import Testing
@testable import AppStoreAPI
@testable import ReceiptCore

@Suite("Limits that hold under attack: a misbehaving Apple endpoint")
struct AppleEndpointLimitsTests {
    typealias F = ServerAPIFixtures

    @Test("history paging that cycles between revisions (a, b, a) stops at the first repeat")
    func revisionCycle() async throws {
        let jws = try F.transaction("1")
        let revisions = ["a", "b", "a", "b"]
        let cycling = ScriptedTransport(route: { _, index in F.page([jws], revision: revisions[min(index, 3)], hasMore: true) })
        let error = try await #require(throws: AppStoreError.self) { try await F.client(cycling).0.transactionHistory("1") }
        #expect(error.code == .pagination && error.reason.contains("page 3 repeats revision 'a'"))
        #expect(cycling.requests.count == 3)
    }

    @Test("the page cap is brought inside 1–10,000 whatever is asked; 0 still stops after one page")
    func pageCapBounds() async throws {
        let jws = try F.transaction("1")
        #expect(try F.client(ScriptedTransport([]), maxPages: 10_000_000).0.maxPages == 10_000)
        #expect(try F.client(ScriptedTransport([]), maxPages: -5).0.maxPages == 1)
        let endless = ScriptedTransport(route: { _, index in F.page([jws], revision: "r\(index)", hasMore: true) })
        let error = try await #require(throws: AppStoreError.self) { try await F.client(endless, maxPages: 0).0.transactionHistory("1") }
        #expect(error.code == .pagination && endless.requests.count == 1)
    }

    @Test("Retry-After that is negative, absurdly large or not a number never stalls or breaks a call")
    func hostileRetryAfter() async throws {
        let transport = ScriptedTransport([
            ScriptedTransport.status(429, headers: ["Retry-After": "-30"]),
            ScriptedTransport.status(429, headers: ["Retry-After": "99999999999999999999999999"]),
            ScriptedTransport.status(503, headers: ["Retry-After": "1e9"]),
            F.info(try F.transaction("1")),
        ])
        let sleeps = SleepRecorder()
        let info = try await F.client(transport, sleeps).0.transactionInfo("1")
        // Negative and garbage fall back to the backoff ceiling (random is 1): 0.5 s, then 2 s; huge is cut to 60 s.
        #expect(sleeps.pauses == [.milliseconds(500), .seconds(60), .seconds(2)])
        #expect(info.transaction.transactionId == "1")

        let policy = RetryPolicy()
        let now = AppStoreFixtures.now
        #expect(policy.wait(forRetry: 1, retryAfter: "Fri, 31 Dec 9999 23:59:59 GMT", now: now) == (.seconds(60), .retryAfterCapped))
        #expect(policy.wait(forRetry: 1, retryAfter: String(repeating: "9", count: 10_000), now: now).0 == .seconds(60))
        #expect(policy.wait(forRetry: 1, retryAfter: "0", now: now) == (.zero, .retryAfter))
    }
}
