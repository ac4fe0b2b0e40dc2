import Foundation
@testable import HTTPService
import Testing

extension HTTPServiceTests {
    /// Each limit enforced against a real client misbehaving over loopback. The timing cases
    /// use short configured timeouts and check outcomes (who was answered, who was cut), never
    /// how long anything took, with waits many times the timeouts for a loaded machine.
    @Suite("limits")
    struct LimitsTests {
        @Test("a declared body over the limit is answered 413 with a JSON error before it is sent; the handler is not called; the limit itself is accepted")
        func declaredBodyOverLimit() throws {
            let log = HandlerLog()
            let exchanges = ExchangeLog()
            let server = try Harness.started(limits: HTTPServer.Limits(maxBodyBytes: 1024), log: log, exchanges: exchanges)
            defer { server.stop() }

            let client = try RawClient(port: server.port)
            // Only the head: the answer must come without the client sending a byte of the body.
            client.send("POST /big HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1025\r\n\r\n")
            let refused = try #require(client.readResponse())
            #expect(refused.status == 413)
            #expect(refused.headers["content-type"] == "application/json")
            #expect(try refused.json()["error"] as? String == "request body is 1025 bytes; this service takes at most 1024")
            #expect(client.readToEnd().closed, "the rest of the request is not read: the connection is closed")

            let huge = try RawClient(port: server.port)
            huge.send("POST /huge HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Length: 99999999999\r\n\r\n")
            #expect(huge.readResponse()?.status == 413)

            let exact = try RawClient(port: server.port)
            exact.send("POST /exact HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1024\r\n\r\n" + String(repeating: "x", count: 1024))
            let accepted = try #require(exact.readResponse())
            #expect(accepted.status == 200)
            #expect(try accepted.json()["bodyCount"] as? Int == 1024)
            #expect(log.paths == ["/exact"])
            #expect(Harness.settle(server))
            let refusedExchanges = exchanges.all.filter { $0.route == "refused" }
            #expect(refusedExchanges.count == 2 && refusedExchanges.allSatisfy { $0.status == 413 && $0.bodyBytes == 0 })
        }

