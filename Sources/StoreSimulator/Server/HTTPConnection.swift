import Foundation

/// One client connection, served on its own thread: read a request (bounded in size and time),
/// hand it to the handler, write the answer, and keep going while both sides keep the
/// connection alive. Every way out returns; the server closes the descriptor afterwards.
struct HTTPConnection {
    let fd: Int32
    /// The server's wake pipe: readable once the server is stopping.
    let wake: Int32
    let configuration: HTTPServer.Configuration
    let handler: @Sendable (HTTPServerRequest) -> HTTPServerResponse
    /// Whether the server is stopping (checked before keeping a connection alive).
    let isStopping: @Sendable () -> Bool

    /// Largest chunk read at once.
    static let readChunk = 64 * 1024

    /// Serves requests until the client leaves, a request is refused, a timeout passes, or the
    /// server stops.
    func run() {
        var buffer: [UInt8] = []
        while let request = readRequest(&buffer) {
            let response = handler(request)
            if response.dropsConnection { return }
            let keepAlive = request.wantsKeepAlive && !response.closesConnection && !isStopping()
            let bytes = response.serialized(keepAlive: keepAlive, includeBody: request.method != "HEAD")
            guard Socket.sendAll(fd, bytes), keepAlive else { return }
        }
    }

    /// The next request, or nil when the connection should close. `buffer` holds bytes already
    /// received (a pipelined request) and keeps what follows this one.
    private func readRequest(_ buffer: inout [UInt8]) -> HTTPServerRequest? {
        // An idle keep-alive connection may wait `idleTimeout` for its next request; once a
        // request has begun, all of it must arrive within `readTimeout`, however slowly it trickles.
        var started = !buffer.isEmpty
        var deadline = Deadline(seconds: started ? configuration.readTimeout : configuration.idleTimeout)
        var sentContinue = false
        while true {
            switch HTTPRequestParser.parse(buffer, limits: configuration.limits) {
            case .complete(let request, let consumed):
                buffer.removeFirst(consumed)
                return request
            case .invalid(let status, let reason):
                Socket.sendAll(fd, HTTPServerResponse.error(status, reason).serialized(keepAlive: false))
                lingeringClose()
                return nil
            case .incomplete:
                break
            }
            if !sentContinue && HTTPRequestParser.awaitsContinue(buffer, limits: configuration.limits) {
                sentContinue = true
                Socket.sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
            }
            switch Socket.wait(fd, wake: wake, milliseconds: deadline.remainingMilliseconds) {
            case .woken:
                return nil
            case .timedOut:
                if started {
                    let reason = "the request did not arrive within \(configuration.readTimeout) s"
                    Socket.sendAll(fd, HTTPServerResponse.error(408, reason).serialized(keepAlive: false))
                }
                return nil
            case .readable:
                guard let chunk = Socket.receive(fd, count: HTTPConnection.readChunk) else { return nil }
                if !started {
                    started = true
                    deadline = Deadline(seconds: configuration.readTimeout)
                }
                buffer += chunk
            }
        }
    }
}

extension HTTPConnection {
    /// Most bytes read and thrown away after an error answer.
    static let lingerBytes = 1024 * 1024

    /// After an error answer, stops writing and reads (and drops) what the client is still
    /// sending, briefly, so closing does not reset the connection and destroy the answer before
    /// the client has read it.
    func lingeringClose() {
        Socket.shutdownWrite(fd)
        let deadline = Deadline(seconds: 0.5)
        var discarded = 0
        while discarded < HTTPConnection.lingerBytes,
              case .readable = Socket.wait(fd, wake: wake, milliseconds: deadline.remainingMilliseconds),
              let chunk = Socket.receive(fd, count: HTTPConnection.readChunk) {
            discarded += chunk.count
        }
    }
}

/// A point in time a monotonic number of seconds from now.
struct Deadline {
    let end: ContinuousClock.Instant

    init(seconds: Double) {
        let clamped = min(max(seconds, 0), 86_400)
        end = ContinuousClock.now + .nanoseconds(Int64(clamped * 1_000_000_000))
    }

    /// Milliseconds left, rounded up, never negative.
    var remainingMilliseconds: Int {
        let (seconds, attoseconds) = (end - ContinuousClock.now).components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(max(0, milliseconds))
    }
}
