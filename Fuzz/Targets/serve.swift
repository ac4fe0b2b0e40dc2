import Foundation
import HTTPService
import LiveService
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// `serve`'s request path: an input is one request to `ServeService` (the first byte picks the
/// route, method and whether the client token is presented; the rest is the body), handled over
/// one ledger for the whole run. Whatever it holds: an answer with a status the route may give,
/// a JSON body, never a crash; the ledger's audit chain still holds every 500 inputs.
enum FuzzTarget {
    final class World: @unchecked Sendable {
        let service: ServeService
        let ledger: PurchaseLedger
        let token: String
        var inputs = 0

        init() throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-fuzz-\(getpid())")
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let path = directory.appendingPathComponent("purchases.sqlite").path
            let database = try SQLiteDatabase(path: path)
            try MigrationRunner.migrate(database)
            let authority = try TestCertificateAuthority.shared()
            let configuration = StoreConfiguration(bundleIds: ["com.example.app"], products: [
                "com.example.pro.lifetime": CatalogueProduct(entitlement: "pro", type: .nonConsumable),
            ])
            func open() throws -> PurchaseLedger {
                PurchaseLedger(database: try SQLiteDatabase(path: path), configuration: configuration,
                               verifier: ReceiptVerifier(trust: authority.trustStore(), expectedBundleIds: ["com.example.app"]))
            }
            let tokens = directory.appendingPathComponent("tokens").path
            token = try ServeTokens.add(name: "fuzz", to: tokens)
            let writer = try open()
            let queue = LedgerCommitQueue(ledger: writer)
            let metrics = try ServeMetrics(registry: Metrics()) { queue.depth }
            service = ServeService(queue: queue, writerLedger: writer, reader: try open(), tokens: try ServeTokens.load(tokens), metrics: metrics)
            ledger = try open()
        }
    }

    static let world: World = {
        do { return try World() } catch { preconditionFailure("serve fuzz: cannot build the world: \(error)") }
    }()

    static let routes: [(String, String)] = [
        ("POST", "/v1/purchases"), ("POST", "/v1/apple/notifications"), ("GET", "/v1/customers/ada/entitlements"),
        ("GET", "/healthz"), ("GET", "/readyz"), ("GET", "/metrics"), ("PUT", "/v1/purchases"), ("GET", "/v1/customers/%zz/entitlements"),
    ]

    static func run(_ bytes: [UInt8]) {
        let first = bytes.first ?? 0
        let (method, path) = routes[Int(first & 7)]
        let headers = first & 8 == 0 ? ["authorization": "Bearer \(world.token)"] : ["authorization": String(decoding: bytes.prefix(40), as: UTF8.self)]
        let (route, answer) = world.service.handle(ServeRequest(method: method, path: path, headers: headers, body: Array(bytes.dropFirst())))
        check(!route.isEmpty, "no route label")
        check([200, 400, 401, 404, 405, 409, 413, 422, 500, 503].contains(answer.status), "status \(answer.status) for \(method) \(path)")
        if answer.status >= 400 {
            check((try? JSONSerialization.jsonObject(with: Data(answer.body))) != nil, "a refusal that is not JSON")
        }
        world.inputs += 1
        if world.inputs % 500 == 0 {
            check((try? AuditLog.verify(world.ledger.database).isIntact) == true, "the audit chain broke")
        }
    }

    static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { preconditionFailure("serve: \(message())") }
    }

    /// A purchase of a signed transaction, the same with a receipt-shaped member, and a notification shape.
    static func seeds() throws -> [[UInt8]] {
        let authority = try TestCertificateAuthority.shared()
        let bought = Date(timeIntervalSince1970: 1_746_057_600)
        let payload = TransactionPayload(transactionId: "2000000000000999", bundleId: "com.example.app", productId: "com.example.pro.lifetime",
                                         type: "Non-Consumable", purchaseDate: bought, signedDate: bought, environment: "Production")
        let jws = try JWSBuilder(authority: authority).signedTransaction(payload)
        return [
            [0] + Array("{\"customer\":\"ada\",\"orderId\":\"o-1\",\"signedTransactions\":[\"\(jws)\"]}".utf8),
            [0] + Array("{\"customer\":\"ada\",\"receipt\":\"MIIBdummy\",\"appAccountToken\":\"x\"}".utf8),
            [1] + Array("{\"signedPayload\":\"\(jws)\"}".utf8),
            [2], [5],
        ]
    }
}
