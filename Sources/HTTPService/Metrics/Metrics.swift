import Foundation

/// A registry of metrics rendered in Prometheus's text exposition format for a `/metrics`
/// endpoint: counters and gauges with labels, gauges and counters read from a closure when
/// rendered, and histograms with cumulative `le` buckets, `_sum` and `_count`.
///
///     let metrics = Metrics()
///     let requests = try metrics.counter("http_requests_total", help: "Requests answered.",
///                                        labels: ["route", "status"])
///     requests.increment(["purchase", "200"])
///     metrics.render()   // "# HELP http_requests_total Requests answered.\n# TYPE …"
///
/// Families render in the order registered, series within a family in the order of their label
/// values, so the same state always renders the same text. Safe to use from any thread.
public final class Metrics: @unchecked Sendable {
    /// The Content-Type of `render()`'s text.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private let lock = NSLock()
    private var families: [any MetricFamily] = []
    /// Every sample name in use (a histogram takes its `_bucket`, `_sum` and `_count` too).
    private var sampleNames: Set<String> = []

    /// An empty registry.
    public init() {}

    /// A counter: a value that only goes up, one per combination of `labels`' values.
    public func counter(_ name: String, help: String, labels: [String] = []) throws -> Counter {
        let counter = Counter(name: name, help: help, labelNames: labels)
        try register(counter, labels: labels, samples: [name])
        return counter
    }

    /// A counter read from `sample` each time the registry renders (a count kept elsewhere).
    public func counter(_ name: String, help: String, sample: @escaping @Sendable () -> Double) throws {
        try register(SampledMetric(name: name, help: help, type: "counter", sample: sample), labels: [], samples: [name])
    }

    /// A gauge: a value that goes up and down, one per combination of `labels`' values.
    public func gauge(_ name: String, help: String, labels: [String] = []) throws -> Gauge {
        let gauge = Gauge(name: name, help: help, labelNames: labels)
        try register(gauge, labels: labels, samples: [name])
        return gauge
    }

    /// A gauge read from `sample` each time the registry renders (an in-flight count).
    public func gauge(_ name: String, help: String, sample: @escaping @Sendable () -> Double) throws {
        try register(SampledMetric(name: name, help: help, type: "gauge", sample: sample), labels: [], samples: [name])
    }

    /// A histogram counting observations into buckets with the given upper bounds (strictly
    /// increasing, finite; "+Inf" is added), one per combination of `labels`' values.
    public func histogram(_ name: String, help: String, labels: [String] = [],
                          buckets: [Double] = Histogram.defaultBuckets) throws -> Histogram {
        guard !buckets.isEmpty, buckets.allSatisfy(\.isFinite), zip(buckets, buckets.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw HTTPServiceError(.invalidMetric, "histogram \(name): bucket bounds \(buckets) must be finite and strictly increasing")
        }
        guard !labels.contains("le") else {
            throw HTTPServiceError(.invalidMetric, "histogram \(name): the label name 'le' is the bucket bound's own")
        }
        let histogram = Histogram(name: name, help: help, labelNames: labels, bounds: buckets)
        try register(histogram, labels: labels, samples: [name + "_bucket", name + "_sum", name + "_count"])
        return histogram
    }

    /// Every family in the text exposition format, ending with a line feed (or "" when empty).
    public func render() -> String {
        lock.lock()
        let snapshot = families
        lock.unlock()
        var out = ""
        for family in snapshot {
            out += "# HELP \(family.name) \(PrometheusText.escapeHelp(family.help))\n"
            out += "# TYPE \(family.name) \(family.type)\n"
            family.render(into: &out)
        }
        return out
    }

    private func register(_ family: any MetricFamily, labels: [String], samples: [String]) throws {
        guard PrometheusText.isMetricName(family.name) else {
            throw HTTPServiceError(.invalidMetric, "metric name '\(family.name)' is not [a-zA-Z_:][a-zA-Z0-9_:]*")
        }
        for label in labels where !PrometheusText.isLabelName(label) {
            throw HTTPServiceError(.invalidMetric,
                                   "metric \(family.name): label name '\(label)' is not [a-zA-Z_][a-zA-Z0-9_]* or starts with __")
        }
        guard Set(labels).count == labels.count else {
            throw HTTPServiceError(.invalidMetric, "metric \(family.name): label names \(labels) repeat")
        }
        lock.lock()
        defer { lock.unlock() }
        let names = samples + [family.name]
        if let clash = names.first(where: { sampleNames.contains($0) }) {
            throw HTTPServiceError(.invalidMetric, "metric \(family.name): '\(clash)' is already registered")
        }
        sampleNames.formUnion(names)
        families.append(family)
    }
}
