/// Reads a rendering as Prometheus's parser would, failing on the first rule broken: every
/// line is a HELP, a TYPE or a sample; HELP and TYPE come once per family, before its samples;
/// sample names belong to the family last typed (with _bucket/_sum/_count for a histogram);
/// label sets are `{name="value",…}` with legal names and escapes; values parse as numbers;
/// histogram buckets are cumulative in increasing `le` order, end with `+Inf` equal to `_count`;
/// the text ends with a line feed. Returns the number of sample lines.
enum PrometheusChecker {
    struct Broken: Error, CustomStringConvertible {
        let description: String
    }

    static func check(_ text: String) throws -> Int {
        func fail(_ why: String, _ line: Substring) -> Broken { Broken(description: "\(why): \(line)") }
        guard text.hasSuffix("\n") else { throw Broken(description: "no line feed at the end") }
        var typed: [String: String] = [:]
        var helped: Set<String> = []
        var family: (name: String, type: String)?
        var buckets: [String: [(le: Double, count: Double)]] = [:]
        var counts: [String: Double] = [:]
        var samples = 0
        for line in text.dropLast().split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# HELP ") {
                let name = String(line.dropFirst(7).prefix { $0 != " " })
                guard helped.insert(name).inserted, typed[name] == nil else { throw fail("HELP repeated or after TYPE", line) }
            } else if line.hasPrefix("# TYPE ") {
                let parts = line.dropFirst(7).split(separator: " ")
                guard parts.count == 2, ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[1]),
                      typed[String(parts[0])] == nil else { throw fail("bad or repeated TYPE", line) }
                typed[String(parts[0])] = String(parts[1])
                family = (String(parts[0]), String(parts[1]))
            } else {
                let (name, labels, value) = try sample(line)
                samples += 1
                guard let family else { throw fail("sample before any TYPE", line) }
                let suffixes = family.type == "histogram" ? ["_bucket", "_sum", "_count"] : [""]
                guard let suffix = suffixes.first(where: { family.name + $0 == name }) else {
                    throw fail("sample outside its family \(family.name)", line)
                }
                if family.type == "counter", value < 0 { throw fail("negative counter", line) }
                let series = labels.filter { $0.name != "le" }.map { "\($0.name)=\($0.value)" }.joined(separator: ",")
                if suffix == "_bucket" {
                    guard let le = labels.last, le.name == "le", let bound = number(le.value) else {
                        throw fail("bucket without le last", line)
                    }
                    if let previous = buckets[series]?.last, previous.le >= bound || previous.count > value {
                        throw fail("buckets not increasing and cumulative", line)
                    }
                    buckets[series, default: []].append((bound, value))
                } else if suffix == "_count" {
                    guard buckets[series]?.last?.le == .infinity, buckets[series]?.last?.count == value else {
                        throw fail("_count differs from the +Inf bucket", line)
                    }
                    counts[series] = value
                    buckets[series] = nil
                }
            }
        }
        return samples
    }

    /// `name{label="value",…} value`.
    private static func sample(_ line: Substring) throws -> (String, [(name: String, value: String)], Double) {
        let broken = Broken(description: "not a sample line: \(line)")
        var rest = line[...]
        let name = String(rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" })
        guard !name.isEmpty, !(name.first?.isNumber ?? true) else { throw broken }
        rest = rest.dropFirst(name.count)
        var labels: [(name: String, value: String)] = []
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let label = String(rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
                guard !label.isEmpty, !(label.first?.isNumber ?? true) else { throw broken }
                rest = rest.dropFirst(label.count)
                guard rest.hasPrefix("=\"") else { throw broken }
                rest = rest.dropFirst(2)
                var value = ""
                while let character = rest.first, character != "\"" {
                    rest = rest.dropFirst()
                    if character == "\\" {
                        switch rest.first {
                        case "\\": value += "\\"
                        case "\"": value += "\""
                        case "n": value += "\n"
                        default: throw broken
                        }
                        rest = rest.dropFirst()
                    } else if character == "\n" {
                        throw broken
                    } else {
                        value.append(character)
                    }
                }
                guard rest.first == "\"" else { throw broken }
                rest = rest.dropFirst()
                labels.append((label, value))
                if rest.first == "," { rest = rest.dropFirst() } else if rest.first != "}" { throw broken }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " ", let value = number(String(rest.dropFirst())) else { throw broken }
        return (name, labels, value)
    }

    /// A value as Prometheus reads it: a decimal, +Inf, -Inf or NaN.
    private static func number(_ text: String) -> Double? {
        switch text {
        case "+Inf": return .infinity
        case "-Inf": return -.infinity
        case "NaN": return .nan
        default: return text.contains(where: { $0.isLetter && $0 != "e" && $0 != "E" }) ? nil : Double(text)
        }
    }
}
