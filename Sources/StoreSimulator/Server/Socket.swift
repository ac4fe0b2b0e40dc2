#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX socket calls the server makes, each turning C's conventions (negative returns,
/// `errno`) into Swift values. Only this file and `LoopbackAddress` touch the C socket API (the
/// server's listener and connections, and the one outgoing connection notifications use).
enum Socket {
    #if os(Linux)
    static let streamType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    static let streamType = SOCK_STREAM
    static let sendFlags: Int32 = 0
    #endif

    /// A listening TCP socket bound to `address`:`port` (0: any free port) and the port it got.
    static func makeListener(on address: LoopbackAddress, port: UInt16, backlog: Int32) throws -> (fd: Int32, port: UInt16) {
        let domain: Int32
        switch address.family {
        case .ipv4: domain = AF_INET
        case .ipv6: domain = AF_INET6
        }
        let fd = socket(domain, streamType, 0)
        guard fd >= 0 else { throw failure("socket") }
        do {
            try setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            #if !os(Linux)
            try setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1)
            #endif
            if case .ipv6 = address.family { try setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 1) }
            let bound = withSocketAddress(address, port: port) { bind(fd, $0, $1) }
            guard bound == 0 else { throw failure("bind to \(address.urlHost):\(port)") }
            guard listen(fd, backlog) == 0 else { throw failure("listen") }
            let (family, actualPort) = try localAddress(fd)
            guard LoopbackAddress.isLoopback(family) else {
                throw SimulatorError(.notLoopback, "the socket was bound to a non-loopback address; closing it")
            }
            return (fd, actualPort)
        } catch {
            _ = close(fd)
            throw error
        }
    }

    /// A TCP connection to `address`:`port` (a loopback address, for delivering notifications),
    /// with `timeout` seconds for the connect and each send; nil when it cannot be made.
    static func connect(to address: LoopbackAddress, port: UInt16, timeout: Double) -> Int32? {
        let domain: Int32
        switch address.family {
        case .ipv4: domain = AF_INET
        case .ipv6: domain = AF_INET6
        }
        let fd = socket(domain, streamType, 0)
        guard fd >= 0 else { return nil }
        configureConnection(fd, writeTimeout: timeout)  // SO_SNDTIMEO also bounds connect on Linux
        var result: Int32
        repeat {
            result = withSocketAddress(address, port: port) { posixConnect(fd, $0, $1) }
        } while result != 0 && errno == EINTR
        guard result == 0 else {
            _ = close(fd)
            return nil
        }
        return fd
    }

    /// Calls `body` with `address`:`port` as a `sockaddr` and its length (for bind and connect).
    private static func withSocketAddress(_ address: LoopbackAddress, port: UInt16,
                                          _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        switch address.family {
        case .ipv4(let bytes):
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &socketAddress.sin_addr) { $0.copyBytes(from: bytes) }
            return withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .ipv6(let bytes):
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &socketAddress.sin6_addr) { $0.copyBytes(from: bytes) }
            return withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
    }

    /// The address and port a socket is bound to.
    static func localAddress(_ fd: Int32) throws -> (LoopbackAddress.Family, UInt16) {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw failure("getsockname") }
        switch Int32(storage.ss_family) {
        case AF_INET:
            let address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            return (.ipv4(withUnsafeBytes(of: address.sin_addr) { Array($0) }), UInt16(bigEndian: address.sin_port))
        case AF_INET6:
            let address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            return (.ipv6(withUnsafeBytes(of: address.sin6_addr) { Array($0) }), UInt16(bigEndian: address.sin6_port))
        default:
            throw SimulatorError(.socket, "getsockname: unexpected address family \(storage.ss_family)")
        }
    }

    /// Accepts one connection; nil when none was ready or the call was interrupted.
    static func acceptConnection(_ listener: Int32) -> Int32? {
        let fd = accept(listener, nil, nil)
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
    }

    /// Options for an accepted connection: no Nagle delay, a bounded wait for each send.
    static func configureConnection(_ fd: Int32, writeTimeout: Double) {
        // Best effort: a connection without these options still works, only less promptly.
        try? setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        #if !os(Linux)
        try? setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1)
        #endif
        let seconds = min(max(writeTimeout, 0.001), 86_400)
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: .init((seconds - Double(Int(seconds))) * 1_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// What waiting for input ended with.
    enum Readiness {
        /// The socket has bytes (or end of stream) to read.
        case readable
        /// The wake pipe fired: the server is stopping.
        case woken
        /// The time ran out.
        case timedOut
    }

    /// Waits until `fd` is readable, `wake` is readable, or `milliseconds` pass.
    static func wait(_ fd: Int32, wake: Int32, milliseconds: Int) -> Readiness {
        var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0), pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        while true {
            let result = poll(&fds, nfds_t(fds.count), Int32(clamping: max(0, milliseconds)))
            if result < 0 && errno == EINTR { continue }
            if result <= 0 { return result == 0 ? .timedOut : .readable }  // an error shows on the next read
            if fds[0].revents != 0 { return .woken }
            return .readable
        }
    }

    /// Reads up to `count` bytes; nil at end of stream or on an error.
    static func receive(_ fd: Int32, count: Int) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: count)
        while true {
            let read = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, count, 0) }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { return nil }
            return Array(chunk.prefix(read))
        }
    }

    /// Writes every byte (or gives up on an error or a send timeout); whether all were sent.
    @discardableResult
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress.map { $0 + offset }, bytes.count - offset, sendFlags)
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// A pipe whose read end wakes every `wait` when one byte is written to it.
    static func makeWakePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw failure("pipe") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }

    /// Ends both directions of a connection, waking a thread blocked on it.
    static func shutdownBoth(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Ends the sending direction (the peer reads end of stream) and keeps receiving.
    static func shutdownWrite(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes a descriptor.
    static func closeDescriptor(_ fd: Int32) {
        _ = close(fd)
    }

    private static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) throws {
        var value = value
        guard setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw failure("setsockopt \(name)")
        }
    }

    private static func failure(_ call: String) -> SimulatorError {
        SimulatorError(.socket, "\(call) failed: \(String(cString: strerror(errno)))")
    }
}

/// `connect(2)`, under a name `Socket.connect` does not shadow.
private func posixConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    #if canImport(Glibc)
    return Glibc.connect(fd, address, length)
    #else
    return Darwin.connect(fd, address, length)
    #endif
}
