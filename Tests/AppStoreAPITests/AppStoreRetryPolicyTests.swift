import Foundation
import Testing
@testable import AppStoreAPI
@testable import ReceiptCore

@Suite("AppStore: retry policy, backoff and Retry-After")
struct AppStoreRetryPolicyTests {
    let now = AppStoreFixtures.now

    @Test("the ceiling doubles from base and stops at cap")
    func growthAndCap() {
        let policy = RetryPolicy(maxAttempts: 10, base: .milliseconds(250), cap: .seconds(3), sleep: { _ in }, random: { 1 })
        #expect((1...6).map(policy.ceiling(forRetry:)) == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(3), .seconds(3)])
        #expect(policy.ceiling(forRetry: 1_000_000) == .seconds(3))
        #expect((1...6).map(policy.backoff(forRetry:)) == (1...6).map(policy.ceiling(forRetry:)))
    }

    @Test("full jitter: every wait lies between zero and the ceiling, and follows the random source")
    func jitterBounds() {
        let zero = RetryPolicy(base: .seconds(1), cap: .seconds(8), sleep: { _ in }, random: { 0 })
        #expect((1...5).map(zero.backoff(forRetry:)).allSatisfy { $0 == .zero })
        let half = RetryPolicy(base: .seconds(1), cap: .seconds(8), sleep: { _ in }, random: { 0.5 })
        #expect((1...5).map(half.backoff(forRetry:)) == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(4)])
        // Out-of-range and NaN draws are clamped, never a negative or oversized wait.
        let wild = RetryPolicy(base: .seconds(1), cap: .seconds(8), sleep: { _ in }, random: { 7 })
        #expect(wild.backoff(forRetry: 2) == .seconds(2))
        let negative = RetryPolicy(base: .seconds(1), cap: .seconds(8), sleep: { _ in }, random: { -1 })
        #expect(negative.backoff(forRetry: 2) == .zero)
        let nan = RetryPolicy(base: .seconds(1), cap: .seconds(8), sleep: { _ in }, random: { .nan })
        #expect(nan.backoff(forRetry: 1) == .seconds(1))
        let system = RetryPolicy(base: .seconds(1), cap: .seconds(8), sleep: { _ in })
        for retry in 1...8 {
            for _ in 0..<50 {
                let wait = system.backoff(forRetry: retry)
                #expect(wait >= .zero && wait <= system.ceiling(forRetry: retry))
            }
        }
    }

    @Test("attempts are bounded to 1–10 and cap is never below base")
    func bounds() {
        #expect(RetryPolicy(maxAttempts: 0).maxAttempts == 1)
        #expect(RetryPolicy(maxAttempts: 1000).maxAttempts == 10)
        #expect(RetryPolicy.never.maxAttempts == 1)
        #expect(RetryPolicy(base: .seconds(5), cap: .seconds(1)).cap == .seconds(5))
        #expect(RetryPolicy(base: .seconds(-5)).base == .zero)
    }

    @Test("Retry-After in seconds, huge, negative, fractional and garbage")
    func retryAfterSeconds() {
        #expect(RetryPolicy.parseRetryAfter("5", now: now) == .seconds(5))
        #expect(RetryPolicy.parseRetryAfter(" 0 ", now: now) == .zero)
        #expect(RetryPolicy.parseRetryAfter("99999999999999999999999", now: now) == .seconds(999_999_999))
        for garbage in ["-5", "1.5", "", "soon", "5s", "+5", "0x10", "٣"] {
            #expect(RetryPolicy.parseRetryAfter(garbage, now: now) == nil, "\(garbage)")
        }
        let policy = RetryPolicy(base: .seconds(1), cap: .seconds(8), sleep: { _ in }, random: { 1 })
        #expect(policy.wait(forRetry: 1, retryAfter: "5", now: now) == (.seconds(5), .retryAfter))
        #expect(policy.wait(forRetry: 1, retryAfter: "3600", now: now) == (.seconds(60), .retryAfterCapped))
        #expect(policy.wait(forRetry: 1, retryAfter: "99999999999999999999", now: now) == (.seconds(60), .retryAfterCapped))
        #expect(policy.wait(forRetry: 2, retryAfter: "-5", now: now) == (.seconds(2), .backoff))
        #expect(policy.wait(forRetry: 3, retryAfter: "tomorrow", now: now) == (.seconds(4), .backoff))
        #expect(policy.wait(forRetry: 3, retryAfter: nil, now: now) == (.seconds(4), .backoff))
    }

    @Test("Retry-After as an HTTP-date in its three forms; past dates fall back to the backoff")
    func retryAfterDates() {
        // now = Sun, 01 Jun 2025 12:00:00 GMT
        #expect(RetryPolicy.parseRetryAfter("Sun, 01 Jun 2025 12:00:30 GMT", now: now) == .seconds(30))
        #expect(RetryPolicy.parseRetryAfter("Sunday, 01-Jun-25 12:00:45 GMT", now: now) == .seconds(45))
        #expect(RetryPolicy.parseRetryAfter("Sun Jun  1 12:01:00 2025", now: now) == .seconds(60))
        #expect(RetryPolicy.parseRetryAfter("Sun, 01 Jun 2025 11:59:00 GMT", now: now) == nil)
        #expect(RetryPolicy.parseRetryAfter("Sun, 01 Jun 2025 12:00:00 GMT", now: now) == nil)
        let policy = RetryPolicy(base: .seconds(1), cap: .seconds(8), sleep: { _ in }, random: { 1 })
        #expect(policy.wait(forRetry: 1, retryAfter: "Mon, 02 Jun 2025 12:00:00 GMT", now: now) == (.seconds(60), .retryAfterCapped))
        #expect(policy.wait(forRetry: 1, retryAfter: "Sun, 01 Jun 2025 12:00:10 GMT", now: now) == (.seconds(10), .retryAfter))
        #expect(policy.wait(forRetry: 1, retryAfter: "Sat, 31 May 2025 12:00:00 GMT", now: now) == (.seconds(1), .backoff))
    }

    @Test("HTTP-date parsing refuses what is not a date")
    func httpDates() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == CivilTime(year: 1994, month: 11, day: 6, hour: 8, minute: 49, second: 37).date)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == CivilTime(year: 1994, month: 11, day: 6, hour: 8, minute: 49, second: 37).date)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == CivilTime(year: 1994, month: 11, day: 6, hour: 8, minute: 49, second: 37).date)
        #expect(HTTPDate.parse("Thursday, 01-Jan-05 00:00:00 GMT") == CivilTime(year: 2005, month: 1, day: 1).date)
        for bad in ["Sun, 31 Feb 2025 00:00:00 GMT", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 06 Foo 1994 08:49:37 GMT",
                    "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 06 Nov 1994 08:49:61 GMT", "2025-06-01T12:00:00Z", "",
                    "Sun, 06 Nov 94 08:49:37 GMT", "Sun, -6 Nov 1994 08:49:37 GMT", String(repeating: "x", count: 500)] {
            #expect(HTTPDate.parse(bad) == nil, "\(bad)")
        }
    }
}
