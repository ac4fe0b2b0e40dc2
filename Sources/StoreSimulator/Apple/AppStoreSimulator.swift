import Foundation
import ReceiptCore

/// The simulated App Store on loopback: verifyReceipt for production and sandbox and the App
/// Store Server API, on one port, answering from a `SimulatorState` and failing on demand
/// through `SimulatorFaults`.
///
///     let state = SimulatorState(authority: try .shared())
///     state.sharedSecret = "s3cret"
///     let simulator = try AppStoreSimulator(state: state)
///     try simulator.start()
///     simulator.verifyReceiptURL(.production)   // http://127.0.0.1:PORT/production/verifyReceipt
///     simulator.serverAPIBaseURL(.sandbox)      // http://127.0.0.1:PORT/sandbox (+ /inApps/v1/…)
///     simulator.faults.latency = 0.02
///     simulator.stop()
public final class AppStoreSimulator: Sendable {
    /// What the simulator knows.
    public let state: SimulatorState
    /// Faults, latency and request counters.
    public let faults: SimulatorFaults
    /// The HTTP server underneath.
    public let server: HTTPServer
    /// The test CA's OCSP responder at `ocspURL` (good for every certificate until revoked).
    public let ocsp: OCSPResponder

    /// A simulator for `state` on `host` (loopback only) and `port` (0: any free port); nothing
    /// listens until `start()`. `clock` gives "now" for signed dates, request dates, token and
    /// subscription checks; `historyPageSize` is the page size of paginated answers.
    public init(state: SimulatorState, faults: SimulatorFaults = SimulatorFaults(), host: String = "127.0.0.1",
                port: UInt16 = 0, historyPageSize: Int = 20, configuration: HTTPServer.Configuration = HTTPServer.Configuration(),
                clock: @escaping @Sendable () -> Date = { Date() }) throws {
        self.state = state
        self.faults = faults
        let ocsp = OCSPResponder(authority: state.authority)
        self.ocsp = ocsp
        let router = SimulatorRouter(state: state, ocsp: ocsp, faults: faults, trust: state.authority.trustStore(), clock: clock,
                                     historyPageSize: max(1, historyPageSize))
        self.server = try HTTPServer(host: host, port: port, configuration: configuration) { router.handle($0) }
    }

    /// Starts listening (see `HTTPServer.start()`).
    public func start() throws {
        faults.allowSleeping()
        try server.start()
    }

    /// Stops: requests sleeping in latency or a delay fault wake at once, then the server stops.
    public func stop() {
        faults.wakeSleepers()
        server.stop()
    }

    /// The port listened on.
    public var port: UInt16 { server.port }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL {
        // Cannot fail: a scheme, an IP literal and a port always make a URL.
        URL(string: "http://\(server.host):\(server.port)") ?? URL(fileURLWithPath: "/")
    }

    /// `http://127.0.0.1:PORT/ocsp`: the OCSP responder for the test CA's certificates.
    public var ocspURL: URL { baseURL.appendingPathComponent("ocsp") }

    /// `http://127.0.0.1:PORT/production/verifyReceipt` or `…/sandbox/verifyReceipt`.
    public func verifyReceiptURL(_ environment: SimulatorEnvironment) -> URL {
        baseURL.appendingPathComponent(environment.pathComponent).appendingPathComponent("verifyReceipt")
    }

    /// The Server API base for an environment, `http://127.0.0.1:PORT/production` or `…/sandbox`,
    /// under which `/inApps/v1/transactions/{id}` and the other paths live.
    public func serverAPIBaseURL(_ environment: SimulatorEnvironment) -> URL {
        baseURL.appendingPathComponent(environment.pathComponent)
    }
}
