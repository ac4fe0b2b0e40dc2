import Foundation

/// One number per combination of label values, under a lock: what a counter and a gauge keep.
final class LabelledValues: @unchecked Sendable {
    let labelNames: [String]
    private let lock = NSLock()
    private var values: [[String]: Double] = [:]

    /// Values for `labelNames`; a family without labels starts with its one series at 0.
    init(labelNames: [String]) {
        self.labelNames = labelNames
        if labelNames.isEmpty { values[[]] = 0 }
    }

    /// Applies `change` to the series of `labelValues` (one value per label name, in order: a
    /// different count is a programming error, not something a request can cause).
    func update(_ labelValues: [String], _ change: (inout Double) -> Void) {
        precondition(labelValues.count == labelNames.count,
                     "metric labels \(labelNames) given \(labelValues.count) value\(labelValues.count == 1 ? "" : "s"): \(labelValues)")
        lock.lock()
        change(&values[labelValues, default: 0])
        lock.unlock()
    }

    /// The value of one series (0 when never touched).
    func value(_ labelValues: [String]) -> Double {
        lock.lock()
        defer { lock.unlock() }
        return values[labelValues] ?? 0
    }

    /// Every series, ordered by its label values.
    func snapshot() -> [(labels: [String], value: Double)] {
        lock.lock()
        let copy = values
        lock.unlock()
        return copy.map { ($0.key, $0.value) }.sorted { $0.labels.lexicographicallyPrecedes($1.labels) }
    }

    /// `name{labels} value` for every series.
    func render(_ name: String, into out: inout String) {
        for (labels, value) in snapshot() {
            out += "\(name)\(PrometheusText.labels(labelNames, labels)) \(PrometheusText.number(value))\n"
        }
    }
}
