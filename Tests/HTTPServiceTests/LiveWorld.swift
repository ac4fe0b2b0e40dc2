import Foundation
import HTTPService
import LiveService
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// A purchase database in a temporary folder with `LiveServer` serving it on a loopback port,
/// one client token, and a second ledger over the same file for looking inside.
final class LiveWorld: @unchecked Sendable {  // its server is thread-safe; the rest is set once
    let directory: URL
    let path: String
    let authority: TestCertificateAuthority
    let server: LiveServer
    let token: String
    let inspector: PurchaseLedger

    static let configuration = StoreConfiguration(
        bundleIds: ["com.example.app"],
        products: [
            "com.example.pro.monthly": CatalogueProduct(entitlement: "pro", type: .autoRenewable),
            "com.example.pro.lifetime": CatalogueProduct(entitlement: "pro", type: .nonConsumable),
            "com.example.coins.100": CatalogueProduct(entitlement: "coins", type: .consumable, units: 100),
        ])

    init(limits: HTTPService.HTTPServer.Limits = HTTPService.HTTPServer.Limits(idleTimeout: .seconds(2), transferTimeout: .seconds(4)),
         trustedProxies: Set<String> = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("purchases.sqlite").path
        authority = try TestCertificateAuthority.shared()
        let setup = try SQLiteDatabase(path: path)
        try MigrationRunner.migrate(setup)
        let (path, authority) = (self.path, self.authority)
        func ledger() throws -> PurchaseLedger {
            PurchaseLedger(database: try SQLiteDatabase(path: path), configuration: Self.configuration,
                           verifier: ReceiptVerifier(trust: authority.trustStore(), expectedBundleIds: Set(Self.configuration.bundleIds)))
        }
        let tokensPath = directory.appendingPathComponent("tokens").path
        token = try ServeTokens.add(name: "app", to: tokensPath)
        server = try LiveServer(writer: try ledger(), reader: try ledger(), tokens: try ServeTokens.load(tokensPath),
                                configuration: HTTPService.HTTPServer.Configuration(host: "127.0.0.1", port: 0, limits: limits),
                                trustedProxies: trustedProxies)
        try server.start()
        inspector = try ledger()
    }

    deinit {
        server.stop(grace: .seconds(1))
        try? FileManager.default.removeItem(at: directory)  // best effort: a temporary folder
    }

    /// One request over a fresh connection; the answer, or nil when the server closed without one.
    func send(_ method: String, _ target: String, body: [UInt8] = [], headers: [String: String] = [:]) throws -> RawResponse? {
        let client = try RawClient(port: server.port)
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        guard client.send(head + "\r\n") else { return nil }
        // A body the server refuses by its declared length may not be read at all: the answer counts.
        _ = body.isEmpty || client.send(body)
        return client.readResponse()
    }

    /// POST /v1/purchases with the world's token (or `token`).
    func purchase(_ object: [String: Any], token: String? = nil) throws -> RawResponse? {
        try send("POST", "/v1/purchases", body: Array(try JSONSerialization.data(withJSONObject: object)),
                 headers: ["Authorization": "Bearer \(token ?? self.token)", "Content-Type": "application/json"])
    }

    /// POST /v1/apple/notifications with Apple's body.
    func notify(_ body: String) throws -> RawResponse? {
        try send("POST", "/v1/apple/notifications", body: Array(body.utf8), headers: ["Content-Type": "application/json"])
    }

    /// A signed StoreKit 2 transaction of the test authority.
    func jws(_ id: String, product: String = "com.example.pro.lifetime", type: String = "Non-Consumable") throws -> String {
        let bought = RFC3339.parse("2025-05-01T00:00:00Z") ?? Date()
        let payload = TransactionPayload(transactionId: id, bundleId: "com.example.app", productId: product, type: type,
                                         purchaseDate: bought, signedDate: bought, environment: "Production")
        return try JWSBuilder(authority: authority).signedTransaction(payload)
    }

    func count(_ sql: String, _ parameters: [SQLValue] = []) throws -> Int64 {
        try inspector.database.queryFirst(sql, parameters)?.int("n") ?? -1
    }
}
