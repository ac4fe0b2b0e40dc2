import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ReceiptCore
import StoreSimulator
import Testing

/// `HTTPServer` over real sockets on 127.0.0.1, with a small echo handler.
@Suite("HTTP server over loopback")
struct ServerHTTPTests {
    /// Answers `{"method":…,"path":…,"body":…}`.
    static func echo(_ request: HTTPServerRequest) -> HTTPServerResponse {
        .json(200, .object([("method", .string(request.method)), ("path", .string(request.path)),
                            ("body", .string(String(decoding: request.body, as: UTF8.self)))]))
    }

    static func started(_ configuration: HTTPServer.Configuration = HTTPServer.Configuration(),
                        handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerResponse = echo) throws -> HTTPServer {
        let server = try HTTPServer(port: 0, configuration: configuration, handler: handler)
        try server.start()
        return server
    }

    static func elapsed(_ body: () throws -> Void) rethrows -> Double {
        let start = Date()
        try body()
        return Date().timeIntervalSince(start)
    }

    @Test("anything but loopback is refused before binding: 0.0.0.0, ::, public addresses, names, mapped IPv4",
          arguments: ["0.0.0.0", "::", "[::]", "192.168.1.10", "8.8.8.8", "10.0.0.1", "example.com", "::ffff:127.0.0.1",
                      "", " 127.0.0.1", "127.1", "128.0.0.1", "0:0:0:0:0:0:0:2"])
    func refusesNonLoopback(host: String) {
        #expect(throws: SimulatorError(.notLoopback, "")) {
            _ = try HTTPServer(host: host, handler: Self.echo)
        }
    }

    @Test("loopback spellings are accepted and 127.0.0.0/8 really serves")
    func acceptsLoopback() throws {
        for host in ["127.0.0.1", "127.8.9.10", "localhost", "LOCALHOST", "::1", "[::1]"] {
            let server = try HTTPServer(host: host, handler: Self.echo)
            #expect(server.host == (host.contains(":") ? "[::1]" : host.lowercased() == "localhost" ? "127.0.0.1" : host))
        }
        let server = try Self.started()
        defer { server.stop() }
        #expect(server.port != 0)
        #expect(server.baseURL?.absoluteString == "http://127.0.0.1:\(server.port)")
        let response = try #require(try exchange(port: server.port, path: "/hello"))
        #expect(response.status == 200 && response.header("Connection") == "close")
        #expect(try response.json().string("path") == "/hello")

        let six = try HTTPServer(host: "::1", handler: Self.echo)
        do { try six.start() } catch let error as SimulatorError where error.code == .socket {
            return  // this machine has no IPv6 loopback
        }
        defer { six.stop() }
        #expect(six.baseURL?.absoluteString == "http://[::1]:\(six.port)")
        let connection = try RawConnection(port: six.port, ipv6: true)
        connection.send("GET /six HTTP/1.1\r\n\r\n")
        #expect(try connection.readResponse()?.json().string("path") == "/six")
    }

    @Test("start twice, start after stop and a port in use are errors; stop is idempotent")
    func lifecycle() throws {
        let server = try Self.started()
        #expect(throws: SimulatorError(.lifecycle, "")) { try server.start() }
        let clash = try HTTPServer(port: server.port, handler: Self.echo)
        #expect(throws: SimulatorError(.socket, "")) { try clash.start() }
        server.stop()
        server.stop()
        #expect(throws: SimulatorError(.lifecycle, "")) { try server.start() }
        let never = try HTTPServer(handler: Self.echo)
        never.stop()
    }

    @Test("keep-alive serves several requests on one connection; Connection: close is honoured")
    func keepAlive() throws {
        let server = try Self.started()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        for index in 0..<3 {
            connection.send("POST /k\(index) HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi")
            let response = try #require(connection.readResponse())
            #expect(response.header("Connection") == "keep-alive")
            #expect(try response.json().string("path") == "/k\(index)" && response.json().string("body") == "hi")
        }
        connection.send("GET /last HTTP/1.1\r\nConnection: close\r\n\r\n")
        #expect(connection.readResponse()?.header("Connection") == "close")
        #expect(connection.readToEnd().closed)
    }

    @Test("pipelined requests in one write are answered in order; HTTP/1.0 closes; HEAD has no body")
    func pipelining() throws {
        let server = try Self.started()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send("GET /one HTTP/1.1\r\n\r\nPOST /two HTTP/1.1\r\nContent-Length: 1\r\n\r\nxHEAD /three HTTP/1.1\r\n\r\nGET /four HTTP/1.0\r\n\r\n")
        #expect(try connection.readResponse()?.json().string("path") == "/one")
        #expect(try connection.readResponse()?.json().string("body") == "x")
        let (rest, closed) = connection.readToEnd()
        let text = String(decoding: rest, as: UTF8.self)
        #expect(closed)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n") && text.contains("Content-Length: "))
        #expect(!text.contains("/three"), "HEAD must not carry the body")
        #expect(text.contains("/four") && text.hasSuffix("}"))
    }

    @Test("malformed, oversized and unsupported requests get an HTTP error and a closed connection")
    func malformed() throws {
        let server = try Self.started()
        defer { server.stop() }
        let cases: [(String, Int)] = [
            ("\u{16}\u{3}\u{1}garbage", 400),
            ("GET / HTTP/1.1\r\nBad header\r\n\r\n", 400),
            ("GET / HTTP/3.0\r\n\r\n", 505),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 411),
            ("POST / HTTP/1.1\r\nContent-Length: 2000000\r\n\r\n", 413),
            ("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\n\r\n", 414),
            ("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 40_000) + "\r\n\r\n", 431),
        ]
        for (request, status) in cases {
            let connection = try RawConnection(port: server.port)
            connection.send(request)
            let (bytes, closed) = connection.readToEnd()
            let response = try #require(WireResponse.parse(bytes)?.0, "no answer to \(request.prefix(30).debugDescription)")
            #expect(response.status == status, "\(request.prefix(30).debugDescription)")
            #expect(closed && response.header("Connection") == "close")
            #expect(try response.json().string("reason")?.isEmpty == false)
        }
    }

    @Test("a slow client is answered 408 within the read timeout; an idle one is closed")
    func slowClient() throws {
        let server = try Self.started(HTTPServer.Configuration(readTimeout: 0.4, idleTimeout: 0.4))
        defer { server.stop() }
        let slow = try RawConnection(port: server.port)
        var result: (bytes: [UInt8], closed: Bool) = ([], false)
        let seconds = Self.elapsed {
            slow.send("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n12")
            Thread.sleep(forTimeInterval: 0.2)
            slow.send("34")  // trickling bytes does not extend the deadline
            result = slow.readToEnd()
        }
        #expect(WireResponse.parse(result.bytes)?.0.status == 408)
        #expect(result.closed && seconds < 3, "took \(seconds) s")
        let idle = try RawConnection(port: server.port)
        let idleResult = idle.readToEnd()
        #expect(idleResult.closed && idleResult.bytes.isEmpty)
    }

    @Test("Expect: 100-continue gets an interim 100 before the body is sent")
    func expectContinue() throws {
        let server = try Self.started()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send("POST /c HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
        #expect(connection.readResponse()?.status == 100)
        connection.send("hello")
        #expect(try connection.readResponse()?.json().string("body") == "hello")
    }

    @Test("over maxConnections a new connection is answered 503")
    func connectionLimit() throws {
        let server = try Self.started(HTTPServer.Configuration(maxConnections: 2))
        defer { server.stop() }
        let first = try RawConnection(port: server.port), second = try RawConnection(port: server.port)
        first.send("GET /1 HTTP/1.1\r\n\r\n")
        second.send("GET /2 HTTP/1.1\r\n\r\n")
        #expect(first.readResponse()?.status == 200 && second.readResponse()?.status == 200)
        let third = try RawConnection(port: server.port)
        #expect(WireResponse.parse(third.readToEnd().bytes)?.0.status == 503)
    }

    @Test("stop() returns promptly with idle and half-sent connections open, and closes them")
    func stopPromptly() throws {
        let server = try Self.started()
        let idle = try RawConnection(port: server.port)
        let kept = try RawConnection(port: server.port)
        kept.send("GET / HTTP/1.1\r\n\r\n")
        #expect(kept.readResponse()?.status == 200)
        let half = try RawConnection(port: server.port)
        half.send("POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\nabc")
        Thread.sleep(forTimeInterval: 0.1)
        #expect(server.openConnections == 3)
        let seconds = Self.elapsed { server.stop() }
        #expect(seconds < 2.5, "stop took \(seconds) s")
        #expect(server.openConnections == 0)
        for connection in [idle, kept, half] { #expect(connection.readToEnd().closed) }
    }

    @Test("stop() waits for a busy handler to answer (with Connection: close)")
    func stopWhileBusy() throws {
        let server = try Self.started(handler: { request in
            Thread.sleep(forTimeInterval: 0.3)
            return ServerHTTPTests.echo(request)
        })
        let busy = try RawConnection(port: server.port)
        busy.send("GET /busy HTTP/1.1\r\n\r\n")
        Thread.sleep(forTimeInterval: 0.1)
        server.stop()
        let response = try #require(busy.readResponse())
        #expect(response.status == 200 && response.header("Connection") == "close")
    }

    @Test("a handler's drop() closes without an answer; header values cannot split the response")
    func dropAndInjection() throws {
        let server = try Self.started(handler: { request in
            request.path == "/drop" ? .drop() : .text(200, "ok", headers: [("X-Echo", "a\r\nX-Injected: 1")])
        })
        defer { server.stop() }
        let dropped = try RawConnection(port: server.port)
        dropped.send("GET /drop HTTP/1.1\r\n\r\n")
        let result = dropped.readToEnd()
        #expect(result.closed && result.bytes.isEmpty)
        let response = try #require(try exchange(port: server.port, path: "/x"))
        #expect(response.header("X-Echo") == "aX-Injected: 1" && response.header("X-Injected") == nil)
    }
}
