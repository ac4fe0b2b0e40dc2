import Foundation

/// Observations (request durations, body sizes) counted into buckets, one set of buckets per
/// combination of label values. Renders, per series, a `_bucket` line per upper bound with the
/// number of observations at most that bound (cumulative), `le="+Inf"` equal to `_count`, then
/// `_sum` and `_count`:
///
///     http_request_duration_seconds_bucket{route="purchase",le="0.005"} 12
///     …
///     http_request_duration_seconds_bucket{route="purchase",le="+Inf"} 40
///     http_request_duration_seconds_sum{route="purchase"} 1.93
///     http_request_duration_seconds_count{route="purchase"} 40
public final class Histogram: MetricFamily, @unchecked Sendable {
    /// Prometheus's default bounds, in seconds: 5 ms to 10 s.
    public static let defaultBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    let name: String
    let help: String
    let type = "histogram"
    private let labelNames: [String]
    private let bounds: [Double]

    /// One series: per-bucket counts (not cumulative; the last is above every bound), sum, count.
    private struct Series {
        var buckets: [UInt64]
        var sum = 0.0
        var count: UInt64 = 0
    }

    private let lock = NSLock()
    private var series: [[String]: Series] = [:]

    init(name: String, help: String, labelNames: [String], bounds: [Double]) {
        self.name = name
        self.help = help
        self.labelNames = labelNames
        self.bounds = bounds
        if labelNames.isEmpty { series[[]] = Series(buckets: Array(repeating: 0, count: bounds.count + 1)) }
    }

    /// Counts `value` in the series of `labels` (one value per label name, in the order
    /// registered): in the first bucket whose bound is at least `value`, in the sum and the count.
    public func observe(_ value: Double, _ labels: [String] = []) {
        precondition(labels.count == labelNames.count,
                     "histogram \(name) labels \(labelNames) given \(labels.count) value\(labels.count == 1 ? "" : "s"): \(labels)")
        let index = bounds.firstIndex { value <= $0 } ?? bounds.count
        lock.lock()
        series[labels, default: Series(buckets: Array(repeating: 0, count: bounds.count + 1))].buckets[index] += 1
        series[labels]?.sum += value
        series[labels]?.count += 1
        lock.unlock()
    }

    /// The number of observations in the series of `labels`.
    public func count(_ labels: [String] = []) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return Int(series[labels]?.count ?? 0)
    }

    func render(into out: inout String) {
        lock.lock()
        let copy = series
        lock.unlock()
        let boundNames = labelNames + ["le"]
        for (labels, one) in copy.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            var cumulative: UInt64 = 0
            for (index, bound) in bounds.enumerated() {
                cumulative += one.buckets[index]
                let tags = PrometheusText.labels(boundNames, labels + [PrometheusText.number(bound)])
                out += "\(name)_bucket\(tags) \(cumulative)\n"
            }
            out += "\(name)_bucket\(PrometheusText.labels(boundNames, labels + ["+Inf"])) \(one.count)\n"
            let tags = PrometheusText.labels(labelNames, labels)
            out += "\(name)_sum\(tags) \(PrometheusText.number(one.sum))\n"
            out += "\(name)_count\(tags) \(one.count)\n"
        }
    }
}
