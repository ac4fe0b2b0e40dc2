/// What the registry needs of each kind of metric.
protocol MetricFamily: AnyObject, Sendable {
    var name: String { get }
    var help: String { get }
    /// "counter", "gauge" or "histogram".
    var type: String { get }
    /// Appends the family's sample lines.
    func render(into out: inout String)
}

/// A counter or gauge without labels whose value is read when rendering.
final class SampledMetric: MetricFamily {
    let name: String
    let help: String
    let type: String
    private let sample: @Sendable () -> Double

    init(name: String, help: String, type: String, sample: @escaping @Sendable () -> Double) {
        self.name = name
        self.help = help
        self.type = type
        self.sample = sample
    }

    func render(into out: inout String) {
        out += "\(name) \(PrometheusText.number(sample()))\n"
    }
}
