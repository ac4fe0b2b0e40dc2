import Foundation
import ReceiptCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real `HTTPTransport`, over an ephemeral `URLSession`: no cache, no cookies, no stored
/// credentials, redirects not followed (a redirect would carry the shared secret to another
/// host; it is returned as the 3xx answer it is), a deadline for the whole exchange taken from
/// each request, and answers larger than `maxResponseBytes` refused while they stream in.
///
/// Failures map to `AppStoreError` codes: `URLError.timedOut` and the deadline → `.timeout`;
/// `.cannotConnectToHost` → `.connectionRefused`; `.networkConnectionLost`,
/// `.badServerResponse`, `.cannotParseResponse`, `.zeroByteResource` (a connection dropped or reset
/// before a complete answer) → `.connectionLost`; anything else → `.transport`. Cancelling the
/// calling task cancels the request and throws `CancellationError`.
public final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    // `session` and `delegate` are set once in init; the delegate guards its own state with a lock.

    /// 16 MiB: more than any verifyReceipt answer with a long `latest_receipt_info`.
    public static let defaultMaxResponseBytes = 16 << 20

    /// The largest answer body accepted, in bytes.
    public let maxResponseBytes: Int
    private let session: URLSession
    private let delegate: TransportDelegate

    /// A transport refusing answers over `maxResponseBytes` (at least 1 KiB).
    public init(maxResponseBytes: Int = URLSessionTransport.defaultMaxResponseBytes) {
        self.maxResponseBytes = max(1024, maxResponseBytes)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCredentialStorage = nil
        // Per-request deadlines are enforced by the delegate; these are only outer bounds.
        configuration.timeoutIntervalForRequest = RequestTimeout.bounds.upperBound
        configuration.timeoutIntervalForResource = RequestTimeout.bounds.upperBound * 2
        configuration.httpMaximumConnectionsPerHost = 32
        let delegate = TransportDelegate()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        self.delegate = delegate
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit { session.invalidateAndCancel() }

    /// Whether `RECEIPTDESK_LOOPBACK_ONLY=1` confines every request to loopback (`make test` sets it).
    public static var loopbackOnly: Bool { ProcessInfo.processInfo.environment["RECEIPTDESK_LOOPBACK_ONLY"] == "1" }

    /// Whether the URL's host is a loopback address.
    public static func isLoopback(_ url: URL) -> Bool {
        guard let host = url.host else { return false }
        return LoopbackHost.contains(host)
    }

    /// Sends `request`; see the type's notes for how failures map.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw AppStoreError(.configuration, "\(request.url.absoluteString): only http and https URLs can be sent")
        }
        if URLSessionTransport.loopbackOnly, !URLSessionTransport.isLoopback(request.url) {
            throw AppStoreError(.configuration,
                                "\(URLSessionTransport.target(request.url)): refused: RECEIPTDESK_LOOPBACK_ONLY is set (tests reach nothing but 127.0.0.1)")
        }
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalAndRemoteCacheData,
                                    timeoutInterval: request.timeout.seconds)
        urlRequest.httpMethod = request.method
        urlRequest.httpShouldHandleCookies = false
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        let task = session.dataTask(with: urlRequest)
        let id = task.taskIdentifier
        let delegate = self.delegate
        let limit = maxResponseBytes
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, Error>) in
                delegate.start(task, continuation: continuation, limit: limit, timeout: request.timeout,
                               target: URLSessionTransport.target(request.url))
                if Task.isCancelled { delegate.fail(id, CancellationError()) }
            }
        } onCancel: {
            delegate.fail(id, CancellationError())
        }
    }

    /// `scheme://host:port/path` of `url`, for messages (no query, no user info).
    static func target(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(unreadable URL)" }
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        return components.string ?? "(unreadable URL)"
    }
}

