import CMicroHTTPD
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server on GNU libmicrohttpd: it listens on one address, reads each request whole
/// (head and body, within `Limits`), calls the handler with it and sends what the handler answers.
///
///     let server = try HTTPServer(configuration: .init(host: "127.0.0.1", port: 8080)) { request in
///         .text(200, "ok")
///     }
///     try server.start()
///     …
///     server.stop(grace: .seconds(10))
///
/// **Threading: one thread per connection** (MHD_USE_THREAD_PER_CONNECTION with
/// MHD_USE_INTERNAL_POLLING_THREAD, poll(2), and `Limits.maxConnections` as the bound). The
/// handler may block (a purchase waits for its group commit to reach the database), and here a
/// blocked handler holds only its own connection. With libmicrohttpd's other model, a pool of
/// event-loop threads each serving many connections, a blocking handler stalls every connection
/// of its thread; avoiding that needs MHD_suspend_connection plus a queue of our own. Measured on
/// the 2-core machine (loopback, debug build, three rounds each; the trivial handler answers "ok"):
///
///     model                        16 clients, handler sleeps 50 ms   new connections/s   keep-alive requests/s
///     thread per connection        0.054–0.057 s                      4,600–5,300         10,000–12,200
///     pool of 2 epoll threads      0.46–0.66 s                        7,900–9,800         11,500–18,200
///     pool of 4 epoll threads      0.30–0.61 s                        6,600–10,900        12,000–15,300
///
/// The pool opens connections faster (no thread start per connection), but a blocking handler
/// serialises every connection of its thread, 6–12 times slower here; the service needs tens of
/// requests a second, not thousands, and must not let one slow commit hold other requests. The
/// price is one thread (and its stack) per open connection, which `maxConnections` bounds.
///
/// **Stopping** (`stop(grace:)`): libmicrohttpd stops accepting (MHD_quiesce_daemon, and the
/// listening socket is shut so new connections are refused at once rather than left in the
/// kernel's queue), requests already read go on and their answers go out with
/// `Connection: close`, then MHD_stop_daemon closes what is left (idle keep-alive connections,
/// requests still arriving).
///
/// **Signals**: libmicrohttpd writes with `MSG_NOSIGNAL` on Linux and blocks SIGPIPE on its
/// polling thread, so a client that resets the connection mid-answer cannot kill the process.
public final class HTTPServer: @unchecked Sendable {
    /// The configuration it was made with.
    public let configuration: Configuration
    private let core: ServerCore
    private let address: SocketAddress

    private enum State {
        case idle
        case running(daemon: OpaquePointer, closure: Unmanaged<ServerCore>)
        case stopped
    }

    private let lock = NSLock()
    private var state = State.idle
    private var boundPort = 0
    /// Held by `stop` from start to end, so a second caller returns only once the server is stopped.
    private let stopLock = NSLock()

    /// A server that will listen as `configuration` says and answer with `handler`, which is
    /// called on the connection's thread, for many connections at once. Throws
    /// `invalidConfiguration` for a limit out of range or a host that is not a numeric address.
    public init(configuration: Configuration = Configuration(),
                handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerResponse) throws {
        try configuration.limits.validate()
        address = try SocketAddress(host: configuration.host, port: configuration.port)
        self.configuration = configuration
        core = ServerCore(configuration: configuration, handler: handler)
    }

    deinit {
        stop(grace: .zero)
    }

