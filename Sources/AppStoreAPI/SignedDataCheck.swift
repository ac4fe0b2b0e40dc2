import Foundation
import ReceiptCore

/// A signed transaction from Apple that decoded and verified: ES256 signature, chain to a trusted
/// root at its `signedDate`, Apple's chain policy, the app's bundle id and the environment of
/// the endpoint that returned it.
public struct VerifiedTransaction: Sendable {
    /// The decoded transaction.
    public let transaction: SignedTransaction
    /// The verifier's verdict (always `.valid`).
    public let verdict: Verdict
    /// Shorthand for `transaction.purchase.transactionId`.
    public var transactionId: String? { transaction.purchase.transactionId }
}

/// A signed renewal info from Apple that decoded and verified (as `VerifiedTransaction`).
public struct VerifiedRenewalInfo: Sendable {
    /// The decoded renewal info.
    public let renewalInfo: RenewalInfo
    /// The verifier's verdict (always `.valid`).
    public let verdict: Verdict
}

/// Signed data in Apple's answer that was not believed, and why. It is reported, never used.
public struct RejectedSignedData: Error, Sendable, CustomStringConvertible {
    /// Where in the answer it was ("signedTransactions[3]", "data[0].lastTransactions[1].signedRenewalInfo").
    public let location: String
    /// Why it was refused, one line.
    public let reason: String
    /// The verifier's verdict when the JWS decoded; nil when it did not.
    public let verdict: Verdict?
    /// The transaction id the unverified payload claims, for display only.
    public let claimedTransactionId: String?

    public var description: String {
        "\(location)\(claimedTransactionId.map { " (claims transaction \($0))" } ?? ""): \(reason)"
    }
}

/// Decodes and verifies every JWS the Server API returns before anything believes it.
struct SignedDataCheck: Sendable {
    let verifier: ReceiptVerifier
    /// The app the answers must be about.
    let bundleId: String

    /// The transaction at `location`, verified and from `environment`, or why not.
    func transaction(_ jws: String, environment: Environment, location: String) -> Result<VerifiedTransaction, RejectedSignedData> {
        let transaction: SignedTransaction
        do {
            transaction = try SignedTransaction(compactJWS: jws)
        } catch {
            return .failure(RejectedSignedData(location: location, reason: "does not decode: \(AttemptLoop.describe(error))",
                                               verdict: nil, claimedTransactionId: nil))
        }
        let claimed = transaction.purchase.transactionId
        let verdict = verifier.verify(.transaction(transaction))
        if let reason = problem(verdict, transaction.environment, expected: environment, bundleId: .some(transaction.bundleId)) {
            return .failure(RejectedSignedData(location: location, reason: reason, verdict: verdict, claimedTransactionId: claimed))
        }
        return .success(VerifiedTransaction(transaction: transaction, verdict: verdict))
    }

    /// The renewal info at `location`, verified and from `environment`, or why not.
    func renewalInfo(_ jws: String, environment: Environment, location: String) -> Result<VerifiedRenewalInfo, RejectedSignedData> {
        let info: RenewalInfo
        do {
            info = try RenewalInfo(compactJWS: jws)
        } catch {
            return .failure(RejectedSignedData(location: location, reason: "does not decode: \(AttemptLoop.describe(error))",
                                               verdict: nil, claimedTransactionId: nil))
        }
        let verdict = verifier.verify(.renewalInfo(info))
        if let reason = problem(verdict, info.environment, expected: environment, bundleId: .none) {
            return .failure(RejectedSignedData(location: location, reason: reason, verdict: verdict,
                                               claimedTransactionId: info.originalTransactionId))
        }
        return .success(VerifiedRenewalInfo(renewalInfo: info, verdict: verdict))
    }

    /// Why a decoded JWS is not to be believed, or nil. `bundleId` is `.none` for artefacts that
    /// carry no bundle id (renewal infos), `.some(nil)` for a transaction missing it.
    func problem(_ verdict: Verdict, _ claimed: EnvironmentReading, expected: Environment, bundleId: String??) -> String? {
        guard verdict.status == .valid else { return "does not verify (\(verdict.status.rawValue)): \(verdict.reason)" }
        guard claimed.environment == expected else {
            return "signed for environment \(claimed.rawValue ?? "(none)") but returned by the \(expected.rawValue.lowercased()) endpoint"
        }
        if case .some(let claimedBundle) = bundleId, claimedBundle != self.bundleId {
            return "belongs to bundle id \(claimedBundle ?? "(none)"), not \(self.bundleId)"
        }
        return nil
    }
}
