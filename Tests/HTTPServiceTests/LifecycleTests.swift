import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import HTTPService
import Testing

extension HTTPServiceTests {
    /// Starting, stopping, and surviving clients that do not speak HTTP.
    @Suite("life cycle and hostile input")
    struct LifecycleTests {
        @Test("stop(grace:) with a handler still blocked: new connections are refused, the blocked request is answered, stop twice is harmless")
        func gracefulStop() throws {
            let log = HandlerLog()
            let contextsBefore = RequestContext.liveCount
            let server = try Harness.started(log: log)
            let port = server.port
            let blocked = try RawClient(port: port)
            blocked.send(Harness.get("/hold"))
            #expect(log.waitForHeld(1))
            let idle = try RawClient(port: port)
            idle.send(Harness.get("/before"))
            #expect(idle.readResponse()?.headers["connection"] != "close")

            let stopped = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                server.stop(grace: .seconds(60))
                stopped.signal()
            }
            var refused = false
            for _ in 0..<600 where !refused {
                refused = RawClient.isRefused(port: port)
                if !refused { Thread.sleep(forTimeInterval: 0.05) }
            }
            #expect(refused, "a new connection was still accepted while stopping")
            #expect(stopped.wait(timeout: .now() + 0.2) == .timedOut, "stop returned before the blocked request was over")
            #expect(server.inFlight == 1)

            log.release()
            let answer = try #require(blocked.readResponse())
            #expect(answer.status == 200 && answer.headers["connection"] == "close")
            #expect(stopped.wait(timeout: .now() + 60) == .success)
            #expect(idle.readToEnd().closed, "the idle keep-alive connection is closed by the stop")
            server.stop()
            server.stop(grace: .zero)
            #expect(RawClient.isRefused(port: port))
            #expect(server.inFlight == 0 && server.openConnections == 0)
            #expect(RequestContext.liveCount == contextsBefore, "every request context is released once")
        }

        @Test("start twice is an error, a port in use says so, stop before start and deinit while running are harmless")
        func lifecycle() throws {
            let server = try Harness.started()
            #expect(throws: HTTPServiceError(.lifecycle, "")) { try server.start() }
            let clash = try HTTPServer(configuration: .init(port: server.port)) { _ in .text(200, "") }
            do {
                try clash.start()
                Issue.record("a second server started on port \(server.port)")
            } catch let error as HTTPServiceError {
                #expect(error.code == .startFailed)
                #expect(error.reason.contains("\(server.port)") && error.reason.contains("in use"), "\(error.reason)")
            }
            server.stop()
            #expect(throws: HTTPServiceError(.lifecycle, "")) { try server.start() }
            let never = try HTTPServer { _ in .text(200, "") }
            never.stop()

            var running: HTTPServer? = try Harness.started()
            let port = try #require(running?.port)
            running = nil
            #expect(RawClient.isRefused(port: port), "a server dropped while running still listens")
        }

        @Test("IPv6 loopback serves, and the peer reads ::1, when the machine has IPv6")
        func ipv6() throws {
            let server = try HTTPServer(configuration: .init(host: "[::1]")) { request in .text(200, request.peer?.address ?? "") }
            do { try server.start() } catch let error as HTTPServiceError where error.code == .startFailed {
                return  // no IPv6 loopback on this machine
            }
            defer { server.stop() }
            let client = try RawClient(port: server.port, ipv6: true)
            client.send("GET /six HTTP/1.1\r\nHost: [::1]\r\n\r\n")
            let response = try #require(client.readResponse())
            #expect(response.status == 200 && String(decoding: response.body, as: UTF8.self) == "::1")
        }

        @Test("garbage, HTTP/0.9, bad framing and binary noise get libmicrohttpd's refusal or a close, never a crash or a handler call",
              arguments: [
                  "\u{16}\u{3}\u{1}\u{0}\u{5}garbage\r\n\r\n",
                  "GET /\r\n",
                  "GET / HTTP/0.9\r\n\r\n",
                  "GET / HTTP/1.1\r\n\r\n",
                  "GET / HTTP/1.1\r\nHost: x\r\nBad header\r\n\r\n",
                  "GET / HTTP/9.9\r\nHost: x\r\n\r\n",
                  "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
                  "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 12abc\r\n\r\n",
                  "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                  "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\n",
                  "GET /a b HTTP/1.1\r\nHost: x\r\n\r\n",
                  String(repeating: "\r\n", count: 5000),
                  String(repeating: "A", count: 70_000),
              ])
        func hostileInput(text: String) throws {
            let log = HandlerLog()
            let server = try Harness.started(limits: HTTPServer.Limits(idleTimeout: .seconds(2)), log: log)
            defer { server.stop() }
            let client = try RawClient(port: server.port)
            client.send(text)
            let (bytes, closed) = client.readToEnd()
            let answer = String(decoding: bytes, as: UTF8.self)
            #expect(closed, "the connection was left open")
            #expect(answer.isEmpty || answer.hasPrefix("HTTP/1.1 4") || answer.hasPrefix("HTTP/1.1 5")
                    || answer.hasPrefix("HTTP/1.0 4") || answer.hasPrefix("HTTP/1.0 5"), "\(answer.prefix(80))")
            #expect(log.paths.isEmpty)
            let after = try RawClient(port: server.port)
            after.send(Harness.get("/after"))
            #expect(after.readResponse()?.status == 200)
        }

        @Test("random bytes on many connections: the server keeps answering")
        func noise() throws {
            let server = try Harness.started(limits: HTTPServer.Limits(idleTimeout: .seconds(1)))
            defer { server.stop() }
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<24 {
                let client = try RawClient(port: server.port)
                client.send((0..<Int.random(in: 1...2048, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
                _ = client.readToEnd()
            }
            let after = try RawClient(port: server.port)
            after.send(Harness.get("/after"))
            #expect(after.readResponse()?.status == 200)
        }

        @Test("a client that resets the connection while a 4 MiB answer is being written does not kill the process (no SIGPIPE)")
        func resetDuringAnswer() throws {
            var current = sigaction()
            sigaction(SIGPIPE, nil, &current)
            try #require(current.__sigaction_handler.sa_handler == nil,
                         "SIGPIPE is not at its default (terminate) in this process, so this test would prove nothing")
            let log = HandlerLog()
            let exchanges = ExchangeLog()
            let big = [UInt8](repeating: 0x5A, count: 4 << 20)
            let server = try Harness.started(log: log, exchanges: exchanges) { request in
                request.path == "/hold-big" ? HTTPServerResponse(status: 200, body: big) : Harness.summary(request)
            }
            defer { server.stop() }
            let client = try RawClient(port: server.port)
            client.send(Harness.get("/hold-big"))
            #expect(log.waitForHeld(1))
            client.reset()
            log.release()
            let after = try RawClient(port: server.port)
            after.send(Harness.get("/after"))
            #expect(after.readResponse()?.status == 200)
            // The big exchange is reported when libmicrohttpd gives up on its connection.
            var undelivered: HTTPExchange?
            for _ in 0..<600 where undelivered == nil {
                undelivered = exchanges.all.first { $0.route == "unmatched" && $0.status == 200 && !$0.delivered }
                if undelivered == nil { Thread.sleep(forTimeInterval: 0.05) }
            }
            #expect(undelivered != nil, "the server did not notice the reset: \(exchanges.all)")
        }
    }
}
