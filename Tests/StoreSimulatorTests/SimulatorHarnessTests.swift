import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import ReceiptCore
import StoreSimulator
import Testing

// The harness the server and simulator tests share: a blocking raw-socket client (for malformed
// and half-sent requests, and to see exactly what goes over the wire), a response parser, a
// simulator fixture with an App Store Server API key, and bearer-token minting. Every
// connection goes to 127.0.0.1 only.

/// One HTTP response as read off a socket.
struct WireResponse {
    let status: Int
    let headers: [(name: String, value: String)]
    let body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    func json() throws -> JSONObject { try JSONObject(parsing: body, what: "response body") }

    /// The first complete response in `bytes` and how many bytes it took (Content-Length bodies only).
    static func parse(_ bytes: [UInt8]) -> (WireResponse, Int)? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4, let headEnd = (0...(bytes.count - 4)).first(where: { bytes[$0..<($0 + 4)].elementsEqual(separator) }) else {
            return nil
        }
        let lines = String(decoding: bytes[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        let headers: [(name: String, value: String)] = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
        let end = headEnd + 4 + (status == 100 ? 0 : length)
        guard bytes.count >= end else { return nil }
        return (WireResponse(status: status, headers: headers, body: Array(bytes[(headEnd + 4)..<end])), end)
    }
}

/// A blocking TCP connection to 127.0.0.1 (or ::1).
final class RawConnection {
    let fd: Int32
    private var pending: [UInt8] = []

    init(port: UInt16, receiveTimeout: Double = 5, ipv6: Bool = false) throws {
        // Stored only once connected: a throwing init with every property set runs deinit, which
        // would close the number again, by then perhaps another test's socket.
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SimulatorError(.socket, "test socket") }
        let result: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &address.sin6_addr) { $0[15] = 1 }  // ::1
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard result == 0 else {
            Glibc.close(fd)
            throw SimulatorError(.socket, "test connect to loopback port \(port) failed")
        }
        var timeout = timeval(tv_sec: Int(receiveTimeout), tv_usec: Int((receiveTimeout - Double(Int(receiveTimeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.fd = fd
    }

    deinit { Glibc.close(fd) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress.map { $0 + offset }, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return }
            offset += sent
        }
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    /// Bytes until the peer closes or the receive timeout passes; `closed` says which.
    func readToEnd() -> (bytes: [UInt8], closed: Bool) {
        var bytes = pending
        pending = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let read = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, 65_536, 0) }
            if read > 0 { bytes += chunk.prefix(read); continue }
            return (bytes, read == 0 || (read < 0 && errno == ECONNRESET))
        }
    }

    /// The next complete response, or nil if the connection closed (or timed out) first.
    func readResponse() -> WireResponse? {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let (response, used) = WireResponse.parse(pending) {
                pending.removeFirst(used)
                return response
            }
            let read = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, 65_536, 0) }
            guard read > 0 else { return nil }
            pending += chunk.prefix(read)
        }
    }
}

/// One request on a fresh connection, `Connection: close`.
func exchange(port: UInt16, method: String = "GET", path: String, headers: [(String, String)] = [],
              body: [UInt8] = [], timeout: Double = 30) throws -> WireResponse? {
    let connection = try RawConnection(port: port, receiveTimeout: timeout)
    var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
    connection.send(Array((head + "\r\n").utf8) + body)
    return connection.readResponse()
}

/// A started simulator over the shared test authority with an API key, a fixed clock, and
/// helpers for requests and tokens.
final class SimulatorFixture {
    static let now = RFC3339.parse("2025-06-01T12:00:00Z") ?? .distantPast
    static let bundleId = "com.example.game"
    static let keyId = "TESTKEY123"
    static let issuerId = "57246542-96fe-1a63-e053-0824d011072a"

    let state: SimulatorState
    let simulator: AppStoreSimulator
    let apiKey: PrivateKey

    init(pageSize: Int = 20, configuration: HTTPServer.Configuration = HTTPServer.Configuration(), sharedSecret: String? = nil) throws {
        state = SimulatorState(authority: try TestCertificateAuthority.shared(), bundleId: Self.bundleId, appAppleId: 987_654_321)
        apiKey = try PrivateKey.generateP256()
        state.serverAPIKey = ServerAPIKey(publicKey: try apiKey.publicKey(), keyId: Self.keyId, issuerId: Self.issuerId)
        state.sharedSecret = sharedSecret
        let fixed = Self.now
        simulator = try AppStoreSimulator(state: state, historyPageSize: pageSize, configuration: configuration, clock: { fixed })
        try simulator.start()
    }

    deinit { simulator.stop() }

    var port: UInt16 { simulator.port }
    var faults: SimulatorFaults { simulator.faults }

