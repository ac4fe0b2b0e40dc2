import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// Requests with bodies for the Server API endpoints that act at Apple, and decoding of what
/// they mint.
extension SimulatorFixture {
    /// Sends `method` to a Server API path with a valid token and a JSON body.
    func send(_ method: String, _ environment: SimulatorEnvironment, _ path: String, body: String = "") throws -> WireResponse {
        try #require(try exchange(port: port, method: method, path: "/\(environment.pathComponent)\(path)",
                                  headers: [("Authorization", "Bearer \(try token())"), ("Content-Type", "application/json")],
                                  body: Array(body.utf8)))
    }

    /// The answer's Apple error code (nil when the body has none).
    static func errorCode(_ response: WireResponse) -> Int64? { try? response.json().int("errorCode") }  // nil: no JSON error body

    /// A notification JWS decoded and verified against the simulator's roots.
    func verifiedNotification(_ jws: String) throws -> ServerNotification {
        let notification = try ServerNotification(compactJWS: jws)
        let verdict = ReceiptVerifier(trust: state.authority.trustStore()).verify(.notification(notification))
        #expect(verdict.isValid, "\(verdict.reason)")
        return notification
    }

    /// An active monthly subscription in `environment`, bought ten days before `now`.
    func activeSubscription(_ environment: SimulatorEnvironment = .sandbox, product: String = "pro.monthly",
                            start: Date = SimulatorFixture.day(-10)) throws -> IssuedTransaction {
        try state.register(Self.monthly(start, product: product), environment: environment)
    }
}
