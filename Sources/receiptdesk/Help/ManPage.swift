/// `receiptdesk man`: the manual page as roff, written from `CommandTable`.
enum ManPage {
    static var roff: String {
        var out = [".TH RECEIPTDESK 1 \"\" \"receiptdesk \(CommandTable.version)\" \"User Commands\"",
                   ".SH NAME", "receiptdesk \\- a support console for App Store in\\-app purchases",
                   ".SH SYNOPSIS", ".B receiptdesk", "[\\fIDATABASE OPTIONS\\fR] \\fIcommand\\fR [\\fIoptions\\fR]",
                   ".SH DESCRIPTION",
                   "Decodes and verifies every App Store receipt format offline, keeps a purchase ledger (SQLite or PostgreSQL) with an audited log of every change, acts at Apple through the App Store Server API, and serves entitlements over HTTP. With no command on a terminal it opens the console.",
                   ".SH COMMANDS"]
        for spec in CommandTable.all where !spec.hidden {
            out.append(".SS \"\(escape(["receiptdesk", spec.path, spec.arguments].filter { !$0.isEmpty }.joined(separator: " ")))\"")
            out.append(escape(spec.summary))
            for note in spec.notes { out += [".PP", escape(note)] }
            out += options(spec.options)
            if spec.database { out += [".PP", "Takes the database options."] }
            for example in spec.examples { out += [".PP", ".RS", ".nf", escape(example), ".fi", ".RE"] }
        }
        out += [".SH DATABASE OPTIONS"] + options(CommandTable.databaseOptions)
        out += [".SH ENVIRONMENT", ".TP", ".B RECEIPTDESK_DB", "the database when \\-\\-db is not given",
                ".TP", ".B RECEIPTDESK_CONFIG", "the config when \\-\\-config is not given",
                ".TP", ".B NO_COLOR", "the console without colour"]
        out += [".SH EXIT STATUS", escape(CommandHelp.exitCodes)]
        return out.joined(separator: "\n") + "\n"
    }

    static func options(_ options: [OptionSpec]) -> [String] {
        options.flatMap { option -> [String] in
            var lines = [".TP", "\\fB\(escape(option.name))\\fR" + (option.value.map { " \\fI\(escape($0))\\fR" } ?? ""), escape(option.help)]
            if let value = option.defaultValue { lines += [".br", "Default: " + escape(value)] }
            if let example = option.example { lines += [".br", "Example: " + escape(example)] }
            return lines
        }
    }

    /// Text safe in roff: backslashes doubled, hyphens as \-, and no line starting with a dot or quote.
    static func escape(_ text: String) -> String {
        let escaped = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
    }
}
