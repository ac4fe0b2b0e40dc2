import Foundation
import ReceiptCore

/// Dispatches to the subcommands and turns every outcome into an exit status.
enum CommandRunner {
    /// Every command with its sentence (`receiptdesk help`), written from `CommandTable`.
    static var usage: String { CommandHelp.overview }

    /// The database options given before the command (`receiptdesk --db X conflicts`), taken
    /// off the front with their values; what is left starts with the command. An option
    /// there that is not a database option (nor `--read-only`, for the console) is refused.
    static func leadingOptions(_ arguments: [String]) throws -> (options: [String], rest: [String]) {
        let known = CommandTable.databaseOptions + [OptionSpec.flag("--read-only", "")]
        var options: [String] = []
        var index = 0
        while index < arguments.count, arguments[index].hasPrefix("-"), arguments[index] != "-" {
            let argument = arguments[index]
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            guard let option = known.first(where: { $0.name == name }) else {
                throw CommandFailure.usage("unknown option \(name) before the command (only the database options go there: \(CommandTable.databaseOptions.map(\.name).joined(separator: ", ")))")
            }
            options.append(argument)
            index += 1
            if option.value != nil && !argument.contains("=") {
                guard index < arguments.count else { throw CommandFailure.usage("\(name) needs a value") }
                options.append(arguments[index])
                index += 1
            }
        }
        return (options, Array(arguments[index...]))
    }

    static func run(_ arguments: [String]) -> ExitStatus {
        if let first = arguments.first, ["--version", "-V"].contains(first) {
            print("receiptdesk \(CommandTable.version)")
            return .ok
        }
        if let first = arguments.first, ["--help", "-h"].contains(first) {
            print(usage)
            return .ok
        }
        let leading: [String]
        var arguments = arguments
        do {
            (leading, arguments) = try leadingOptions(arguments)
        } catch {
            let failure = CommandFailure.from(error)
            printError("receiptdesk: \(failure.message)")
            printError("try 'receiptdesk help'")
            return failure.status
        }
        // No subcommand (only options such as --db or --read-only) on a terminal: the console.
        let onTerminal = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        if arguments.isEmpty && onTerminal { arguments = ["console"] }
        guard let command = arguments.first else {
            print(usage)
            return .usage
        }
        if arguments.dropFirst().contains("--help") || arguments.dropFirst().contains("-h") {
            let words = Array(arguments.prefix { !$0.hasPrefix("-") })
            if let help = CommandHelp.help(for: words) {
                print(help)
                return .ok
            }
        }
        // The options given before the command go after the words that name it.
        let spec = CommandTable.find(arguments)
        let pathLength = spec?.words.count ?? 1
        arguments = Array(arguments.prefix(pathLength)) + leading + Array(arguments.dropFirst(pathLength))
        let rest = Array(arguments.dropFirst())
        do {
            // An option the command's table does not declare is refused before the command runs.
            if let spec { try spec.check(Array(arguments.dropFirst(pathLength))) }
            switch command {
            case "decode": return try DecodeCommand.run(rest)
            case "samples": return try SamplesCommand.run(rest)
            case "bench": return try BenchCommand.run(rest)
            case "soak": return try SoakCommand.run(rest)
            case "import": return try ImportCommand.run(rest)
            case "order": return try OrderCommand.run(rest)
            case "customer": return try CustomerCommand.run(rest)
            case "search": return try SearchCommand.run(rest)
            case "grant": return try EntitlementCommands.grant(rest)
            case "revoke": return try EntitlementCommands.revoke(rest)
            case "restore": return try EntitlementCommands.restore(rest)
            case "conflicts": return try ConflictsCommand.run(rest)
            case "report": return try ReportCommand.run(rest)
            case "audit": return try AuditCommand.run(rest)
            case "notify": return try NotifyCommand.run(rest)
            case "reverify": return try ReverifyCommand.run(rest)
            case "simulator": return try SimulatorCommand.run(rest)
            case "demo": return try DemoCommand.run(rest)
            case "console": return try ConsoleCommand.run(rest)
            case "db": return try DatabaseCommand.run(rest)
            case "lookup-order": return try LookupOrderCommand.run(rest)
            case "subscription": return try SubscriptionCommand.run(rest)
            case "refunds": return try RefundsCommand.run(rest)
            case "notifications": return try NotificationsCommand.run(rest)
            case "transaction": return try TransactionCommand.run(rest)
            case "serve": return try ServeCommand.run(rest)
            case "help":
                if rest == ["--options"] {
                    for spec in CommandTable.all { for option in spec.allOptions { print("\(spec.path)\t\(option.name)") } }
                    return .ok
                }
                guard rest.isEmpty else {
                    guard let help = CommandHelp.help(for: rest) else { throw CommandFailure.usage("help: no command '\(rest.joined(separator: " "))'") }
                    print(help)
                    return .ok
                }
                print(usage)
                return .ok
            case "version":
                print("receiptdesk \(CommandTable.version)")
                return .ok
            case "completions":
                guard rest.count == 1, let script = Completions.script(for: rest[0]) else {
                    throw CommandFailure.usage("completions needs one of bash, zsh or fish")
                }
                print(script, terminator: "")
                return .ok
            case "man":
                var manArguments = Arguments(rest)
                _ = try manArguments.finish(maxPositionals: 0)
                print(ManPage.roff, terminator: "")
                return .ok
            default:
                throw CommandFailure.usage("unknown command '\(command)'; try 'receiptdesk help'")
            }
        } catch {
            let failure = CommandFailure.from(error)
            printError("receiptdesk \(command): \(failure.message)")
            // The hint once: not when the message already says where help is.
            if failure.status == .usage && !failure.message.contains("--help") && !failure.message.contains("receiptdesk help") {
                printError(spec.map { "try 'receiptdesk \($0.path) --help'" } ?? "try 'receiptdesk help'")
            }
            return failure.status
        }
    }
}
