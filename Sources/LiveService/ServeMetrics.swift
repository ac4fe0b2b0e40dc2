import Foundation
import HTTPService

/// The service's own figures beside the HTTP server's (`HTTPMetrics`), in one registry that
/// `/metrics` renders:
///
///     receiptdesk_ledger_outcomes_total{outcome="new"} 812        new, duplicate, conflict,
///     receiptdesk_commit_round_requests_bucket{le="8"} 40         applied, recorded, refused, failed
///     receiptdesk_commit_queue_depth 3
public final class ServeMetrics: Sendable {
    /// The registry `/metrics` renders.
    public let registry: Metrics
    private let outcomes: Counter
    private let rounds: Histogram

    /// Registers the ledger's figures in `registry`; `queueDepth` is read at each render.
    public init(registry: Metrics, queueDepth: @escaping @Sendable () -> Int) throws {
        self.registry = registry
        outcomes = try registry.counter("receiptdesk_ledger_outcomes_total",
                                        help: "What the ledger did with what arrived: new, duplicate, conflict (transactions), applied, recorded (notifications), refused (not believed or not valid), failed (not committed).",
                                        labels: ["outcome"])
        rounds = try registry.histogram("receiptdesk_commit_round_requests", help: "Requests committed together in one write transaction.",
                                        buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256])
        try registry.gauge("receiptdesk_commit_queue_depth", help: "Requests waiting for the ledger's writer.") { Double(queueDepth()) }
    }

    /// One more of `outcome`.
    func count(outcome: String) { outcomes.increment([outcome]) }

    /// How many `outcome` so far (tests).
    public func value(outcome: String) -> Double { outcomes.value([outcome]) }

    /// A commit round's size.
    public func round(_ round: LedgerCommitQueue.Round) { rounds.observe(Double(round.purchases + round.notifications)) }

    /// The text exposition of every figure.
    func exposition() -> String { registry.render() }
}
