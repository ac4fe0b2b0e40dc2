import Foundation

/// Apple's answer held against the verdict the receipt got locally at import. An answer that
/// contradicts it (valid where the local check found the receipt invalid, unsigned or
/// unverifiable, or a refusal of a receipt found valid) is recorded on the receipt and shown; it
/// never grants or revokes by itself, because an answer is only as trustworthy as the endpoint
/// that gave it, while the local verdict rests on Apple's signature.
enum VerdictContradiction {
    /// verifyReceipt statuses that say the receipt itself is not good: malformed (21002) or not
    /// authentic (21003). Others (a wrong shared secret, an unknown account) say nothing of it.
    static let refusalStatuses: Set<Int64> = [21002, 21003]

    /// The line for an answer that vouches for the receipt, when the local verdict does not.
    static func whenAppleVouches(_ question: AppleQuestion, answer: String) -> String? {
        guard question.localVerdict != "valid" else { return nil }
        return "CONTRADICTION: \(answer), but the local verdict is \(question.localVerdict)"
            + (question.localReason.isEmpty ? "" : " (\(question.localReason))")
            + "; nothing applied or granted: check the receipt and the configured Apple endpoint"
    }

    /// The line for an answer that refuses the receipt, when the local verdict found it valid.
    static func whenAppleRefuses(_ question: AppleQuestion, answer: String) -> String? {
        guard question.localVerdict == "valid" else { return nil }
        return "CONTRADICTION: \(answer), but the local verdict is valid; nothing revoked: check the receipt and the configured Apple endpoint"
    }
}
