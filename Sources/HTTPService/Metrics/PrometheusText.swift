/// The rules of Prometheus's text exposition format (version 0.0.4) that rendering needs: which
/// names are legal, how label values and help text are escaped, how numbers are written.
///
///     # HELP http_requests_total Requests answered, by route.
///     # TYPE http_requests_total counter
///     http_requests_total{route="purchase",status="200"} 1027
enum PrometheusText {
    /// Whether `name` is a legal metric name: `[a-zA-Z_:][a-zA-Z0-9_:]*`.
    static func isMetricName(_ name: String) -> Bool {
        guard let first = name.utf8.first, isLetter(first) || first == UInt8(ascii: "_") || first == UInt8(ascii: ":") else {
            return false
        }
        return name.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ":") }
    }

    /// Whether `name` is a legal label name: `[a-zA-Z_][a-zA-Z0-9_]*`, not starting with "__"
    /// (reserved for Prometheus itself).
    static func isLabelName(_ name: String) -> Bool {
        guard let first = name.utf8.first, isLetter(first) || first == UInt8(ascii: "_"), !name.hasPrefix("__") else {
            return false
        }
        return name.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
    }

    /// A label value between its quotes: backslash, double quote and line feed escaped.
    static func escapeLabelValue(_ value: String) -> String {
        var out = ""
        for character in value.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// Help text: backslash and line feed escaped (quotes stay as they are).
    static func escapeHelp(_ help: String) -> String {
        var out = ""
        for character in help.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// A sample value or bucket bound: "+Inf", "-Inf", "NaN", an integer without a fraction
    /// ("3", not "3.0"), or the shortest decimal that reads back as the same double ("0.005").
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return "\(value)"
    }

    /// `{name="value",…}` for the pairs, or "" for none.
    static func labels(_ names: [String], _ values: [String]) -> String {
        guard !names.isEmpty else { return "" }
        let pairs = zip(names, values).map { "\($0)=\"\(escapeLabelValue($1))\"" }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