    /// POSTs a verifyReceipt body to an environment's endpoint; the answer's JSON.
    func verify(_ environment: SimulatorEnvironment, body: String) throws -> JSONObject {
        let response = try #require(try exchange(port: port, method: "POST", path: "/\(environment.pathComponent)/verifyReceipt",
                                                 headers: [("Content-Type", "application/json")], body: Array(body.utf8)))
        #expect(response.status == 200)
        return try response.json()
    }

    /// A verifyReceipt request body.
    static func body(_ receipt: String, password: String? = nil, excludeOld: Bool? = nil) -> String {
        var members: [(String, JSONValue)] = [("receipt-data", .string(receipt))]
        if let password { members.append(("password", .string(password))) }
        if let excludeOld { members.append(("exclude-old-transactions", .bool(excludeOld))) }
        return JSONValue.object(members).serialized()
    }

    /// GETs a Server API path with a valid token (or `token`, when given).
    func api(_ environment: SimulatorEnvironment, _ path: String, token: String? = nil) throws -> WireResponse {
        let bearer = try token ?? self.token()
        return try #require(try exchange(port: port, path: "/\(environment.pathComponent)\(path)",
                                         headers: [("Authorization", "Bearer \(bearer)")]))
    }

    /// A bearer token; every claim and the key can be overridden to make a bad one.
    func token(key: PrivateKey? = nil, kid: String = keyId, issuer: String = issuerId, bundle: String = bundleId,
               audience: String = "appstoreconnect-v1", issuedAt: Date? = nil, lifetime: TimeInterval = 20 * 60) throws -> String {
        let iat = Int64((issuedAt ?? Self.now.addingTimeInterval(-60)).timeIntervalSince1970)
        let header = JSONValue.object([("alg", .string("ES256")), ("kid", .string(kid)), ("typ", .string("JWT"))])
        let claims = JSONValue.object([("iss", .string(issuer)), ("iat", .int(iat)), ("exp", .int(iat + Int64(lifetime))),
                                       ("aud", .string(audience)), ("bid", .string(bundle))])
        let input = Base64.encodeURL(Array(header.serialized().utf8)) + "." + Base64.encodeURL(Array(claims.serialized().utf8))
        return input + "." + Base64.encodeURL(try (key ?? apiKey).signES256(Array(input.utf8)))
    }

    /// A monthly subscription purchase starting at `start`.
    static func monthly(_ start: Date, product: String = "pro.monthly") -> SimulatedPurchase {
        SimulatedPurchase(productId: product, type: .autoRenewable, purchaseDate: start, expiresDate: start.addingTimeInterval(30 * 86_400))
    }

    static func day(_ offset: Double) -> Date { now.addingTimeInterval(offset * 86_400) }
}

@Suite("Simulator harness and front page")
struct SimulatorHarnessTests {
    @Test("GET / says what the server is and where the endpoints are; URLs point at loopback")
    func frontPage() throws {
        let fixture = try SimulatorFixture()
        let response = try #require(try exchange(port: fixture.port, path: "/"))
        #expect(response.status == 200)
        let body = try response.json()
        #expect(try body.string("simulator")?.contains("not Apple") == true)
        #expect(try body.object("sandbox")?.string("verifyReceipt") == "/sandbox/verifyReceipt")
        #expect(fixture.simulator.verifyReceiptURL(.production).absoluteString == "http://127.0.0.1:\(fixture.port)/production/verifyReceipt")
        #expect(fixture.simulator.serverAPIBaseURL(.sandbox).absoluteString == "http://127.0.0.1:\(fixture.port)/sandbox")
        #expect(try #require(try exchange(port: fixture.port, path: "/elsewhere")).status == 404)
    }

    @Test("URLSession talks to the simulator: keep-alive, a JSON POST, Expect: 100-continue bodies")
    func urlSession() async throws {
        let fixture = try SimulatorFixture()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.connectionProxyDictionary = [:]
        let session = URLSession(configuration: configuration)
        let receipt = try fixture.state.mintUnifiedReceipt(environment: .sandbox, purchases: [
            SimulatedPurchase(productId: "coins.100", type: .consumable, purchaseDate: SimulatorFixture.day(-1)),
        ])
        for _ in 0..<3 {
            var request = URLRequest(url: fixture.simulator.verifyReceiptURL(.sandbox))
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(SimulatorFixture.body(receipt.base64).utf8)  // several KiB: curl sends Expect: 100-continue
            let (data, response) = try await session.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let answer = try VerifyReceiptResponse(json: Array(data))
            #expect(answer.status == 0)
            #expect(answer.inApp.first?.productId == "coins.100")
        }
        #expect(fixture.faults.requestCount == 3)
    }
}
