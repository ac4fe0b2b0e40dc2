import Foundation
import AppStoreAPI
import ReceiptCore

/// Apple, as re-verification reaches it: verifyReceipt, the App Store Server API, or both,
/// configured by the caller (the real endpoints, or the built-in simulator).
public struct AppleService: Sendable {
    /// Which service answers for receipts (unified and legacy).
    public let api: AppStoreSettings.API
    public let verifyReceipt: VerifyReceiptClient?
    public let serverAPI: AppStoreServerAPIClient?
    /// What the console's status bar says about who "Apple" is.
    public let label: String

    public init(api: AppStoreSettings.API, verifyReceipt: VerifyReceiptClient?, serverAPI: AppStoreServerAPIClient?, label: String) {
        self.api = api
        self.verifyReceipt = verifyReceipt
        self.serverAPI = serverAPI
        self.label = label
    }
}

/// Serialises every use of one ledger (and its database connection) across concurrent tasks:
/// network calls run in parallel, database work one at a time.
public final class LedgerLock: @unchecked Sendable {
    // `ledger` is only touched while `lock` is held.
    private let lock = NSLock()
    private let ledger: PurchaseLedger

    public init(_ ledger: PurchaseLedger) { self.ledger = ledger }

    public func run<T>(_ body: (PurchaseLedger) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(ledger)
    }
}

/// What re-verifying one stored artefact found and did.
public struct ReverifyReport: Sendable {
    public enum Outcome: String, Sendable, CaseIterable {
        /// Apple answered; its facts were applied (maybe changing nothing).
        case verified
        /// Apple answered that the receipt is not good (21003, 21010, …).
        case rejected
        /// Apple could not be asked or gave no usable answer (network, 5xx after retries, 401).
        case failed
        /// Nothing to ask Apple about this artefact (an answer, or no service for its format).
        case skipped
        /// Apple's answer contradicts the local verdict (valid for a receipt found invalid here,
        /// or the reverse): recorded on the receipt, nothing applied or granted.
        case contradicted
    }

    public let receiptId: Int64
    public let customerId: String?
    public let outcome: Outcome
    /// One line: Apple's status and meaning, or why it failed or was skipped.
    public let summary: String
    public let appleEnvironment: Environment?
    public let comparison: AnswerComparison?
    public let changes: [AppleChange]
    public let attempts: [AppStoreAttempt]
    /// Whether the answer can be retried later with hope (timeouts, 5xx, 21005).
    public let isTemporary: Bool
    /// One line when Apple's answer contradicts the local verdict, nil otherwise.
    public var contradiction: String? = nil

    /// Whether any attempt was rate limited (HTTP 429).
    public var wasRateLimited: Bool {
        attempts.contains { if case .http(429, _) = $0.result { return true } else { return false } }
    }
}
