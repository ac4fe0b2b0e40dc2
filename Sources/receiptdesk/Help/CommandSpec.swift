/// One option a command accepts: its name, the value it takes (nil for a switch), a sentence,
/// and where there is one, its default and an example. The parser's gate, `--help`, the
/// completions and the man page all read these, so an option cannot be accepted undocumented.
struct OptionSpec: Sendable {
    let name: String
    /// The value's placeholder (`FILE`, `N`); nil for a switch.
    let value: String?
    let help: String
    var defaultValue: String?
    var example: String?
    var repeatable = false

    /// A switch: `--name` alone.
    static func flag(_ name: String, _ help: String) -> OptionSpec { OptionSpec(name: name, value: nil, help: help) }

    /// An option with a value: `--name VALUE` or `--name=VALUE`.
    static func value(_ name: String, _ placeholder: String, _ help: String, default defaultValue: String? = nil,
                      example: String? = nil, repeatable: Bool = false) -> OptionSpec {
        OptionSpec(name: name, value: placeholder, help: help, defaultValue: defaultValue, example: example, repeatable: repeatable)
    }
}

/// One command as the user types it (`customer add`): what follows it, a sentence, its own
/// options, whether it takes the database options, and examples. See `CommandTable`.
struct CommandSpec: Sendable {
    /// The words that name it: "customer add".
    let path: String
    /// What follows the path besides options ("ID", "FILE...", "--customer ID --order ORDER").
    let arguments: String
    let summary: String
    var options: [OptionSpec] = []
    /// Takes `CommandTable.databaseOptions` (`--db`, `--config`, …) too.
    var database = false
    var examples: [String] = []
    /// What the summary and the options leave out (rules, what it prints, exit statuses), one
    /// paragraph each: `COMMAND --help` and the man page print them after the summary.
    var notes: [String] = []
    /// Started by receiptdesk itself (a benchmark's worker): accepted, never listed.
    var hidden = false

    var words: [String] { path.split(separator: " ").map(String.init) }

    /// Every option it accepts, its own first.
    var allOptions: [OptionSpec] { options + (database ? CommandTable.databaseOptions : []) }

    func option(named name: String) -> OptionSpec? { allOptions.first { $0.name == name } }

    /// Refuses an option this command does not declare (a usage error naming it and where help
    /// is), skipping the values of those it does; positionals and what follows `--` are the
    /// command's own to check.
    func check(_ arguments: [String]) throws {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" { return }
            guard argument.hasPrefix("-"), argument != "-" else { continue }
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            guard let option = option(named: name) else {
                throw CommandFailure.usage("unknown option \(name) (receiptdesk \(path) --help lists its options)")
            }
            if option.value != nil && !argument.contains("=") { index += 1 }
        }
    }
}
