import Foundation
import StoreSimulator
import Testing

/// The simulator's HTTP limits at their exact edges: the last accepted size and the first refused.
@Suite("Limits that hold under attack: HTTP request line, header fields and body")
struct HTTPLimitsTests {
    typealias P = ServerParserTests

    static func head(fields: Int) -> String {
        "GET / HTTP/1.1\r\n" + (0..<fields).map { "X-\($0): v\r\n" }.joined() + "\r\n"
    }

    @Test("100 header fields are accepted, 101 are 431")
    func headerCount() throws {
        let (request, _) = try #require(P.request(HTTPRequestParser.parse(P.bytes(Self.head(fields: 100)))))
        #expect(request.headers.count == HTTPRequestParser.Limits.default.maxHeaderCount)
        #expect(P.invalidStatus(HTTPRequestParser.parse(P.bytes(Self.head(fields: 101)))) == 431)
    }

    @Test("a body of exactly the limit is taken whole; one byte more is 413 before any of it arrives")
    func bodySize() throws {
        let limit = HTTPRequestParser.Limits.default.maxBodyBytes
        let body = [UInt8](repeating: 0x41, count: limit)
        let (request, consumed) = try #require(P.request(HTTPRequestParser.parse(P.bytes("POST /x HTTP/1.1\r\nContent-Length: \(limit)\r\n\r\n") + body)))
        #expect(request.body.count == limit && consumed == limit + 45)
        #expect(P.invalidStatus(HTTPRequestParser.parse(P.bytes("POST /x HTTP/1.1\r\nContent-Length: \(limit + 1)\r\n\r\n"))) == 413)
        let huge = "POST /x HTTP/1.1\r\nContent-Length: " + String(repeating: "9", count: 5_000) + "\r\n\r\n"
        #expect(P.invalidStatus(HTTPRequestParser.parse(P.bytes(huge))) == 413)
    }

    @Test("a request line of exactly the limit is accepted; one byte more is 414, with or without its end")
    func requestLineLength() throws {
        let limits = HTTPRequestParser.Limits(maxRequestLineBytes: 64)
        let fixed = "GET / HTTP/1.1".utf8.count
        let exact = "GET /" + String(repeating: "a", count: 64 - fixed) + " HTTP/1.1"
        #expect(exact.utf8.count == 64)
        #expect(P.request(HTTPRequestParser.parse(P.bytes(exact + "\r\n\r\n"), limits: limits)) != nil)
        let over = "GET /" + String(repeating: "a", count: 65 - fixed) + " HTTP/1.1"
        #expect(P.invalidStatus(HTTPRequestParser.parse(P.bytes(over + "\r\n\r\n"), limits: limits)) == 414)
        #expect(P.invalidStatus(HTTPRequestParser.parse(P.bytes(String(repeating: "a", count: 200)), limits: limits)) == 414)
    }

    @Test("a header section that never ends is refused once it passes the limit, not buffered forever")
    func endlessHeaders() {
        let limits = HTTPRequestParser.Limits(maxHeaderBytes: 1024)
        var text = "GET / HTTP/1.1\r\n"
        var statuses: Set<Int> = []
        for index in 0..<200 {
            text += "X-\(index): value\r\n"
            if let status = P.invalidStatus(HTTPRequestParser.parse(P.bytes(text), limits: limits)) { statuses.insert(status) }
        }
        #expect(statuses == [431])
        #expect(P.invalidStatus(HTTPRequestParser.parse(P.bytes("GET / HTTP/1.1\r\nX: " + String(repeating: "v", count: 2_000)), limits: limits)) == 431)
    }

    @Test("empty lines before a request are capped too")
    func leadingEmptyLines() {
        let flood = String(repeating: "\r\n", count: 10_000)
        #expect(P.invalidStatus(HTTPRequestParser.parse(P.bytes(flood))) == 400)
    }
}
