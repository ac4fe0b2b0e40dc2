/// A value that goes up and down (connections open, queue depth), one per combination of label values.
public final class Gauge: MetricFamily, @unchecked Sendable {
    let name: String
    let help: String
    let type = "gauge"
    private let values: LabelledValues

    init(name: String, help: String, labelNames: [String]) {
        self.name = name
        self.help = help
        values = LabelledValues(labelNames: labelNames)
    }

    /// Sets the series of `labels` to `value`.
    public func set(_ value: Double, _ labels: [String] = []) { values.update(labels) { $0 = value } }

    /// Adds `amount` (negative to subtract) to the series of `labels`.
    public func add(_ amount: Double, _ labels: [String] = []) { values.update(labels) { $0 += amount } }

    /// The value of the series of `labels`.
    public func value(_ labels: [String] = []) -> Double { values.value(labels) }

    func render(into out: inout String) { values.render(name, into: &out) }
}
