import Foundation
import ReceiptCore

/// Sends each request of the simulator's one port to its endpoint, after counting it, sleeping
/// the configured latency and applying the first queued fault that matches it:
///
///     POST /production/verifyReceipt        POST /sandbox/verifyReceipt
///     GET, PUT, POST /production/inApps/…  GET, PUT, POST /sandbox/inApps/…   (the Server API)
///     POST /ocsp                            the test CA's OCSP responder (application/ocsp-request)
///     GET  /                                what this server is (JSON)
struct SimulatorRouter: Sendable {
    let state: SimulatorState
    let ocsp: OCSPResponder
    let faults: SimulatorFaults
    let trust: TrustStore
    let clock: @Sendable () -> Date
    let historyPageSize: Int

    func handle(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let components = request.path.split(separator: "/")
        let environment = components.first.flatMap(SimulatorEnvironment.init(pathComponent:))
        let isVerifyReceipt = environment != nil && components.count == 2 && components[1] == "verifyReceipt"
        let fault = faults.begin(method: request.method, path: request.path, isVerifyReceipt: isVerifyReceipt)
        defer { faults.end() }
        faults.sleep(faults.latency)
        switch fault {
        case .status(let code, let retryable)?:
            var members: [(String, JSONValue)] = [("status", .int(code))]
            if let retryable { members.append(("is-retryable", .bool(retryable))) }
            return .json(200, .object(members))
        case .http(let status)?:
            return .json(status, isVerifyReceipt ? .object([("status", .int(21005))]) : ServerAPIError.forStatus(status))
        case .rateLimited(let retryAfter)?:
            return .json(429, ServerAPIError.forStatus(429), headers: [("Retry-After", retryAfter)])
        case .delay(let seconds)?:
            faults.sleep(seconds)
        case .drop?:
            return .drop()
        case nil:
            break
        }
        return route(request, components: components, environment: environment)
    }

    private func route(_ request: HTTPServerRequest, components: [Substring], environment: SimulatorEnvironment?) -> HTTPServerResponse {
        guard HTTPServerRouting.knownMethods.contains(request.method) else {
            return .error(405, "method \(request.method) is not supported")
        }
        if components.isEmpty {
            guard request.method == "GET" || request.method == "HEAD" else {
                return .json(405, .object([("error", .string("Method Not Allowed"))]), headers: [("Allow", "GET")])
            }
            return .json(200, index())
        }
        if components == ["ocsp"] {
            guard request.method == "POST" else { return .error(405, "the OCSP responder answers POST only") }
            return HTTPServerResponse(status: 200, headers: [("Content-Type", "application/ocsp-response")],
                                      body: ocsp.answer(request.body, now: clock()))
        }
        guard let environment else { return .error(404, "nothing at \(request.path); paths start with /production or /sandbox") }
        // A request that only reads answers with what other processes saved meanwhile (one that
        // changes reads it again under the lock anyway). When the state file cannot be read
        // now, the records stay as they were: answering from them beats failing, and the next
        // change reports the problem.
        if !ServerAPIEndpoints.changes(request, components: components.dropFirst()) { try? state.catchUp() }
        state.waitUntilLoaded()
        if let failure = state.backgroundLoadFailure, (try? state.catchUpAfterFailedLoad()) == nil {
            return .error(500, "the simulator's saved state could not be read: \(failure)")
        }
        let rest = Array(components.dropFirst())
        if rest == ["verifyReceipt"] {
            guard request.method == "POST" || request.method == "GET" else {
                return .json(405, .object([("error", .string("Method Not Allowed"))]), headers: [("Allow", "POST")])
            }
            return VerifyReceiptEndpoint(state: state, trust: trust, environment: environment, now: clock()).answer(request)
        }
        if rest.first == "inApps" {
            return ServerAPIEndpoints(state: state, environment: environment, now: clock(), pageSize: historyPageSize)
                .answer(request, components: rest)
        }
        return .error(404, "nothing at \(request.path)")
    }

    /// `GET /`: what this server is and where its endpoints are.
    private func index() -> JSONValue {
        func paths(_ environment: SimulatorEnvironment) -> JSONValue {
            .object([("verifyReceipt", .string("/\(environment.pathComponent)/verifyReceipt")),
                     ("serverAPI", .string("/\(environment.pathComponent)"))])
        }
        return .object([
            ("simulator", .string("receiptdesk App Store simulator: test keys, not Apple")),
            ("bundleId", .string(state.bundleId)),
            ("production", paths(.production)),
            ("sandbox", paths(.sandbox)),
        ])
    }
}

/// Methods the simulator recognises at all; anything else is answered 405.
enum HTTPServerRouting {
    static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]
}
