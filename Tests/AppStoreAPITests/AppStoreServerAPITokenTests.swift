import Foundation
import Testing
@testable import AppStoreAPI
@testable import ReceiptCore

/// A clock tests can move.
final class MovableClock: @unchecked Sendable {
    // `current` is guarded by `lock`.
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date) { current = start }

    var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    func advance(_ seconds: TimeInterval) {
        lock.lock()
        defer { lock.unlock() }
        current = current.addingTimeInterval(seconds)
    }

    var read: @Sendable () -> Date { { [self] in now } }
}

@Suite("AppStore: App Store Server API token (ES256 JWT)")
struct AppStoreServerAPITokenTests {
    static func credentials() throws -> ServerAPICredentials {
        try ServerAPICredentials(keyId: "2X9R4HXF34", issuerId: "57246542-96fe-1a63-e053-0824d011072a",
                                 bundleId: "com.example.game", privateKey: try PrivateKey.generateP256())
    }

    static func parts(_ token: String) throws -> (header: JSONObject, claims: JSONObject, input: String, signature: [UInt8]) {
        let pieces = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(pieces.count == 3)
        return (try JSONObject(parsing: try Base64.decodeURL(pieces[0], "header"), what: "header"),
                try JSONObject(parsing: try Base64.decodeURL(pieces[1], "claims"), what: "claims"),
                pieces[0] + "." + pieces[1], try Base64.decodeURL(pieces[2], "signature"))
    }

    @Test("header and claims are Apple's, iat a minute back, exp 20 minutes on, signature verifies with the public key")
    func claims() throws {
        let credentials = try Self.credentials()
        let now = AppStoreFixtures.now
        let (token, expires) = try ServerAPIToken.sign(credentials, now: now)
        let (header, claims, input, signature) = try Self.parts(token)
        #expect(header.values.keys.sorted() == ["alg", "kid", "typ"])
        #expect(try header.string("alg") == "ES256")
        #expect(try header.string("kid") == "2X9R4HXF34")
        #expect(try header.string("typ") == "JWT")
        #expect(claims.values.keys.sorted() == ["aud", "bid", "exp", "iat", "iss"])
        #expect(try claims.string("iss") == "57246542-96fe-1a63-e053-0824d011072a")
        #expect(try claims.string("aud") == "appstoreconnect-v1")
        #expect(try claims.string("bid") == "com.example.game")
        let iat = try #require(try claims.int("iat"))
        let exp = try #require(try claims.int("exp"))
        #expect(iat == Int64(now.timeIntervalSince1970) - 60)
        #expect(exp == iat + 20 * 60)
        #expect(expires == Date(timeIntervalSince1970: Double(exp)))
        #expect(signature.count == 64)
        let publicKey = try credentials.privateKey.publicKey()
        #expect(publicKey.verifyES256(rawSignature: signature, message: Array(input.utf8)))
        #expect(!publicKey.verifyES256(rawSignature: signature, message: Array((input + "x").utf8)))
        let otherKey = try PrivateKey.generateP256().publicKey()
        #expect(!otherKey.verifyES256(rawSignature: signature, message: Array(input.utf8)))
    }

    @Test("a token is reused until two minutes before it expires, then renewed")
    func reuse() throws {
        let clock = MovableClock(AppStoreFixtures.now)
        let token = ServerAPIToken(credentials: try Self.credentials(), clock: clock.read)
        let first = try token.bearer()
        #expect(token.signedCount == 1)
        clock.advance(10 * 60)
        #expect(try token.bearer() == first)
        // exp = now0 − 60 + 1200 = now0 + 1140; renewal from exp − 120 = now0 + 1020.
        clock.advance(6 * 60 + 59)
        #expect(try token.bearer() == first)
        #expect(token.signedCount == 1)
        clock.advance(1)
        let second = try token.bearer()
        #expect(second != first)
        #expect(token.signedCount == 2)
        let iat = try #require(try Self.parts(second).claims.int("iat"))
        #expect(iat == Int64(clock.now.timeIntervalSince1970) - 60)
        // A clock that jumps back keeps the current token: it has not expired.
        clock.advance(-3600)
        #expect(try token.bearer() == second)
    }

    @Test("concurrent requests share one token")
    func concurrent() async throws {
        let token = ServerAPIToken(credentials: try Self.credentials(), clock: AppStoreFixtures.clock)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<32 { group.addTask { try token.bearer() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
        #expect(token.signedCount == 1)
    }

    @Test("credentials refuse empty identifiers and keys that cannot sign ES256; the key never prints")
    func credentialsChecks() throws {
        let key = try PrivateKey.generateP256()
        #expect(throws: AppStoreError(.configuration, "")) {
            try ServerAPICredentials(keyId: " ", issuerId: "i", bundleId: "b", privateKey: key)
        }
        #expect(throws: AppStoreError(.configuration, "")) {
            try ServerAPICredentials(keyId: "k", issuerId: "i", bundleId: "b", privateKey: try PrivateKey.generateRSA(bits: 1024))
        }
        #expect(throws: AppStoreError(.configuration, "")) {
            try ServerAPICredentials(keyId: "k", issuerId: "i", bundleId: "b", privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n")
        }
        let pem = try key.pkcs8PEM()
        let credentials = try ServerAPICredentials(keyId: "k", issuerId: "i", bundleId: "b", privateKeyPEM: pem)
        let body = pem.split(separator: "\n").dropFirst().first.map(String.init) ?? pem
        let token = ServerAPIToken(credentials: credentials, clock: AppStoreFixtures.clock)
        let bearer = try token.bearer()
        var dumped = ""
        dump(credentials, to: &dumped)
        dump(token, to: &dumped)
        for text in ["\(credentials)", String(reflecting: credentials), "\(token)", String(reflecting: token), dumped] {
            #expect(!text.contains(body) && !text.contains(bearer), "\(text)")
        }
    }
}
