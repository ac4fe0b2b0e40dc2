/// `receiptdesk help` and `COMMAND --help`, written from `CommandTable`.
enum CommandHelp {
    static let exitCodes = "exit codes: 0 ok / valid, 1 not valid (or nothing found, or audit broken), 64 usage or configuration, 65 bad input or refused, 69 database unavailable, 75 busy: try again"

    /// Every visible command with its sentence.
    static var overview: String {
        var lines = ["usage: receiptdesk [DATABASE OPTIONS] <command> [options]", "       receiptdesk --version | --help", "", "commands:"]
        for spec in CommandTable.all where !spec.hidden {
            lines.append("  " + synopsis(spec))
            lines.append("      " + spec.summary)
        }
        lines += ["", "database options (the commands that open the purchase database take them, after the command or before it):"]
        lines += optionLines(CommandTable.databaseOptions)
        lines += ["", "receiptdesk COMMAND --help explains a command's options, with defaults and examples.", exitCodes]
        return lines.joined(separator: "\n")
    }

    static func synopsis(_ spec: CommandSpec) -> String {
        (["receiptdesk", spec.path, spec.arguments].filter { !$0.isEmpty } + (spec.allOptions.isEmpty ? [] : ["[options]"]))
            .joined(separator: " ").replacingOccurrences(of: "receiptdesk ", with: "", options: .anchored)
    }

    /// The help of the command `words` name (a command, or a group such as `order`); nil when
    /// they name nothing.
    static func help(for words: [String]) -> String? {
        if let spec = CommandTable.find(words), spec.words.count == words.count || CommandTable.group(words[0]).count <= 1 {
            return help(spec)
        }
        guard let first = words.first else { return nil }
        let members = CommandTable.group(first)
        guard !members.isEmpty else { return nil }
        var lines = ["usage:"]
        for spec in members {
            lines.append("  receiptdesk " + synopsis(spec))
            lines.append("      " + spec.summary)
        }
        lines += ["", "receiptdesk \(first) COMMAND --help explains each one's options.", exitCodes]
        return lines.joined(separator: "\n")
    }

    static func help(_ spec: CommandSpec) -> String {
        var lines = ["usage:", "  receiptdesk " + synopsis(spec), "      " + spec.summary]
        for note in spec.notes { lines += [""] + paragraph(note, indent: 2) }
        if !spec.options.isEmpty { lines += ["", "options:"] + optionLines(spec.options) }
        if spec.database { lines += ["", "database options (also before the command):"] + optionLines(CommandTable.databaseOptions) }
        if !spec.examples.isEmpty { lines += ["", "examples:"] + spec.examples.map { "  " + $0 } }
        lines += ["", exitCodes]
        return lines.joined(separator: "\n")
    }

    /// `text` broken at spaces into lines of at most `width` columns, each indented by `indent`
    /// (a word longer than a line stays whole).
    static func paragraph(_ text: String, indent: Int, width: Int = 100) -> [String] {
        let margin = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, margin.count + line.count + 1 + word.count > width {
                lines.append(margin + line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(margin + line) }
        return lines
    }

    /// Each option with its sentence, default and example, the sentences in one column.
    static func optionLines(_ options: [OptionSpec]) -> [String] {
        let column = 30
        var lines: [String] = []
        for option in options {
            let head = "  " + option.name + (option.value.map { " " + $0 } ?? "") + (option.repeatable ? " (repeatable)" : "")
            let pad = head.count < column - 1 ? String(repeating: " ", count: column - head.count) : "\n" + String(repeating: " ", count: column)
            lines.append(head + pad + option.help)
            let indent = String(repeating: " ", count: column)
            if let value = option.defaultValue { lines.append(indent + "default: " + value) }
            if let example = option.example { lines.append(indent + "example: " + example) }
        }
        return lines
    }
}
