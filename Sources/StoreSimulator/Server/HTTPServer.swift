import Foundation

/// A small HTTP/1.1 server on a loopback address, built on POSIX sockets: one thread accepts,
/// one thread serves each connection (at most `maxConnections` at once; more are answered 503),
/// keep-alive by default, `Connection: close` honoured, pipelined requests answered in order.
/// Requests are bounded in size (`HTTPRequestParser.Limits`) and in time (`readTimeout`), and
/// anything malformed gets a 4xx answer and a closed connection, never a crash.
///
///     let server = try HTTPServer(port: 0) { request in .text(200, "hello \(request.path)") }
///     try server.start()
///     print(server.port)      // the port the system chose
///     server.stop()           // closes the listener and every connection, waits for the threads
///
/// The handler runs on the connection's thread and may block (the simulator sleeps in it to
/// inject latency); it must be thread-safe.
public final class HTTPServer: @unchecked Sendable {
    // Mutable state is guarded by `condition` (a lock that also signals threads finishing).

    /// Limits and timeouts.
    public struct Configuration: Sendable {
        /// Request size limits.
        public var limits: HTTPRequestParser.Limits
        /// Seconds a request may take to arrive once its first byte has (slow clients get 408).
        public var readTimeout: Double
        /// Seconds a kept-alive connection may sit idle between requests.
        public var idleTimeout: Double
        /// Seconds one send may block on a client that does not read.
        public var writeTimeout: Double
        /// Connections served at once; more are answered 503 and closed.
        public var maxConnections: Int
        /// Seconds `stop()` waits for busy connections before cutting them off.
        public var stopGracePeriod: Double

        /// A configuration; the defaults are 10 s timeouts, 64 connections, 1 s grace.
        public init(limits: HTTPRequestParser.Limits = .default, readTimeout: Double = 10, idleTimeout: Double = 10,
                    writeTimeout: Double = 10, maxConnections: Int = 64, stopGracePeriod: Double = 1) {
            self.limits = limits
            self.readTimeout = readTimeout
            self.idleTimeout = idleTimeout
            self.writeTimeout = writeTimeout
            self.maxConnections = maxConnections
            self.stopGracePeriod = stopGracePeriod
        }
    }

    private enum Phase { case idle, running, stopped }

    private let address: LoopbackAddress
    private let requestedPort: UInt16
    /// The limits and timeouts this server applies.
    public let configuration: Configuration
    private let handler: @Sendable (HTTPServerRequest) -> HTTPServerResponse

    private let condition = NSCondition()
    private var phase = Phase.idle
    private var listener: Int32 = -1
    private var wakePipe: (read: Int32, write: Int32) = (-1, -1)
    private var boundPort: UInt16 = 0
    private var connections: Set<Int32> = []
    private var runningThreads = 0
    private var acceptRunning = false

    /// A server for `host` (loopback only: 127.0.0.0/8, ::1 or `localhost`) on `port` (0: any
    /// free port). Nothing is bound until `start()`. Throws `SimulatorError.notLoopback` for any
    /// other host, such as `0.0.0.0` or a public address.
    public init(host: String = "127.0.0.1", port: UInt16 = 0, configuration: Configuration = Configuration(),
                handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerResponse) throws {
        self.address = try LoopbackAddress(host)
        self.requestedPort = port
        self.configuration = configuration
        self.handler = handler
    }

    /// The port listened on: the real one once started (also when 0 was asked), else the one asked.
    public var port: UInt16 {
        condition.lock()
        defer { condition.unlock() }
        return phase == .idle ? requestedPort : boundPort
    }

    /// The host as a URL writes it (`127.0.0.1`, `[::1]`).
    public var host: String { address.urlHost }

    /// `http://host:port` once started.
    public var baseURL: URL? { URL(string: "http://\(address.urlHost):\(port)") }

    /// Connections open right now.
    public var openConnections: Int {
        condition.lock()
        defer { condition.unlock() }
        return connections.count
    }