    /// Binds and starts serving. Throws `lifecycle` when started before, `startFailed` (with
    /// what libmicrohttpd logged, such as "Failed to bind to port 8080: Address already in use")
    /// when the daemon does not start.
    public func start() throws {
        lock.lock()
        defer { lock.unlock() }
        guard case .idle = state else { throw HTTPServiceError(.lifecycle, "the HTTP server was already started") }
        let limits = configuration.limits
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_THREAD_PER_CONNECTION.rawValue
            | MHD_USE_POLL.rawValue | MHD_USE_ITC.rawValue | MHD_USE_ERROR_LOG.rawValue
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        var options: [MHD_OptionItem] = [
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: limits.maxConnections, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: limits.maxHeaderBytes, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: limits.idleTimeoutSeconds, ptr_value: nil),
            MHD_OptionItem(option: .LISTEN_BACKLOG_SIZE, value: limits.listenBacklog, ptr_value: nil),
            // Strict parsing: an HTTP/1.1 request without Host and a space inside the target are refused.
            MHD_OptionItem(option: .STRICT_FOR_CLIENT, value: 1, ptr_value: nil),
        ]
        if let perIP = limits.maxConnectionsPerIP {
            options.append(MHD_OptionItem(option: .PER_IP_CONNECTION_LIMIT, value: perIP, ptr_value: nil))
        }
        let closure = Unmanaged.passRetained(core)
        core.watchdog.start()
        var storage = address.storage
        let daemon = withUnsafeMutablePointer(to: &storage) { sockaddr -> OpaquePointer? in
            options.append(MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: UnsafeMutableRawPointer(sockaddr)))
            options.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))
            return options.withUnsafeMutableBufferPointer { items in
                rd_mhd_start_daemon(flags, MHDCallbacks.access, MHDCallbacks.completed, MHDCallbacks.connection,
                                    MHDCallbacks.log, closure.toOpaque(), items.baseAddress)
            }
        }
        let startLog = core.takeStartLog()
        guard let daemon else {
            core.watchdog.stop()
            closure.release()
            state = .stopped
            let said = startLog.isEmpty ? "" : ": " + startLog.joined(separator: "; ")
            throw HTTPServiceError(.startFailed, "libmicrohttpd did not start on \(configuration.host) port \(configuration.port)\(said)")
        }
        boundPort = Int(rd_mhd_bound_port(daemon))
        state = .running(daemon: daemon, closure: closure)
    }

    /// The port it listens on (the kernel's choice when configured with 0); 0 before `start()`.
    public var port: Int {
        lock.lock()
        defer { lock.unlock() }
        return boundPort
    }

    /// Requests whose head has been read and that are not over yet (the in-flight gauge).
    public var inFlight: Int { core.inFlight }

    /// Requests whose head has been read since the start (a counter).
    public var requestsStarted: Int { core.started }

    /// Connections open now, as libmicrohttpd counts them; 0 when not running.
    public var openConnections: Int {
        lock.lock()
        defer { lock.unlock() }
        guard case .running(let daemon, _) = state else { return 0 }
        return Int(rd_mhd_current_connections(daemon))
    }

    /// Connections cut by the watchdog for taking longer than `transferTimeout` to send a request
    /// or take an answer, since the start.
    public var transfersCut: Int { core.watchdog.cutCount }

    /// Stops the server: no new connection is accepted from now on (a new one is refused); a
    /// request already read is given until `grace` has passed to be handled and answered; then
    /// every connection is closed and libmicrohttpd's threads are joined, which also waits for
    /// any handler still running (a handler must not block for ever). Calling it again, or on a
    /// server never started, does nothing; a second caller returns once the server is stopped.
    public func stop(grace: Duration = .seconds(10)) {
        stopLock.lock()
        defer { stopLock.unlock() }
        lock.lock()
        guard case .running(let daemon, let closure) = state else {
            if case .idle = state { state = .stopped }
            lock.unlock()
            return
        }
        lock.unlock()
        let deadline = core.clock.now.advanced(by: max(grace, .zero))
        core.beginStopping()
        let listener = MHD_quiesce_daemon(daemon)
        if listener >= 0 {
            // Linux: shutting a listening socket down makes the kernel refuse new connections and
            // reset the queued ones. Closing must wait for MHD_stop_daemon (libmicrohttpd's rule:
            // one of its threads may still hold the descriptor).
            shutdown(listener, Int32(SHUT_RDWR))
        }
        let unfinished = core.waitForInFlight(until: deadline)
        if unfinished > 0 {
            core.logged("stopping with \(unfinished) request\(unfinished == 1 ? "" : "s") still in flight after the grace of \(grace)")
        }
        MHD_stop_daemon(daemon)
        if listener >= 0 { close(listener) }
        core.watchdog.stop()
        closure.release()
        lock.lock()
        state = .stopped
        lock.unlock()
    }
}
