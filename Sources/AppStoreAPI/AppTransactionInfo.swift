import Foundation
import ReceiptCore

/// A signed app transaction from Apple that decoded and verified (as `VerifiedTransaction`).
public struct VerifiedAppTransaction: Sendable {
    /// The decoded app transaction.
    public let appTransaction: AppTransaction
    /// The verifier's verdict (always `.valid`).
    public let verdict: Verdict
}

/// Get App Transaction Info's answer (App Store Server API 1.17), verified:
///
///     {"signedAppTransactionInfo":"eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlF…"}
///
/// Apple's errors for it: 4000006 invalidTransactionId (400), 4040010 transactionIdNotFound and
/// 4040019 appTransactionDoesNotExist (404), 4290000 rateLimitExceeded, 5000000 generalInternal,
/// 5000001 generalInternalRetryable.
public struct ServerAPIAppTransactionInfo: Sendable {
    /// The customer's app transaction, verified.
    public let appTransaction: VerifiedAppTransaction
    /// The environment whose endpoint answered.
    public let environment: Environment
    /// Every attempt, oldest first.
    public let attempts: [AppStoreAttempt]
}

extension SignedDataCheck {
    /// The app transaction at `location`, verified, of this app and from `environment`, or why not.
    func appTransaction(_ jws: String, environment: Environment, location: String) -> Result<VerifiedAppTransaction, RejectedSignedData> {
        let app: AppTransaction
        do {
            app = try AppTransaction(compactJWS: jws)
        } catch {
            return .failure(RejectedSignedData(location: location, reason: "does not decode: \(AttemptLoop.describe(error))",
                                               verdict: nil, claimedTransactionId: nil))
        }
        let verdict = verifier.verify(.appTransaction(app))
        if let reason = problem(verdict, app.environment, expected: environment, bundleId: .some(app.bundleId)) {
            return .failure(RejectedSignedData(location: location, reason: reason, verdict: verdict, claimedTransactionId: app.appTransactionId))
        }
        return .success(VerifiedAppTransaction(appTransaction: app, verdict: verdict))
    }
}

extension AppStoreServerAPIClient {
    /// Get App Transaction Info: the app transaction (the customer's download of the app, with its
    /// `appTransactionId`) of the customer behind `anyTransactionId`: any of their transaction ids,
    /// original transaction ids or their app transaction id. Throws `.unverified` when Apple's
    /// signed app transaction does not verify.
    public func appTransactionInfo(_ anyTransactionId: String, environment: Environment? = nil) async throws -> ServerAPIAppTransactionInfo {
        let id = try AppStoreServerAPIClient.identifier(anyTransactionId, "transaction id")
        var loop = makeLoop()
        let (app, used) = try await withFallback(environment, &loop) { env, loop in
            let body = try await get("/inApps/v1/transactions/appTransactions/\(id)", env, &loop)
            let answer = try ServerAPIAnswer.object(body, "Get App Transaction Info answer")
            guard let jws = try ServerAPIAnswer.field({ try answer.string("signedAppTransactionInfo") }) else {
                throw loop.failure(AppStoreError(.badResponse, "Get App Transaction Info answer has no `signedAppTransactionInfo`", httpStatus: 200))
            }
            switch check.appTransaction(jws, environment: env, location: "signedAppTransactionInfo") {
            case .success(let verified): return (verified, env)
            case .failure(let rejected):
                throw loop.failure(AppStoreError(.unverified, "Get App Transaction Info \(anyTransactionId): \(rejected)", httpStatus: 200))
            }
        }
        return ServerAPIAppTransactionInfo(appTransaction: app, environment: used, attempts: loop.attempts)
    }
}