        @Test("a chunked body that grows past the limit is cut there without the handler; one within it is taken")
        func streamedBodyOverLimit() throws {
            let log = HandlerLog()
            let server = try Harness.started(limits: HTTPServer.Limits(maxBodyBytes: 1024), log: log)
            defer { server.stop() }
            let chunk = String(repeating: "y", count: 512)
            let small = try RawClient(port: server.port)
            small.send("POST /small HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n200\r\n\(chunk)\r\n0\r\n\r\n")
            #expect(try small.readResponse()?.json()["bodyCount"] as? Int == 512)

            let client = try RawClient(port: server.port)
            client.send("POST /stream HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
            var cut = false
            for _ in 0..<64 where !cut {
                cut = !client.send("200\r\n\(chunk)\r\n") || client.peerHasSpoken()
                if !cut { Thread.sleep(forTimeInterval: 0.01) }
            }
            let (rest, closed) = client.readToEnd()
            #expect(closed && !String(decoding: rest, as: UTF8.self).contains("200 OK"))
            #expect(log.paths == ["/small"])
            #expect(Harness.settle(server))
        }

        @Test("a header section over maxHeaderBytes is refused with 431 by libmicrohttpd, a long target with 414; the handler is not called")
        func headerOverLimit() throws {
            let log = HandlerLog()
            let server = try Harness.started(limits: HTTPServer.Limits(maxHeaderBytes: 4096), log: log)
            defer { server.stop() }
            let client = try RawClient(port: server.port)
            client.send(Harness.get("/big-header", "X-Padding: \(String(repeating: "p", count: 8192))\r\n"))
            let refused = try #require(client.readResponse())
            #expect(refused.status == 431)
            #expect(client.readToEnd().closed)

            let longTarget = try RawClient(port: server.port)
            longTarget.send(Harness.get("/" + String(repeating: "a", count: 8192)))
            #expect(longTarget.readResponse()?.status == 414)

            let fits = try RawClient(port: server.port)
            fits.send(Harness.get("/fits", "X-Padding: \(String(repeating: "p", count: 1024))\r\n"))
            #expect(fits.readResponse()?.status == 200)
            #expect(log.paths == ["/fits"])
        }

        @Test("a client that sends half a request and stalls is cut after the idle timeout; another is answered meanwhile")
        func stalledClientIsCut() throws {
            let log = HandlerLog()
            let server = try Harness.started(limits: HTTPServer.Limits(idleTimeout: .seconds(1)), log: log)
            defer { server.stop() }
            let stalled = try RawClient(port: server.port, timeout: 30)
            #expect(stalled.send("POST /stalled HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\nhalf"))
            let other = try RawClient(port: server.port)
            other.send(Harness.get("/other"))
            #expect(other.readResponse()?.status == 200)
            // The stalled client hears nothing but the end (its read would time out only after 30 s).
            let (bytes, closed) = stalled.readToEnd()
            #expect(closed && bytes.isEmpty)
            #expect(log.paths == ["/other"])
        }

        @Test("a client that dribbles a byte at a time is cut at the transfer timeout although it never idles")
        func dribblingClientIsCut() throws {
            let log = HandlerLog()
            let limits = HTTPServer.Limits(idleTimeout: .seconds(30), transferTimeout: .seconds(1))
            let server = try Harness.started(limits: limits, log: log)
            defer { server.stop() }
            let client = try RawClient(port: server.port, timeout: 30)
            // 3,000 bytes at one per 10 ms would take 30 s; the timeout is 1 s.
            let request = Array(Harness.get("/dribble", "X-Slow: \(String(repeating: "s", count: 3000))\r\n").utf8)
            var sent = 0
            while sent < request.count, !client.peerHasSpoken(), client.send([request[sent]]) {
                sent += 1
                Thread.sleep(forTimeInterval: 0.01)
            }
            #expect(sent < request.count, "the whole request went through: nothing cut it")
            #expect(client.readToEnd().closed)
            #expect(server.transfersCut == 1)
            #expect(log.paths.isEmpty)
            let other = try RawClient(port: server.port)
            other.send(Harness.get("/after"))
            #expect(other.readResponse()?.status == 200)
        }

        @Test("connections over maxConnections are closed unanswered without disturbing the others; the service answers again after")
        func connectionLimit() throws {
            let log = HandlerLog()
            let messages = Lines()
            let server = try Harness.started(limits: HTTPServer.Limits(maxConnections: 2), log: log, messages: messages)
            defer { server.stop() }
            var held = try (0..<2).map { index -> RawClient in
                let client = try RawClient(port: server.port)
                client.send(Harness.get("/hold-\(index)"))
                return client
            }
            #expect(log.waitForHeld(2))
            for index in 0..<3 {
                let extra = try RawClient(port: server.port)
                extra.send(Harness.get("/extra-\(index)"))
                let (bytes, closed) = extra.readToEnd()
                #expect(closed && bytes.isEmpty)
            }
            #expect(server.openConnections == 2)
            #expect(messages.all.contains { $0.contains("connection limit") }, "libmicrohttpd's own words reach the log: \(messages.all)")
            log.release()
            for client in held {
                #expect(client.readResponse()?.status == 200)
            }
            held.removeAll()  // closes them: they were kept alive
            // A slot frees once libmicrohttpd has cleaned the finished connections up.
            var answered = false
            for _ in 0..<200 where !answered {
                let after = try RawClient(port: server.port)
                after.send(Harness.get("/after"))
                answered = after.readResponse()?.status == 200
                if !answered { Thread.sleep(forTimeInterval: 0.05) }
            }
            #expect(answered)
            #expect(Set(log.paths) == ["/hold-0", "/hold-1", "/after"])
        }

        @Test("a second connection from one address over maxConnectionsPerIP is closed unanswered; another address is served")
        func perAddressLimit() throws {
            let log = HandlerLog()
            let limits = HTTPServer.Limits(maxConnections: 4, maxConnectionsPerIP: 1)
            let server = try Harness.started(limits: limits, log: log)
            defer { server.stop() }
            let first = try RawClient(port: server.port, source: "127.0.0.1")
            first.send(Harness.get("/hold"))
            #expect(log.waitForHeld(1))
            let second = try RawClient(port: server.port, source: "127.0.0.1")
            second.send(Harness.get("/second"))
            let (bytes, closed) = second.readToEnd()
            #expect(closed && bytes.isEmpty)
            let elsewhere = try RawClient(port: server.port, source: "127.0.0.2")
            elsewhere.send(Harness.get("/elsewhere"))
            let answer = try #require(elsewhere.readResponse())
            #expect(try answer.json()["peer"] as? String == "127.0.0.2")
            log.release()
            #expect(first.readResponse()?.status == 200)
            #expect(Set(log.paths) == ["/hold", "/elsewhere"])
        }

        @Test("limits out of range and hosts that are not numeric addresses are refused before binding",
              arguments: [HTTPServer.Limits(maxBodyBytes: -1), HTTPServer.Limits(maxHeaderBytes: 100),
                          HTTPServer.Limits(idleTimeout: .zero), HTTPServer.Limits(transferTimeout: .milliseconds(-1)),
                          HTTPServer.Limits(maxConnections: 0), HTTPServer.Limits(maxConnections: 4, maxConnectionsPerIP: 5),
                          HTTPServer.Limits(listenBacklog: 0)])
        func invalidLimits(limits: HTTPServer.Limits) {
            #expect(throws: HTTPServiceError(.invalidConfiguration, "")) {
                _ = try HTTPServer(configuration: .init(limits: limits)) { _ in .text(200, "") }
            }
        }

        @Test("a name or a malformed address as host is refused", arguments: ["localhost", "example.com", "127.1", "", "::g", "[::1"])
        func invalidHosts(host: String) {
            #expect(throws: HTTPServiceError(.invalidConfiguration, "")) {
                _ = try HTTPServer(configuration: .init(host: host)) { _ in .text(200, "") }
            }
        }
    }
}
