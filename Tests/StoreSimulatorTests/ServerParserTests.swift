import Foundation
import StoreSimulator
import Testing

/// `HTTPRequestParser` as a pure function: bytes in, a result out.
@Suite("HTTP request parser")
struct ServerParserTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func request(_ result: HTTPParseResult) -> (HTTPServerRequest, Int)? {
        if case .complete(let request, let consumed) = result { return (request, consumed) }
        return nil
    }

    static func invalidStatus(_ result: HTTPParseResult) -> Int? {
        if case .invalid(let status, _) = result { return status }
        return nil
    }

    static func isIncomplete(_ result: HTTPParseResult) -> Bool {
        if case .incomplete = result { return true }
        return false
    }

    static let post = "POST /sandbox/verifyReceipt HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 18\r\n\r\n{\"receipt-data\":1}"

    @Test("a GET: method, decoded path and query, headers in order, case-insensitive look-up")
    func simpleGet() throws {
        let text = "GET /inApps/v2/history/10%2F1?revision=a%2Bb&sort=DESC+ENDING&flag HTTP/1.1\r\nHost: x\r\nX-Two:  spaced value \t\r\n\r\n"
        let (request, consumed) = try #require(Self.request(HTTPRequestParser.parse(Self.bytes(text))))
        #expect(consumed == text.utf8.count)
        #expect(request.method == "GET")
        #expect(request.path == "/inApps/v2/history/10/1")
        #expect(request.queryValue("revision") == "a+b")
        #expect(request.queryValue("sort") == "DESC ENDING")
        #expect(request.queryValue("flag") == "")
        #expect(request.header("x-two") == "spaced value")
        #expect(request.headers.map(\.name) == ["Host", "X-Two"])
        #expect(request.body.isEmpty)
        #expect(request.wantsKeepAlive)
    }

    @Test("a POST takes exactly Content-Length bytes; a pipelined request after it parses from the rest")
    func pipelined() throws {
        let second = "GET / HTTP/1.0\r\n\r\n"
        let all = Self.bytes(Self.post + second)
        let (first, used) = try #require(Self.request(HTTPRequestParser.parse(all)))
        #expect(String(decoding: first.body, as: UTF8.self) == "{\"receipt-data\":1}")
        let (next, usedNext) = try #require(Self.request(HTTPRequestParser.parse(Array(all[used...]))))
        #expect(next.path == "/" && next.version == "HTTP/1.0" && !next.wantsKeepAlive)
        #expect(used + usedNext == all.count)
    }

    @Test("every truncation of a valid request is incomplete, never an error")
    func truncated() {
        let all = Self.bytes(Self.post)
        for length in 0..<all.count {
            #expect(Self.isIncomplete(HTTPRequestParser.parse(Array(all.prefix(length)))), "prefix of \(length) bytes")
        }
    }

    @Test("an over-long request line is 414, before or after its end arrives")
    func longRequestLine() {
        let limits = HTTPRequestParser.Limits(maxRequestLineBytes: 64)
        let long = "GET /" + String(repeating: "a", count: 100)
        #expect(Self.invalidStatus(HTTPRequestParser.parse(Self.bytes(long), limits: limits)) == 414)
        #expect(Self.invalidStatus(HTTPRequestParser.parse(Self.bytes(long + " HTTP/1.1\r\n\r\n"), limits: limits)) == 414)
        let exact = "GET /" + String(repeating: "a", count: 64 - 14) + " HTTP/1.1"
        #expect(exact.utf8.count == 64)
        #expect(Self.request(HTTPRequestParser.parse(Self.bytes(exact + "\r\n\r\n"), limits: limits)) != nil)
        #expect(Self.invalidStatus(HTTPRequestParser.parse(Self.bytes(String(repeating: "\r\n", count: 40)), limits: limits)) == 400)
    }

    @Test("more than the allowed header fields, or header bytes, is 431")
    func tooManyHeaders() {
        let many = "GET / HTTP/1.1\r\n" + (0..<101).map { "X-\($0): v\r\n" }.joined()
        #expect(Self.invalidStatus(HTTPRequestParser.parse(Self.bytes(many))) == 431)
        #expect(Self.request(HTTPRequestParser.parse(Self.bytes("GET / HTTP/1.1\r\n" + (0..<100).map { "X-\($0): v\r\n" }.joined() + "\r\n"))) != nil)
        let big = "GET / HTTP/1.1\r\nX-Big: " + String(repeating: "b", count: 33 * 1024)
        #expect(Self.invalidStatus(HTTPRequestParser.parse(Self.bytes(big))) == 431)
        #expect(Self.invalidStatus(HTTPRequestParser.parse(Self.bytes(big + "\r\n\r\n"))) == 431)
    }

    @Test("a body over the limit is 413 as soon as the head says so")
    func bodyTooLarge() {
        let head = "POST /x HTTP/1.1\r\nContent-Length: \(1024 * 1024 + 1)\r\n\r\n"
        #expect(Self.invalidStatus(HTTPRequestParser.parse(Self.bytes(head))) == 413)
        #expect(Self.invalidStatus(HTTPRequestParser.parse(Self.bytes("POST /x HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n"))) == 413)
        #expect(Self.isIncomplete(HTTPRequestParser.parse(Self.bytes("POST /x HTTP/1.1\r\nContent-Length: \(1024 * 1024)\r\n\r\n"))))
    }

    @Test("bad Content-Length values, duplicates that disagree, and chunked bodies are refused")
    func contentLength() {
        for value in ["abc", "-1", "1,1", "+5", " ", "0x10", "1.5"] {
            #expect(Self.invalidStatus(HTTPRequestParser.parse(Self.bytes("POST /x HTTP/1.1\r\nContent-Length: \(value)\r\n\r\n"))) == 400,
                    "Content-Length '\(value)'")
        }
        #expect(Self.invalidStatus(HTTPRequestParser.parse(Self.bytes("POST /x HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"))) == 400)
        #expect(Self.request(HTTPRequestParser.parse(Self.bytes("POST /x HTTP/1.1\r\nContent-Length: 2\r\ncontent-length: 2\r\n\r\nab"))) != nil)
        #expect(Self.invalidStatus(HTTPRequestParser.parse(Self.bytes("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"))) == 411)
        #expect(Self.invalidStatus(HTTPRequestParser.parse(Self.bytes("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n"))) == 400)
        #expect(Self.invalidStatus(HTTPRequestParser.parse(Self.bytes("POST /x HTTP/1.1\r\nHost: a\r\n\r\n"))) == 411)
        #expect(Self.request(HTTPRequestParser.parse(Self.bytes("GET /x HTTP/1.1\r\n\r\n")))?.0.body.isEmpty == true)
    }

    @Test("garbage is 400 at once: binary, a TLS hello, control characters, bad lines and versions")
    func garbage() {
        let cases: [([UInt8], Int)] = [
            ([0x16, 0x03, 0x01, 0x02, 0x00, 0x01], 400),
            ([0x00, 0xFF, 0xFE], 400),
            (Self.bytes("GET /\u{7} HTTP/1.1\r\n\r\n"), 400),
            (Self.bytes("GET  / HTTP/1.1\r\n\r\n"), 400),
            (Self.bytes("GET / HTTP/1.1 extra\r\n\r\n"), 400),
            (Self.bytes("G(T / HTTP/1.1\r\n\r\n"), 400),
            (Self.bytes("GET http://example.com/ HTTP/1.1\r\n\r\n"), 400),
            (Self.bytes("GET /%zz HTTP/1.1\r\n\r\n"), 400),
            (Self.bytes("GET /%ff HTTP/1.1\r\n\r\n"), 400),
            (Self.bytes("GET / HTTP/2.0\r\n\r\n"), 505),
            (Self.bytes("GET / HTTPS/1.1\r\n\r\n"), 400),
            (Self.bytes("GET / HTTP/1.1\r\nNo colon here\r\n\r\n"), 400),
            (Self.bytes("GET / HTTP/1.1\r\nName : value\r\n\r\n"), 400),
            (Self.bytes("GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n"), 400),
            (Self.bytes("GET / HTTP/1.1\r\nA: b\u{0}c\r\n\r\n"), 400),
            (Self.bytes("GET / HTTP/1.1\r\n: empty\r\n\r\n"), 400),
        ]
        for (input, status) in cases {
            #expect(Self.invalidStatus(HTTPRequestParser.parse(input)) == status, "\(String(decoding: input, as: UTF8.self).debugDescription)")
        }
    }

    @Test("bare LF line ends and leading empty lines are accepted")
    func lenientLines() throws {
        let (request, consumed) = try #require(Self.request(HTTPRequestParser.parse(Self.bytes("\r\n\nGET /a HTTP/1.1\nHost: b\n\n"))))
        #expect(request.path == "/a" && request.header("host") == "b")
        #expect(consumed == 28)
    }

    @Test("Expect: 100-continue is noticed once the head is in and the body is not")
    func expectContinue() {
        let head = "POST /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"
        #expect(HTTPRequestParser.awaitsContinue(Self.bytes(head)))
        #expect(!HTTPRequestParser.awaitsContinue(Self.bytes(head + "a")))
        #expect(!HTTPRequestParser.awaitsContinue(Self.bytes("POST /x HTTP/1.1\r\nContent-Length: 3\r\n\r\n")))
        #expect(!HTTPRequestParser.awaitsContinue(Self.bytes("POST /x HTTP/1.1\r\nExpect: 100-continue\r\n")))
    }

    @Test("Connection header semantics for 1.1 and 1.0")
    func keepAlive() throws {
        func parsed(_ text: String) throws -> HTTPServerRequest { try #require(Self.request(HTTPRequestParser.parse(Self.bytes(text)))).0 }
        #expect(try !parsed("GET / HTTP/1.1\r\nConnection: Close\r\n\r\n").wantsKeepAlive)
        #expect(try !parsed("GET / HTTP/1.1\r\nConnection: te, close\r\n\r\n").wantsKeepAlive)
        #expect(try parsed("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").wantsKeepAlive)
        #expect(try !parsed("GET / HTTP/1.0\r\n\r\n").wantsKeepAlive)
    }

    @Test("fuzz: random bytes and mutated requests never crash, and a completed request never claims more than it was given")
    func fuzz() {
        var generator = SeededGenerator(seed: 0x5EED)
        let seeds = [Self.bytes(Self.post), Self.bytes("GET /a?b=c HTTP/1.1\r\nHost: x\r\n\r\n")]
        for round in 0..<20_000 {
            var input: [UInt8]
            if round % 4 == 0 {
                input = (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            } else {
                input = seeds[round % 2]
                for _ in 0..<Int.random(in: 1...4, using: &generator) where !input.isEmpty {
                    let index = Int.random(in: 0..<input.count, using: &generator)
                    switch Int.random(in: 0...2, using: &generator) {
                    case 0: input[index] = UInt8.random(in: 0...255, using: &generator)
                    case 1: input.remove(at: index)
                    default: input.insert(UInt8.random(in: 0...255, using: &generator), at: index)
                    }
                }
            }
            switch HTTPRequestParser.parse(input, limits: HTTPRequestParser.Limits(maxRequestLineBytes: 128, maxHeaderBytes: 256)) {
            case .complete(_, let consumed): #expect(consumed > 0 && consumed <= input.count)
            case .invalid(let status, let reason): #expect((400...505).contains(status) && !reason.isEmpty)
            case .incomplete: break
            }
            _ = HTTPRequestParser.awaitsContinue(input)
        }
    }
}

/// A small deterministic generator (SplitMix64) so the fuzz cases are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
