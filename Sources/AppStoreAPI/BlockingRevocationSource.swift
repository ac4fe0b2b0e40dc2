import Foundation
import ReceiptCore

/// A `RevocationSource` for synchronous callers (the ledger's import and notification paths, the
/// live service's request threads): each question goes to a `RevocationChecker`'s blocking path,
/// which needs no Swift concurrency, so a caller on any thread (a task's included) gets its
/// answer. The checker keeps believed answers until their nextUpdate, so a batch of receipts
/// signed by one chain asks the responder once per certificate.
public final class BlockingRevocationSource: RevocationSource, @unchecked Sendable {
    /// The checker asked.
    public let checker: RevocationChecker
    private let clock: @Sendable () -> Date

    /// A source over `checker` (its policy's mode is the source's); `clock` is the present the
    /// answers are judged at (the real one but in tests).
    public init(checker: RevocationChecker, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.checker = checker
        self.clock = clock
    }

    /// The checker's policy mode.
    public var mode: RevocationPolicy.Mode { checker.policy.mode }

    /// Asks the checker and waits for the answer (each request is bounded by the policy's timeout).
    public func status(of targets: [RevocationTarget]) -> RevocationStatus {
        checker.statusBlocking(of: targets, now: clock())
    }
}
