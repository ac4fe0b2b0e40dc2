import Foundation

/// POSTs a notification body to the merchant's URL the way Apple does, over a plain socket to a
/// loopback address (the only kind of URL `SimulatorState.setNotificationURL` accepts):
///
///     POST /path HTTP/1.1
///     Host: 127.0.0.1:PORT
///     Content-Type: application/json
///     Content-Length: N
///     Connection: close
///
///     {"signedPayload":"<JWS>"}
///
/// and reads only the status line: 2xx → SUCCESS, another status → UNSUCCESSFUL_HTTP_RESPONSE_CODE,
/// refused or closed without an answer → NO_RESPONSE, no answer within `timeout` → TIMED_OUT,
/// something that is not HTTP → INVALID_RESPONSE.
enum NotificationDelivery {
    /// The largest status line read before giving up on the answer.
    static let maxStatusLineBytes = 4096

    /// The checked parts of a notification URL: loopback address, port, request target.
    struct Target: Sendable, Equatable {
        let address: LoopbackAddress
        let port: UInt16
        let requestTarget: String
    }

    /// The URL's address, port and path, or the reason it is refused.
    static func target(_ url: URL) throws -> Target {
        guard url.scheme?.lowercased() == "http" else {
            throw SimulatorError(.invalidRequest, "notification URL \(url.absoluteString.prefix(200)): only http:// to a loopback address is allowed")
        }
        guard let host = url.host, !host.isEmpty else {
            throw SimulatorError(.invalidRequest, "notification URL \(url.absoluteString.prefix(200)) has no host")
        }
        let address: LoopbackAddress
        do {
            address = try LoopbackAddress(host)
        } catch {
            throw SimulatorError(.notLoopback, "notification URL \(url.absoluteString.prefix(200)): the simulator only posts to loopback (127.0.0.0/8 or ::1), not '\(host.prefix(64))'")
        }
        guard let port = UInt16(exactly: url.port ?? 80), port != 0 else {
            throw SimulatorError(.invalidRequest, "notification URL \(url.absoluteString.prefix(200)): port out of range")
        }
        let path = url.path.isEmpty ? "/" : url.path
        let query = url.query.map { "?" + $0 } ?? ""
        let requestTarget = path + query
        guard !requestTarget.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw SimulatorError(.invalidRequest, "notification URL \(url.absoluteString.prefix(200)): the path holds spaces or control characters")
        }
        return Target(address: address, port: port, requestTarget: requestTarget)
    }

    /// Posts `body` to `url` and says how it went; never throws (a bad URL is OTHER).
    static func post(body: String, to url: URL, timeout: Double) -> NotificationSendResult {
        guard let target = try? target(url) else { return .other }  // setNotificationURL already refused bad URLs
        guard let fd = Socket.connect(to: target.address, port: target.port, timeout: timeout) else { return .noResponse }
        defer { Socket.closeDescriptor(fd) }
        let hostHeader = "\(target.address.urlHost):\(target.port)"
        let head = "POST \(target.requestTarget) HTTP/1.1\r\nHost: \(hostHeader)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\nUser-Agent: receiptdesk-simulator\r\n\r\n"
        guard Socket.sendAll(fd, Array((head + body).utf8)) else { return .noResponse }
        let deadline = Date().addingTimeInterval(timeout)
        var received: [UInt8] = []
        while !received.contains(0x0A) && received.count < maxStatusLineBytes {
            let remaining = Int(deadline.timeIntervalSinceNow * 1000)
            guard remaining > 0 else { return .timedOut }
            switch Socket.wait(fd, wake: -1, milliseconds: remaining) {
            case .timedOut, .woken: return .timedOut
            case .readable:
                guard let chunk = Socket.receive(fd, count: 4096) else { return received.isEmpty ? .noResponse : .invalidResponse }
                received += chunk
            }
        }
        return classify(statusLine: received)
    }

    /// SUCCESS for `HTTP/1.x 2xx`, UNSUCCESSFUL_HTTP_RESPONSE_CODE for another status, else INVALID_RESPONSE.
    static func classify(statusLine bytes: [UInt8]) -> NotificationSendResult {
        let line = String(decoding: bytes.prefix { $0 != 0x0A && $0 != 0x0D }, as: UTF8.self)
        let parts = line.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let status = Int(parts[1]) else {
            return .invalidResponse
        }
        return (200...299).contains(status) ? .success : .unsuccessfulHTTPResponseCode
    }
}
