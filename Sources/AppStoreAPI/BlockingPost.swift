import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request sent and waited for on the calling thread, with no Swift concurrency: a
/// URLSession completion handler (dispatch's threads) signals a semaphore. For synchronous callers
/// such as `RevocationChecker.statusBlocking`, which may run on any thread. The same rules as
/// `URLSessionTransport`: http(s) only, loopback only under `RECEIPTDESK_LOOPBACK_ONLY`, the
/// request's timeout, at most `limit` bytes of answer.
enum BlockingPost {
    private static let session = URLSession(configuration: {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        return configuration
    }())

    private final class Outcome: @unchecked Sendable {
        var value: Result<HTTPResponse, AppStoreError>?
    }

    static func send(_ request: HTTPRequest, limit: Int) -> Result<HTTPResponse, AppStoreError> {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            return .failure(AppStoreError(.configuration, "\(request.url.absoluteString): only http and https URLs can be sent"))
        }
        if URLSessionTransport.loopbackOnly, !URLSessionTransport.isLoopback(request.url) {
            return .failure(AppStoreError(.configuration,
                                          "\(URLSessionTransport.target(request.url)): refused: RECEIPTDESK_LOOPBACK_ONLY is set (tests reach nothing but 127.0.0.1)"))
        }
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalAndRemoteCacheData, timeoutInterval: request.timeout.seconds)
        urlRequest.httpMethod = request.method
        urlRequest.httpShouldHandleCookies = false
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        let target = URLSessionTransport.target(request.url)
        let task = session.dataTask(with: urlRequest) { data, response, error in
            if let error {
                outcome.value = .failure(AppStoreError(.transport, "\(target): \(error.localizedDescription)"))
            } else if let http = response as? HTTPURLResponse {
                let body = data.map { [UInt8]($0) } ?? []
                outcome.value = body.count > limit
                    ? .failure(AppStoreError(.responseTooLarge, "\(target): the answer is over \(limit) bytes"))
                    : .success(HTTPResponse(status: http.statusCode, headers: [:], body: body))
            } else {
                outcome.value = .failure(AppStoreError(.badResponse, "\(target): no HTTP answer"))
            }
            done.signal()
        }
        task.resume()
        // The session's own timeout ends the task; this bound only guards against a lost callback.
        guard done.wait(timeout: .now() + request.timeout.seconds + 5) == .success, let value = outcome.value else {
            task.cancel()
            return .failure(AppStoreError(.timeout, "\(target): no answer in \(Int(request.timeout.seconds)) s"))
        }
        return value
    }
}
