import CMicroHTTPD
import Foundation

/// The part of a running `HTTPServer` that libmicrohttpd calls back into (through
/// `MHDCallbacks`, with this object as the closure pointer): the request life cycle, the limits
/// that need Swift, the counters, and the stop barrier. Retained once for the daemon's lifetime
/// and released after MHD_stop_daemon, when no callback can come any more.
final class ServerCore: @unchecked Sendable {
    let limits: HTTPServer.Limits
    let handler: @Sendable (HTTPServerRequest) -> HTTPServerResponse
    let observe: (@Sendable (HTTPExchange) -> Void)?
    let log: (@Sendable (String) -> Void)?
    let watchdog: ConnectionWatchdog
    let clock = ContinuousClock()

    /// Guards everything below; stop waits on it for the in-flight count to reach zero.
    private let condition = NSCondition()
    private var inFlightCount = 0
    private var startedCount = 0
    private var stopping = false
    private var startLog: [String]? = []

    init(configuration: HTTPServer.Configuration, handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerResponse) {
        limits = configuration.limits
        self.handler = handler
        observe = configuration.observe
        log = configuration.log
        watchdog = ConnectionWatchdog(timeout: configuration.limits.transferTimeout)
    }

    // MARK: counters and the stop barrier

    /// Requests whose head has been read and that are not over yet.
    var inFlight: Int { locked { inFlightCount } }
    /// Requests whose head has been read, since the start.
    var started: Int { locked { startedCount } }

    /// From now on answers say `Connection: close`.
    func beginStopping() { locked { stopping = true } }

    /// Waits until no request is in flight or `deadline` passes; returns the number still in flight.
    func waitForInFlight(until deadline: ContinuousClock.Instant) -> Int {
        condition.lock()
        defer { condition.unlock() }
        while inFlightCount > 0 {
            let left = clock.now.duration(to: deadline)
            guard left > .zero else { break }
            _ = condition.wait(until: Date(timeIntervalSinceNow: left.seconds))
        }
        return inFlightCount
    }

    /// What libmicrohttpd logged while starting, and stops collecting.
    func takeStartLog() -> [String] {
        locked {
            defer { startLog = nil }
            return startLog ?? []
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    // MARK: callbacks

    /// A line from libmicrohttpd: kept for the start error while starting, passed to the log.
    func logged(_ line: String) {
        locked { startLog?.append(line) }
        log?(line)
    }

    /// MHD_CONNECTION_NOTIFY_STARTED / _CLOSED.
    func connection(_ connection: OpaquePointer, opened: Bool) {
        let key = Self.key(connection)
        if opened {
            watchdog.opened(key, socket: rd_mhd_connection_fd(connection))
        } else {
            watchdog.closed(key)
        }
    }

    /// The access handler: called once when the head is read (`slot` still nil), once per piece
    /// of body with `uploadSize` > 0, and once more with 0 when the request is whole.
    func access(_ connection: OpaquePointer, method: String, path: String, version: String,
                upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
                slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let raw = slot.pointee else {
            return head(connection, method: method, path: path, version: version, slot: slot)
        }
        let context = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
        let count = uploadSize.pointee
        if count > 0 {
            guard context.body.count + count <= limits.maxBodyBytes, let upload else {
                // libmicrohttpd 0.9.75 takes no answer in the middle of an upload: end the connection.
                context.refused = true
                context.route = "refused"
                logged("request body passed \(limits.maxBodyBytes) bytes while streaming: \(Self.printable(method)) "
                       + "\(Self.printable(path)); connection closed")
                return MHD_Result.NO
            }
            context.body.append(contentsOf: UnsafeRawBufferPointer(start: upload, count: count))
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        guard context.status == nil, let request = context.request else { return MHD_Result.YES }
        let key = Self.key(connection)
        watchdog.handlerBegins(key)
        let whole = request.withBody(context.body)
        context.body = []
        let response = handler(whole)
        watchdog.transferBegins(key)
        context.route = response.route ?? "unmatched"
        return queue(response, on: connection, for: context)
    }

    /// The first call: the context is made and retained into `slot`; a declared body over the
    /// limit is answered 413 at once.
    private func head(_ connection: OpaquePointer, method: String, path: String, version: String,
                      slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        let context = RequestContext(method: method, started: clock.now)
        slot.pointee = Unmanaged.passRetained(context).toOpaque()
        locked {
            inFlightCount += 1
            startedCount += 1
        }
        let request = RequestHead.read(connection, method: method, path: path, version: version)
        context.request = request
        let chunked = request.headers["transfer-encoding"]?.lowercased().contains("chunked") ?? false
        if !chunked, let declared = request.headers["content-length"].flatMap({ UInt64($0) }) {
            if declared > UInt64(limits.maxBodyBytes) {
                context.refused = true
                context.route = "refused"
                let message = "request body is \(declared) bytes; this service takes at most \(limits.maxBodyBytes)"
                return queue(.error(413, message, route: "refused"), on: connection, for: context)
            }
            context.body.reserveCapacity(Int(declared))
        }
        return MHD_Result.YES
    }

    /// Hands `response` to libmicrohttpd (which copies the body), or a 500 when it cannot be sent
    /// as given; MHD_NO (the connection is closed) only when libmicrohttpd refuses the queueing.
    private func queue(_ response: HTTPServerResponse, on connection: OpaquePointer, for context: RequestContext) -> MHD_Result {
        let isStopping = locked { stopping }
        var answer = response
        var made = ResponseBuilder.make(answer, closing: isStopping)
        if case .failure(let problem) = made {
            logged("answer to \(Self.printable(context.method)) refused: \(problem); answered 500 instead")
            answer = .error(500, "the service could not form its answer")
            made = ResponseBuilder.make(answer, closing: isStopping)
        }
        guard case .success(let mhdResponse) = made else { return MHD_Result.NO }
        defer { MHD_destroy_response(mhdResponse) }
        let queued = MHD_queue_response(connection, UInt32(answer.status), mhdResponse)
        if queued == MHD_Result.YES {
            context.status = answer.status
        } else {
            logged("libmicrohttpd refused to queue a \(answer.status) answer to \(Self.printable(context.method)); connection closed")
        }
        return queued
    }

    /// MHD_OPTION_NOTIFY_COMPLETED: the request is over; its context is released here, once.
    func completed(_ connection: OpaquePointer?, slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                   delivered: Bool) {
        guard let slot, let raw = slot.pointee else { return }
        slot.pointee = nil
        let context = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
        if let connection { watchdog.transferBegins(Self.key(connection)) }
        // Reported before it stops counting as in flight, so a reader who sees the gauge at 0
        // (or a stop that waited for it) sees every report.
        observe?(HTTPExchange(method: context.method, route: context.route, status: context.status,
                              delivered: delivered && context.status != nil,
                              seconds: context.started.duration(to: clock.now).seconds,
                              bodyBytes: context.received))
        locked {
            inFlightCount -= 1
            if inFlightCount == 0 { condition.broadcast() }
        }
    }

    /// What a client sent, fit for one log line: control characters escaped, at most 200 characters.
    static func printable(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(200) {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return text.unicodeScalars.count > 200 ? out + "…" : out
    }

    /// The watchdog's key for a connection: its address, unique while it is open.
    static func key(_ connection: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
    }
}
