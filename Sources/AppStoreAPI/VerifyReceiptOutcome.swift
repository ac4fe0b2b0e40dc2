import Foundation
import ReceiptCore

/// Apple's final answer to one verifyReceipt call, with how it was reached: the endpoint and
/// environment that answered last and every attempt on the way (redirections 21007/21008 and
/// retries included).
///
/// A non-zero `status` is an answer, not an error: 21003 (could not be authenticated) is what the
/// console shows beside the local decode. Only a call that got no usable answer throws.
public struct VerifyReceiptOutcome: Sendable, CustomStringConvertible {
    /// The decoded answer (`status`, `receipt`, `latest_receipt_info`, `pending_renewal_info`, …).
    public let response: VerifyReceiptResponse
    /// The endpoint that gave the final answer.
    public let endpoint: URL
    /// The environment of that endpoint.
    public let environment: Environment
    /// Every attempt, oldest first.
    public let attempts: [AppStoreAttempt]

    /// An outcome (made by the client; tests and the ledger may rebuild one).
    public init(response: VerifyReceiptResponse, endpoint: URL, environment: Environment, attempts: [AppStoreAttempt]) {
        self.response = response
        self.endpoint = endpoint
        self.environment = environment
        self.attempts = attempts
    }

    /// Apple's final status.
    public var status: Int64 { response.status }
    /// The status's meaning, one line.
    public var meaning: String { VerifyReceiptStatus.meaning(response.status) }
    /// Status 0.
    public var isValid: Bool { response.status == 0 }
    /// How many attempts were retries.
    public var retries: Int { attempts.filter { $0.retry > 0 }.count }
    /// Apple's final status was a failure that a later call may not repeat (21005, 21100–21199
    /// when Apple did not say `is-retryable: false`): the retries ran out.
    public var isTemporaryFailure: Bool {
        VerifyReceiptClient.isRetryable(status: response.status, isRetryable: response.isRetryable)
    }
    /// When the answer's own `environment` names another environment than the endpoint's.
    public var environmentDisagreement: String? {
        let said = response.environment.environment
        guard said != .unknown, said != environment else { return nil }
        return "the \(environment.rawValue.lowercased()) endpoint answered with environment \(response.environment.rawValue ?? said.rawValue)"
    }

    public var description: String {
        "verifyReceipt: status \(status) (\(meaning)) from \(environment.rawValue.lowercased()) \(URLSessionTransport.target(endpoint)) after \(attempts.count) attempt\(attempts.count == 1 ? "" : "s")"
    }
}