/// Collects each task's answer and turns its end into a result for the waiting continuation.
final class TransportDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // All of `pending` is read and written under `lock`.
    private struct Pending {
        let continuation: CheckedContinuation<HTTPResponse, Error>
        let task: URLSessionTask
        let limit: Int
        let timeout: RequestTimeout
        let target: String
        var response: HTTPURLResponse?
        var body: [UInt8] = []
        /// Set when the transport itself stopped the task (deadline, size, caller cancelled).
        var failure: Error?
    }

    private let lock = NSLock()
    private var pending: [Int: Pending] = [:]

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    func start(_ task: URLSessionTask, continuation: CheckedContinuation<HTTPResponse, Error>, limit: Int,
               timeout: RequestTimeout, target: String) {
        let id = task.taskIdentifier
        locked { pending[id] = Pending(continuation: continuation, task: task, limit: limit, timeout: timeout, target: target) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout.seconds) { [weak self] in
            self?.fail(id, AppStoreError(.timeout, "\(target): no complete answer within \(timeout)"))
        }
        task.resume()
    }

    /// Stops task `id` with `error` (the first reason wins).
    func fail(_ id: Int, _ error: Error) {
        let task: URLSessionTask? = locked {
            guard var entry = pending[id], entry.failure == nil else { return nil }
            entry.failure = error
            pending[id] = entry
            return entry.task
        }
        task?.cancel()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let id = dataTask.taskIdentifier
        let refusal: AppStoreError? = locked {
            guard var entry = pending[id] else { return nil }
            entry.response = response as? HTTPURLResponse
            pending[id] = entry
            guard response.expectedContentLength > Int64(entry.limit) else { return nil }
            return AppStoreError(.responseTooLarge, "\(entry.target): the answer announces \(response.expectedContentLength) bytes, more than the \(entry.limit) accepted")
        }
        if let refusal {
            fail(id, refusal)
            completionHandler(.cancel)
        } else {
            completionHandler(.allow)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let id = dataTask.taskIdentifier
        let refusal: AppStoreError? = locked {
            guard var entry = pending[id], entry.failure == nil else { return nil }
            guard entry.body.count + data.count <= entry.limit else {
                return AppStoreError(.responseTooLarge, "\(entry.target): the answer is larger than the \(entry.limit) bytes accepted")
            }
            entry.body.append(contentsOf: data)
            pending[id] = entry
            return nil
        }
        if let refusal { fail(id, refusal) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        guard let entry = locked({ pending.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let failure = entry.failure {
            entry.continuation.resume(throwing: failure)
        } else if let error {
            entry.continuation.resume(throwing: TransportDelegate.map(error, target: entry.target, timeout: entry.timeout))
        } else if let http = entry.response {
            var headers: [String: String] = [:]
            for (key, value) in http.allHeaderFields {
                guard let name = key as? String else { continue }
                headers[name.lowercased()] = "\(value)"
            }
            entry.continuation.resume(returning: HTTPResponse(status: http.statusCode, headers: headers, body: entry.body))
        } else {
            entry.continuation.resume(throwing: AppStoreError(.connectionLost, "\(entry.target): the connection ended without an HTTP answer"))
        }
    }

    /// A `URLError` as one of the transport codes.
    static func map(_ error: Error, target: String, timeout: RequestTimeout) -> Error {
        guard let urlError = error as? URLError else {
            return AppStoreError(.transport, "\(target): \(error.localizedDescription)")
        }
        switch urlError.code {
        case .timedOut:
            return AppStoreError(.timeout, "\(target): no answer within \(timeout)")
        case .cannotConnectToHost:
            return AppStoreError(.connectionRefused, "\(target): the connection was refused")
        case .networkConnectionLost, .badServerResponse, .cannotParseResponse, .zeroByteResource:
            return AppStoreError(.connectionLost, "\(target): the connection was dropped before a complete answer (URLError \(urlError.code.rawValue))")
        case .cancelled:
            return CancellationError()
        default:
            return AppStoreError(.transport, "\(target): \(urlError.localizedDescription) (URLError \(urlError.code.rawValue))")
        }
    }
}
