import Foundation
import PurchaseStore
import AppStoreAPI
import ReceiptCore

/// "Apple" for console tests: verifyReceipt answered from a script, never the network.
final class ScriptedApple: HTTPTransport, @unchecked Sendable {
    // `requests` and `opened` are guarded by `lock`; continuations wait for `open()`.
    private let lock = NSLock()
    private var recorded: [String] = []
    private var opened: Bool
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private let answer: @Sendable (HTTPRequest) throws -> HTTPResponse

    /// Answers each request with `answer`; when `gated`, holds every answer until `open()`.
    init(gated: Bool = false, answer: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) {
        self.answer = answer
        opened = !gated
    }

    var paths: [String] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    /// Lets held answers go.
    func open() {
        lock.lock()
        opened = true
        let resume = waiting
        waiting = []
        lock.unlock()
        for continuation in resume { continuation.resume() }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let mustWait = lock.withLock { () -> Bool in
            recorded.append(request.url.path)
            return !opened
        }
        if mustWait {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = lock.withLock { () -> Bool in
                    if opened { return true }
                    waiting.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
        return try answer(request)
    }

    /// An `AppleService` over this transport (verifyReceipt at Apple's URLs, no retries).
    func service() throws -> AppleService {
        let client = try VerifyReceiptClient(productionURL: Self.production, sandboxURL: Self.sandbox, transport: self,
                                             sharedSecret: nil, retry: .never)
        return AppleService(api: .verifyReceipt, verifyReceipt: client, serverAPI: nil, label: "TEST: Apple is scripted")
    }

    static let production = URL(string: "https://buy.itunes.apple.com/verifyReceipt") ?? URL(fileURLWithPath: "/")
    static let sandbox = URL(string: "https://sandbox.itunes.apple.com/verifyReceipt") ?? URL(fileURLWithPath: "/")

    static func json(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(text.utf8))
    }

    /// Production says 21007; sandbox answers with alice's chain as Apple knows it: one renewal
    /// with another expiry, one the receipt lacks, and the refunded one missing.
    static func mismatchAnswer(_ request: HTTPRequest) -> HTTPResponse {
        if request.url.host?.hasPrefix("buy") == true { return json(#"{"status":21007}"#) }
        func entry(_ id: String, _ bought: Int64, _ expires: Int64) -> String {
            #"{"transaction_id":"\#(id)","original_transaction_id":"1000000359369424","product_id":"com.example.pro.monthly","quantity":"1","purchase_date_ms":"\#(bought)","expires_date_ms":"\#(expires)"}"#
        }
        let latest = [entry("1000000359369424", 1_738_368_000_000, 1_740_787_200_000),
                      entry("1000000359369425", 1_740_787_200_000, 1_743_638_400_000),
                      entry("1000000359369427", 1_746_057_600_000, 1_748_736_000_000)]
        return json(#"{"status":0,"environment":"Sandbox","receipt":{"bundle_id":"com.example.app","in_app":[]},"latest_receipt_info":[\#(latest.joined(separator: ","))]}"#)
    }

    /// Apple is down.
    static func unavailable(_ request: HTTPRequest) -> HTTPResponse { json(#"{"errorMessage":"Service Unavailable"}"#, status: 503) }
}
