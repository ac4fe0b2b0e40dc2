import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Enforces `Limits.transferTimeout`: every open connection has a deadline while the client is
/// sending its request or taking its answer, and none while the handler works. One thread wakes
/// at the earliest deadline and shuts down (`shutdown(2)`, not `close`) the socket of each
/// connection past it; libmicrohttpd's connection thread then sees the socket end and closes the
/// connection itself, so the descriptor is never closed twice.
///
/// A descriptor is only shut down while its connection is registered, and libmicrohttpd calls
/// MHD_CONNECTION_NOTIFY_CLOSED (which unregisters, under the same lock) before it closes the
/// descriptor, so a number reused by a newer connection is never touched.
final class ConnectionWatchdog: @unchecked Sendable {
    /// One registered connection.
    private struct Entry {
        /// The connection's socket.
        let socket: Int32
        /// When the client's current transfer must be over; nil while the handler works.
        var deadline: ContinuousClock.Instant?
    }

    private let condition = NSCondition()
    private var entries: [UInt: Entry] = [:]
    private var stopping = false
    private var running = false
    private let timeout: Duration
    private let clock = ContinuousClock()
    private var cuts = 0

    /// Connections cut so far.
    var cutCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return cuts
    }

    /// A watchdog giving each transfer `timeout`.
    init(timeout: Duration) {
        self.timeout = timeout
    }

    /// Starts the watching thread.
    func start() {
        condition.lock()
        running = true
        condition.unlock()
        let thread = Thread { [self] in watch() }
        thread.name = "receiptdesk-http-watchdog"
        thread.start()
    }

    /// Stops the watching thread and waits until it is gone.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    /// A new connection (key: the MHD_Connection's address): its request is due within the timeout.
    func opened(_ key: UInt, socket: Int32) {
        condition.lock()
        entries[key] = Entry(socket: socket, deadline: clock.now.advanced(by: timeout))
        condition.broadcast()
        condition.unlock()
    }

    /// The connection is gone; from now on its descriptor is not ours to touch.
    func closed(_ key: UInt) {
        condition.lock()
        entries[key] = nil
        condition.unlock()
    }

    /// The connection's client has a new transfer to finish within the timeout (the handler
    /// returned and the answer is to be taken, or an answer was taken and the next request may come).
    func transferBegins(_ key: UInt) {
        condition.lock()
        entries[key]?.deadline = clock.now.advanced(by: timeout)
        condition.unlock()
    }

    /// The handler works for this connection: no deadline until it returns.
    func handlerBegins(_ key: UInt) {
        condition.lock()
        entries[key]?.deadline = nil
        condition.unlock()
    }

    /// Waits for the earliest deadline (or a second, or a new connection), cuts what is overdue.
    private func watch() {
        condition.lock()
        while !stopping {
            let now = clock.now
            var earliest = now.advanced(by: .seconds(1))
            for (key, entry) in entries {
                guard let deadline = entry.deadline else { continue }
                if deadline <= now {
                    // The descriptor is still open: CLOSED unregisters under this lock before closing.
                    shutdown(entry.socket, Int32(SHUT_RDWR))
                    entries[key]?.deadline = nil
                    cuts += 1
                } else if deadline < earliest {
                    earliest = deadline
                }
            }
            let wait = now.duration(to: earliest)
            _ = condition.wait(until: Date(timeIntervalSinceNow: wait.seconds + 0.001))
        }
        running = false
        condition.broadcast()
        condition.unlock()
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}