    /// Binds, listens and starts accepting. Throws `SimulatorError.socket` when the port is taken,
    /// `.lifecycle` when started twice or after `stop()`.
    public func start() throws {
        condition.lock()
        defer { condition.unlock() }
        guard phase == .idle else {
            throw SimulatorError(.lifecycle, "HTTP server: start() called on a server that is \(phase == .running ? "already running" : "stopped")")
        }
        let pipe = try Socket.makeWakePipe()
        let listening: (fd: Int32, port: UInt16)
        do {
            listening = try Socket.makeListener(on: address, port: requestedPort, backlog: 128)
        } catch {
            Socket.closeDescriptor(pipe.read)
            Socket.closeDescriptor(pipe.write)
            throw error
        }
        (listener, boundPort, wakePipe) = (listening.fd, listening.port, pipe)
        phase = .running
        acceptRunning = true
        let thread = Thread { [self] in
            acceptLoop(listener: listening.fd, wake: pipe.read)
            condition.lock()
            acceptRunning = false
            condition.broadcast()
            condition.unlock()
        }
        thread.name = "simulator-accept"
        thread.start()
    }

    /// Stops: no new connections, idle connections closed at once, busy ones given
    /// `stopGracePeriod` to finish their answer and then cut off; returns when every thread has
    /// ended (or, for a handler that never returns, after a few more seconds). Idempotent.
    public func stop() {
        condition.lock()
        defer { condition.unlock() }
        guard phase == .running else {
            phase = .stopped
            return
        }
        phase = .stopped
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
        _ = waitForThreads(seconds: configuration.stopGracePeriod)
        for fd in connections { Socket.shutdownBoth(fd) }
        let finished = waitForThreads(seconds: 5)
        if !acceptRunning { Socket.closeDescriptor(listener) }
        // A thread still inside a handler keeps polling the pipe; leave it open for it.
        if finished {
            Socket.closeDescriptor(wakePipe.read)
            Socket.closeDescriptor(wakePipe.write)
        }
    }

    /// Waits (lock held) until the accept thread and every connection thread have ended.
    private func waitForThreads(seconds: Double) -> Bool {
        let limit = Date(timeIntervalSinceNow: seconds)
        while acceptRunning || runningThreads > 0 {
            guard condition.wait(until: limit) else { return !acceptRunning && runningThreads == 0 }
        }
        return true
    }

    private var isStopping: Bool {
        condition.lock()
        defer { condition.unlock() }
        return phase != .running
    }

    private func acceptLoop(listener: Int32, wake: Int32) {
        while true {
            switch Socket.wait(listener, wake: wake, milliseconds: 1000) {
            case .woken: return
            case .timedOut: continue
            case .readable:
                guard let client = Socket.acceptConnection(listener) else {
                    if errno == EMFILE || errno == ENFILE { Thread.sleep(forTimeInterval: 0.01) }
                    continue
                }
                admit(client, wake: wake)
            }
        }
    }

    /// Starts a thread for a new connection, or turns it away when the server is full or stopping.
    private func admit(_ fd: Int32, wake: Int32) {
        Socket.configureConnection(fd, writeTimeout: configuration.writeTimeout)
        condition.lock()
        guard phase == .running, connections.count < configuration.maxConnections else {
            let running = phase == .running
            condition.unlock()
            if running {
                let busy = HTTPServerResponse.error(503, "the simulator is serving \(configuration.maxConnections) connections already")
                Socket.sendAll(fd, busy.serialized(keepAlive: false))
            }
            Socket.closeDescriptor(fd)
            return
        }
        connections.insert(fd)
        runningThreads += 1
        condition.unlock()
        let connection = HTTPConnection(fd: fd, wake: wake, configuration: configuration, handler: handler,
                                        isStopping: { [self] in isStopping })
        let thread = Thread { [self] in
            connection.run()
            condition.lock()
            connections.remove(fd)
            Socket.closeDescriptor(fd)  // under the lock, so stop() never shuts down a reused number
            runningThreads -= 1
            condition.broadcast()
            condition.unlock()
        }
        thread.name = "simulator-connection"
        thread.start()
    }

    deinit {
        stop()
    }
}
