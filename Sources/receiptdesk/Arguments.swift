/// A small command-line reader: flags with values, repeated flags, switches and positionals,
/// with usage errors that name the offending argument.
struct Arguments {
    private var remaining: [String]
    private(set) var positionals: [String] = []

    init(_ arguments: [String]) { remaining = arguments }

    /// Removes `--name` (a switch) and says whether it was there.
    mutating func flag(_ name: String) -> Bool {
        guard let index = remaining.firstIndex(of: name) else { return false }
        remaining.remove(at: index)
        return true
    }

    /// Removes every `--name VALUE` (or `--name=VALUE`) and returns the values in order.
    mutating func values(_ name: String) throws -> [String] {
        var found: [String] = []
        var index = 0
        while index < remaining.count {
            let argument = remaining[index]
            if argument == name {
                guard index + 1 < remaining.count else { throw CommandFailure.usage("\(name) needs a value") }
                found.append(remaining[index + 1])
                remaining.removeSubrange(index...(index + 1))
            } else if argument.hasPrefix(name + "=") {
                found.append(String(argument.dropFirst(name.count + 1)))
                remaining.remove(at: index)
            } else {
                index += 1
            }
        }
        return found
    }

    /// Removes `--name VALUE` given at most once.
    mutating func value(_ name: String) throws -> String? {
        let all = try values(name)
        guard all.count <= 1 else { throw CommandFailure.usage("\(name) given \(all.count) times") }
        return all.first
    }

    /// The positionals left once every option was taken; an unknown option is a usage error.
    mutating func finish(maxPositionals: Int) throws -> [String] {
        var positionals: [String] = []
        var afterDashDash = false
        for argument in remaining {
            if !afterDashDash && argument == "--" { afterDashDash = true; continue }
            if !afterDashDash && argument.hasPrefix("-") && argument != "-" {
                throw CommandFailure.usage("unknown option \(argument)")
            }
            positionals.append(argument)
        }
        guard positionals.count <= maxPositionals else {
            throw CommandFailure.usage("unexpected argument \(positionals[maxPositionals])")
        }
        remaining = []
        return positionals
    }
}
