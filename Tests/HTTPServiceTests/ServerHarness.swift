import Foundation
import HTTPService

/// What the tests' handlers share: how often they were called, and a gate that holds a handler
/// until the test opens it.
final class HandlerLog: @unchecked Sendable {
    private let condition = NSCondition()
    private var calls: [String] = []
    private var open = false
    private var waiting = 0

    /// Paths the handler was called for, in order.
    var paths: [String] {
        condition.lock()
        defer { condition.unlock() }
        return calls
    }

    /// Notes a call.
    func called(_ path: String) {
        condition.lock()
        calls.append(path)
        condition.broadcast()
        condition.unlock()
    }

    /// Holds the calling handler until `release()` (or 60 s, so a broken test ends).
    func hold() {
        condition.lock()
        waiting += 1
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: 60)
        while !open, condition.wait(until: deadline) {}
        waiting -= 1
        condition.unlock()
    }

    /// Lets every held handler (and every later one) go on.
    func release() {
        condition.lock()
        open = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until `count` handlers are held; false after 30 s.
    func waitForHeld(_ count: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: 30)
        while waiting < count {
            guard condition.wait(until: deadline) else { return false }
        }
        return true
    }
}

/// Collects the exchanges the server reports.
final class ExchangeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [HTTPExchange] = []

    func record(_ exchange: HTTPExchange) {
        lock.lock()
        items.append(exchange)
        lock.unlock()
    }

    var all: [HTTPExchange] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}

/// Lines gathered from any thread (libmicrohttpd's log, failures on client threads).
final class Lines: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []

    func add(_ line: String) {
        lock.lock()
        items.append(line)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}

enum Harness {
    /// A started server whose handler notes each call, holds requests to paths starting with
    /// "/hold", echoes the body of "/echo-body" as it came, and answers everything else with a
    /// JSON summary of the request.
    static func started(limits: HTTPServer.Limits = HTTPServer.Limits(), log: HandlerLog = HandlerLog(),
                        exchanges: ExchangeLog? = nil, messages: Lines? = nil,
                        answer: (@Sendable (HTTPServerRequest) -> HTTPServerResponse)? = nil) throws -> HTTPServer {
        var observe: (@Sendable (HTTPExchange) -> Void)?
        if let exchanges { observe = { exchanges.record($0) } }
        var logLine: (@Sendable (String) -> Void)?
        if let messages { logLine = { messages.add($0) } }
        let configuration = HTTPServer.Configuration(limits: limits, observe: observe, log: logLine)
        let server = try HTTPServer(configuration: configuration) { request in
            log.called(request.path)
            if request.path.hasPrefix("/hold") { log.hold() }
            if let answer { return answer(request) }
            if request.path == "/echo-body" {
                return HTTPServerResponse(status: 200, headers: [("Content-Type", "application/octet-stream")],
                                          body: request.body, route: "echo")
            }
            return summary(request)
        }
        try server.start()
        return server
    }

    /// `{"method":…,"path":…,"query":[[name,value]…],"headers":{…},"bodyCount":n,"peer":"…"}`.
    static func summary(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let object: [String: Any] = [
            "method": request.method, "path": request.path,
            "query": request.query.map { [$0.name, $0.value] }, "headers": request.headers,
            "bodyCount": request.body.count, "peer": request.peer?.address ?? "",
            "version": request.version,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return .json(200, Array(data), route: "summary")
    }

    /// Waits (at most 30 s) until no request is in flight: a client can read its answer a moment
    /// before the server has finished with the request and reported it. False on the timeout.
    static func settle(_ server: HTTPServer, inFlight: Int = 0) -> Bool {
        for _ in 0..<3000 {
            if server.inFlight == inFlight { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return false
    }

    /// "GET <path> HTTP/1.1" with a Host header and `extra` header lines.
    static func get(_ path: String, _ extra: String = "") -> String {
        "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(extra)\r\n"
    }
}
