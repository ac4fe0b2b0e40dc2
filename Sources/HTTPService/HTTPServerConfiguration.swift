extension HTTPServer {
    /// Where the server listens and what it allows. Every limit has a default fit for the service
    /// behind a reverse proxy on the same machine, and every limit is enforced (see `Limits`).
    public struct Configuration: Sendable {
        /// The numeric address to listen on: "127.0.0.1", "::1", "0.0.0.0" or "::". Names are not
        /// resolved (a name that resolves differently tomorrow is not an address to bind).
        public var host: String
        /// The TCP port; 0 lets the kernel choose (read `HTTPServer.port` after `start()`).
        public var port: Int
        /// What a client may send and hold.
        public var limits: Limits
        /// Called once per request that reached the server's access handler, when it is over
        /// (answered, cut or abandoned), on the connection's thread: keep it short. `HTTPMetrics`
        /// provides one that counts into a `Metrics` registry.
        public var observe: (@Sendable (HTTPExchange) -> Void)?
        /// Receives libmicrohttpd's own error messages ("Failed to bind to port …", "Server reached
        /// connection limit …"), one line each, from any thread. Nil drops them.
        public var log: (@Sendable (String) -> Void)?

        /// A configuration; the defaults listen on 127.0.0.1 at a port the kernel picks.
        public init(host: String = "127.0.0.1", port: Int = 0, limits: Limits = Limits(),
                    observe: (@Sendable (HTTPExchange) -> Void)? = nil, log: (@Sendable (String) -> Void)? = nil) {
            self.host = host
            self.port = port
            self.limits = limits
            self.observe = observe
            self.log = log
        }
    }

    /// The limits a client meets. Each is enforced where it is cheapest:
    /// - `maxBodyBytes`: a declared Content-Length over it is answered 413 (a JSON error) before a
    ///   byte of the body is read, and the handler is not called; a chunked body that grows past it
    ///   is cut there (libmicrohttpd 0.9.75 cannot queue an answer in the middle of an upload, so
    ///   the connection is closed; nothing past the limit is kept).
    /// - `maxHeaderBytes`: libmicrohttpd's per-connection memory pool
    ///   (MHD_OPTION_CONNECTION_MEMORY_LIMIT), which holds the request line, the headers and the
    ///   read buffer; a head that does not fit is refused by libmicrohttpd with 431 (or 414 for a
    ///   long request line) and the connection closed.
    /// - `idleTimeout`: MHD_OPTION_CONNECTION_TIMEOUT, whole seconds: a connection on which nothing
    ///   moves for that long is closed (a client that stalls halfway, an idle keep-alive).
    /// - `transferTimeout`: libmicrohttpd's idle timer restarts on every byte, so a client that
    ///   dribbles a byte a second would hold a connection (and its thread) for ever. A watchdog
    ///   shuts the socket of any connection that has not delivered its whole request within this
    ///   time of connecting (or of its previous answer), or has not taken the whole answer within
    ///   it once the handler returned. The handler's own time is not counted.
    /// - `maxConnections`: MHD_OPTION_CONNECTION_LIMIT; one thread per connection, so this also
    ///   bounds the threads. A connection over it is accepted and closed at once, unanswered (a
    ///   reverse proxy answers its client 502 and may retry): libmicrohttpd stops polling its
    ///   listening socket at the limit only in its select(2) mode, and this server uses poll(2) so
    ///   that descriptors above FD_SETSIZE (1024) work. A finished connection frees its slot once
    ///   libmicrohttpd's polling thread has joined its thread, a moment after it closes.
    /// - `maxConnectionsPerIP`: MHD_OPTION_PER_IP_CONNECTION_LIMIT; a connection over it is
    ///   accepted and closed at once. Nil (the default) sets no per-address limit, because behind
    ///   the documented reverse proxy every connection comes from the proxy's own address; set it
    ///   when clients connect directly.
    public struct Limits: Sendable, Equatable {
        /// The largest request body accepted, in bytes (default 4 MiB: an app receipt of a
        /// long-lived subscriber runs to hundreds of KiB in base64).
        public var maxBodyBytes: Int
        /// The per-connection memory for the request line and headers, in bytes (default 32 KiB,
        /// at least 4 KiB).
        public var maxHeaderBytes: Int
        /// How long a connection may sit with nothing moving (default 10 s; whole seconds, at least 1).
        public var idleTimeout: Duration
        /// How long a client may take to send one whole request, and to take one whole answer
        /// (default 30 s).
        public var transferTimeout: Duration
        /// Connections open at once, each with its own thread (default 64).
        public var maxConnections: Int
        /// Connections open at once from one address (default nil: no per-address limit).
        public var maxConnectionsPerIP: Int?
        /// Connections the kernel queues before libmicrohttpd accepts them (default 128).
        public var listenBacklog: Int

        /// Limits; every argument has a default.
        public init(maxBodyBytes: Int = 4 << 20, maxHeaderBytes: Int = 32 << 10, idleTimeout: Duration = .seconds(10),
                    transferTimeout: Duration = .seconds(30), maxConnections: Int = 64, maxConnectionsPerIP: Int? = nil,
                    listenBacklog: Int = 128) {
            self.maxBodyBytes = maxBodyBytes
            self.maxHeaderBytes = maxHeaderBytes
            self.idleTimeout = idleTimeout
            self.transferTimeout = transferTimeout
            self.maxConnections = maxConnections
            self.maxConnectionsPerIP = maxConnectionsPerIP
            self.listenBacklog = listenBacklog
        }

        /// The idle timeout in whole seconds, rounded up (libmicrohttpd counts in seconds).
        var idleTimeoutSeconds: Int {
            let (seconds, attoseconds) = idleTimeout.components
            return Int(seconds) + (attoseconds > 0 ? 1 : 0)
        }

        /// Throws `invalidConfiguration` naming the first limit out of range.
        func validate() throws {
            func refuse(_ what: String) -> HTTPServiceError { HTTPServiceError(.invalidConfiguration, "limits: \(what)") }
            guard maxBodyBytes >= 0 else { throw refuse("maxBodyBytes is \(maxBodyBytes); it cannot be negative") }
            guard maxHeaderBytes >= 4096, maxHeaderBytes <= 1 << 30 else {
                throw refuse("maxHeaderBytes is \(maxHeaderBytes); it must be between 4096 and 1 GiB")
            }
            guard idleTimeout > .zero, idleTimeoutSeconds <= 86_400 else {
                throw refuse("idleTimeout is \(idleTimeout); it must be more than 0 and at most a day")
            }
            guard transferTimeout > .zero, transferTimeout <= .seconds(86_400) else {
                throw refuse("transferTimeout is \(transferTimeout); it must be more than 0 and at most a day")
            }
            guard maxConnections >= 1, maxConnections <= 65_536 else {
                throw refuse("maxConnections is \(maxConnections); it must be between 1 and 65536")
            }
            if let perIP = maxConnectionsPerIP, perIP < 1 || perIP > maxConnections {
                throw refuse("maxConnectionsPerIP is \(perIP); it must be between 1 and maxConnections (\(maxConnections))")
            }
            guard listenBacklog >= 1, listenBacklog <= 65_535 else {
                throw refuse("listenBacklog is \(listenBacklog); it must be between 1 and 65535")
            }
        }
    }
}
