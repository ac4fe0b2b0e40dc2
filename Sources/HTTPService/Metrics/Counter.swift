/// A value that only goes up (requests answered, bytes received), one per combination of label values.
public final class Counter: MetricFamily, @unchecked Sendable {
    let name: String
    let help: String
    let type = "counter"
    private let values: LabelledValues

    init(name: String, help: String, labelNames: [String]) {
        self.name = name
        self.help = help
        values = LabelledValues(labelNames: labelNames)
    }

    /// Adds `amount` (a negative or NaN amount is ignored: a counter never goes down) to the
    /// series of `labels`, one value per label name in the order registered.
    public func increment(_ labels: [String] = [], by amount: Double = 1) {
        guard amount >= 0 else { return }
        values.update(labels) { $0 += amount }
    }

    /// The value of the series of `labels`.
    public func value(_ labels: [String] = []) -> Double { values.value(labels) }

    func render(into out: inout String) { values.render(name, into: &out) }
}
