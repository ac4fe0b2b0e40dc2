import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// Faults on demand, latency, and the request counters tests use to check concurrency.
@Suite("Simulator faults and counters")
struct SimulatorFaultTests {
    static func receipt(_ fixture: SimulatorFixture) throws -> String {
        try fixture.state.mintUnifiedReceipt(environment: .production, purchases: [
            SimulatedPurchase(productId: "coins.100", type: .consumable, purchaseDate: SimulatorFixture.day(-1)),
        ]).base64
    }

    @Test("a status fault answers verifyReceipt once with that status and is-retryable, then things are normal")
    func statusFault() throws {
        let fixture = try SimulatorFixture()
        let body = SimulatorFixture.body(try Self.receipt(fixture))
        fixture.faults.inject(.status(21005, isRetryable: true))
        fixture.faults.inject(.status(21199, isRetryable: false))
        fixture.faults.inject(.status(21100, isRetryable: nil))
        let id = try fixture.state.mintSignedTransaction(environment: .production, purchase: SimulatorFixture.monthly(SimulatorFixture.day(-1)),
                                                         signedDate: SimulatorFixture.now).transaction.transactionId
        #expect(try fixture.api(.production, "/inApps/v1/transactions/\(id)").status == 200, "status faults skip the Server API")
        let first = try fixture.verify(.production, body: body)
        #expect(try first.int("status") == 21005 && first.bool("is-retryable") == true)
        let second = try fixture.verify(.production, body: body)
        #expect(try second.int("status") == 21199 && second.bool("is-retryable") == false)
        let third = try fixture.verify(.production, body: body)
        #expect(try third.int("status") == 21100 && !third.has("is-retryable"))
        #expect(try fixture.verify(.production, body: body).int("status") == 0)
        #expect(fixture.faults.pending == 0)
        #expect(fixture.faults.requests.compactMap(\.fault).count == 3)
    }

    @Test("HTTP 503 and 429 with the Retry-After text exactly as given (CR/LF stripped)")
    func httpFaults() throws {
        let fixture = try SimulatorFixture()
        fixture.faults.inject(.http(503), times: 2)
        let unavailable = try #require(try exchange(port: fixture.port, method: "POST", path: "/production/verifyReceipt", body: [1]))
        #expect(unavailable.status == 503)
        let apiUnavailable = try fixture.api(.sandbox, "/inApps/v1/transactions/1")
        #expect(try apiUnavailable.status == 503 && apiUnavailable.json().int("errorCode") == 5000001)
        for text in ["2", "-5", "99999999999999999999", "soon", "Wed, 21 Oct 2015 07:28:00 GMT", "1\r\nX-Injected: yes"] {
            fixture.faults.inject(.rateLimited(retryAfter: text))
            let limited = try fixture.api(.sandbox, "/inApps/v1/transactions/1")
            #expect(limited.status == 429)
            #expect(limited.header("Retry-After") == text.replacingOccurrences(of: "\r\n", with: ""))
            #expect(limited.header("X-Injected") == nil)
            #expect(try limited.json().int("errorCode") == 4290000)
        }
    }

    @Test("faults match by path prefix and are used the number of times asked")
    func matching() throws {
        let fixture = try SimulatorFixture()
        let body = SimulatorFixture.body(try Self.receipt(fixture))
        fixture.faults.inject(.status(21005, isRetryable: true), pathPrefix: "/sandbox/", times: 2)
        #expect(try fixture.verify(.production, body: body).int("status") == 0)
        #expect(try fixture.verify(.sandbox, body: body).int("status") == 21005)
        #expect(try fixture.verify(.sandbox, body: body).int("status") == 21005)
        #expect(try fixture.verify(.sandbox, body: body).int("status") == 21008)
        #expect(fixture.faults.requestCount(pathPrefix: "/sandbox/") == 3)
        fixture.faults.inject(.http(500), times: 5)
        fixture.faults.clear()
        #expect(try fixture.verify(.production, body: body).int("status") == 0)
    }

    @Test("a delay fault answers late; a drop closes the connection without a byte")
    func delayAndDrop() throws {
        let fixture = try SimulatorFixture()
        fixture.faults.inject(.delay(0.3))
        let start = Date()
        #expect(try #require(try exchange(port: fixture.port, path: "/")).status == 200)
        #expect(Date().timeIntervalSince(start) >= 0.3)
        fixture.faults.inject(.drop)
        let connection = try RawConnection(port: fixture.port)
        connection.send("POST /production/verifyReceipt HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}")
        let result = connection.readToEnd()
        #expect(result.closed && result.bytes.isEmpty)
        #expect(try #require(try exchange(port: fixture.port, path: "/")).status == 200)
    }

    @Test("latency applies to every request; in-flight counts show the concurrency the client used")
    func latencyAndConcurrency() throws {
        let fixture = try SimulatorFixture()
        fixture.faults.latency = 0.5
        let group = DispatchGroup()
        let statuses = StatusBox()
        let start = Date()
        for _ in 0..<8 {
            group.enter()
            let port = fixture.port
            Thread {
                statuses.add((try? exchange(port: port, path: "/"))?.status ?? -1)  // a failed exchange counts as -1
                group.leave()
            }.start()
        }
        group.wait()
        let seconds = Date().timeIntervalSince(start)
        #expect(statuses.values == Array(repeating: 200, count: 8))
        #expect(seconds >= 0.5 && seconds < 3, "8 requests at once took \(seconds) s (one after another: 4 s)")
        #expect(fixture.faults.requestCount == 8)
        #expect(fixture.faults.maxInFlight == 8)
        #expect(fixture.faults.inFlight == 0)
        fixture.faults.resetCounters()
        fixture.faults.latency = 0
        #expect(try #require(try exchange(port: fixture.port, path: "/")).status == 200)
        #expect(fixture.faults.requestCount == 1 && fixture.faults.maxInFlight == 1)
    }

    @Test("stop() wakes a request sleeping in a long delay")
    func stopDuringDelay() throws {
        let fixture = try SimulatorFixture()
        fixture.faults.inject(.delay(30))
        let connection = try RawConnection(port: fixture.port, receiveTimeout: 10)
        connection.send("GET / HTTP/1.1\r\n\r\n")
        Thread.sleep(forTimeInterval: 0.2)
        let start = Date()
        fixture.simulator.stop()
        #expect(Date().timeIntervalSince(start) < 3)
        #expect(connection.readToEnd().closed)
    }
}

/// Statuses collected from several threads.
final class StatusBox: @unchecked Sendable {
    // `list` is guarded by `lock`.
    private let lock = NSLock()
    private var list: [Int] = []

    func add(_ status: Int) {
        lock.lock()
        list.append(status)
        lock.unlock()
    }

    var values: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
}
