import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import HTTPService
import Testing

extension HTTPServiceTests {
    /// Real clients over loopback: URLSession (libcurl) and raw sockets from many threads.
    @Suite("round trips over loopback")
    struct RoundTripTests {
        /// One request through URLSession, waiting at most 60 s.
        static func fetch(_ request: URLRequest) async throws -> (HTTPURLResponse, Data) {
            let session = URLSession(configuration: .ephemeral)
            defer { session.finishTasksAndInvalidate() }
            let (data, response) = try await session.data(for: request)
            return (try #require(response as? HTTPURLResponse), data)
        }

        @Test("a GET through URLSession: method, decoded path and query, lower-cased headers and the peer reach the handler")
        func get() async throws {
            let log = HandlerLog()
            let server = try Harness.started(log: log)
            defer { server.stop() }
            #expect(server.port > 0)
            var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(server.port)/a%20b/c?x=1&y=two%20words&flag")))
            request.setValue("Value-1", forHTTPHeaderField: "X-Mixed-Case")
            let (response, data) = try await Self.fetch(request)
            #expect(response.statusCode == 200)
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(json["method"] as? String == "GET")
            #expect(json["path"] as? String == "/a b/c")
            #expect(json["query"] as? [[String]] == [["x", "1"], ["y", "two words"], ["flag", ""]])
            let headers = try #require(json["headers"] as? [String: String])
            #expect(headers["x-mixed-case"] == "Value-1" && headers["X-Mixed-Case"] == nil)
            #expect(headers["host"] == "127.0.0.1:\(server.port)")
            #expect(json["peer"] as? String == "127.0.0.1")
            #expect(log.paths == ["/a b/c"])
        }

        @Test("a POST of 1 MiB through URLSession comes back byte for byte")
        func postOneMebibyte() async throws {
            let server = try Harness.started(limits: HTTPServer.Limits(maxBodyBytes: 2 << 20))
            defer { server.stop() }
            var generator = SystemRandomNumberGenerator()
            let body = Data((0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(server.port)/echo-body")))
            request.httpMethod = "POST"
            request.httpBody = body
            request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
            let (response, data) = try await Self.fetch(request)
            #expect(response.statusCode == 200)
            #expect(data.count == body.count)
            #expect(data == body)
        }

        @Test("repeated header fields are joined in order; a handler's 4xx goes out as given")
        func repeatedHeaders() throws {
            let server = try Harness.started { request in
                request.path == "/missing" ? .error(404, "no route for \(request.path)") : Harness.summary(request)
            }
            defer { server.stop() }
            let client = try RawClient(port: server.port)
            client.send(Harness.get("/h", "Accept: a\r\naccept: b\r\n"))
            let response = try #require(client.readResponse())
            #expect(try (response.json()["headers"] as? [String: String])?["accept"] == "a, b")
            client.send(Harness.get("/missing"))
            let missing = try #require(client.readResponse())
            #expect(missing.status == 404)
            #expect(try missing.json()["error"] as? String == "no route for /missing")
        }

        @Test("an answer the server cannot send as given (a 1xx status, a line break in a header) goes out as a logged 500; framing headers are the server's")
        func unsendableAnswers() throws {
            let messages = Lines()
            let server = try Harness.started(messages: messages) { request in
                switch request.path {
                case "/early": return HTTPServerResponse(status: 103, body: Array("x".utf8))
                case "/split": return HTTPServerResponse(status: 200, headers: [("X-Split", "a\r\nSet-Cookie: b")])
                default: return HTTPServerResponse(status: 200, headers: [("Content-Length", "999")], body: Array("ok".utf8))
                }
            }
            defer { server.stop() }
            for path in ["/early", "/split"] {
                let client = try RawClient(port: server.port)
                client.send(Harness.get(path))
                let response = try #require(client.readResponse())
                #expect(response.status == 500 && response.headers["x-split"] == nil && response.headers["set-cookie"] == nil)
                #expect(try response.json()["error"] as? String == "the service could not form its answer")
            }
            #expect(messages.all.filter { $0.contains("answered 500 instead") }.count == 2, "\(messages.all)")
            let client = try RawClient(port: server.port)
            client.send(Harness.get("/framed"))
            let framed = try #require(client.readResponse())
            #expect(framed.headers["content-length"] == "2" && framed.body == Array("ok".utf8))
        }

        @Test("200 requests from 8 threads, on fresh and kept-alive connections, each get their own answer")
        func concurrent() throws {
            let log = HandlerLog()
            let server = try Harness.started(log: log)
            defer { server.stop() }
            let failures = Lines()
            let group = DispatchGroup()
            for thread in 0..<8 {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    var kept: RawClient?
                    for index in 0..<25 {
                        let path = "/t\(thread)/r\(index)"
                        let body = String(repeating: "\(thread)-\(index);", count: index + 1)
                        let text = "POST \(path)?n=\(index) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                        do {
                            // Even requests on one kept-alive connection, odd ones on a fresh connection each.
                            let client = try index.isMultiple(of: 2) ? (kept ?? RawClient(port: server.port)) : RawClient(port: server.port)
                            if index.isMultiple(of: 2) { kept = client }
                            guard client.send(text), let response = client.readResponse(), response.status == 200 else {
                                failures.add("\(path): no 200")
                                continue
                            }
                            let json = try response.json()
                            if json["path"] as? String != path || json["bodyCount"] as? Int != body.utf8.count
                                || json["query"] as? [[String]] != [["n", "\(index)"]] {
                                failures.add("\(path): answered \(json)")
                            }
                        } catch {
                            failures.add("\(path): \(error)")
                        }
                    }
                }
            }
            #expect(group.wait(timeout: .now() + 120) == .success)
            #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")
            #expect(log.paths.count == 200)
            #expect(Set(log.paths).count == 200)
            #expect(server.requestsStarted == 200)
        }
    }
}
