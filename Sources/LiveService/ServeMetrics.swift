import Foundation
import HTTPService

/// The service's own figures beside the HTTP server's (`HTTPMetrics`), in one registry that
/// `/metrics` renders:
///
///     receiptdesk_ledger_outcomes_total{outcome="new"} 812        new, duplicate, conflict,
///     receiptdesk_commit_round_requests_bucket{le="8"} 40         applied, recorded, refused, failed
///     receiptdesk_commit_queue_depth 3
///     receiptdesk_writer_busy_seconds_total 41.2     receiptdesk_writer_cpu_seconds_total 30.9
public final class ServeMetrics: Sendable {
    /// The registry `/metrics` renders.
    public let registry: Metrics
    private let outcomes: Counter
    private let rounds: Histogram
    private let writerBusy: Counter
    private let writerCPU: Counter

    /// Registers the ledger's figures in `registry`; `queueDepth` is read at each render.
    public init(registry: Metrics, queueDepth: @escaping @Sendable () -> Int) throws {
        self.registry = registry
        outcomes = try registry.counter("receiptdesk_ledger_outcomes_total",
                                        help: "What the ledger did with what arrived: new, duplicate, conflict (transactions), applied, recorded (notifications), refused (not believed or not valid), failed (not committed).",
                                        labels: ["outcome"])
        rounds = try registry.histogram("receiptdesk_commit_round_requests", help: "Requests committed together in one write transaction.",
                                        buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256])
        writerBusy = try registry.counter("receiptdesk_writer_busy_seconds_total",
                                          help: "Wall time the ledger's one writer spent committing rounds: near the elapsed time, the writer is what limits throughput.")
        writerCPU = try registry.counter("receiptdesk_writer_cpu_seconds_total",
                                         help: "CPU time of the writer's thread in those rounds; busy minus CPU is waiting (fsync, locks, database round trips).")
        try registry.gauge("receiptdesk_commit_queue_depth", help: "Requests waiting for the ledger's writer.") { Double(queueDepth()) }
    }

    /// One more of `outcome`.
    func count(outcome: String) { outcomes.increment([outcome]) }

    /// How many `outcome` so far (tests).
    public func value(outcome: String) -> Double { outcomes.value([outcome]) }

    /// A commit round's size.
    public func round(_ round: LedgerCommitQueue.Round) {
        rounds.observe(Double(round.purchases + round.notifications))
        writerBusy.increment(by: round.busySeconds)
        writerCPU.increment(by: round.cpuSeconds)
    }

    /// The writer's busy and CPU seconds so far (`receiptdesk_writer_*_seconds_total`).
    public var writerSeconds: (busy: Double, cpu: Double) { (writerBusy.value([]), writerCPU.value([])) }

    /// The text exposition of every figure.
    func exposition() -> String { registry.render() }
}
