/// The support team's weekly work (issue 29, 4): notes on a customer, the team report, and
/// erasure of a customer's personal data. (Goodwill for many is `grant`'s, in `+Ledger`.)
extension CommandTable {
    static let support: [CommandSpec] = [
        CommandSpec(path: "customer note add", arguments: "ID TEXT", summary: "add a note on a customer for the whole team (one line, at most 2000 bytes; audited as a keyed digest, not the text)",
                    database: true, examples: ["receiptdesk customer note add alice \"called 12 May, promised a refund if Apple declines\""]),
        CommandSpec(path: "customer note list", arguments: "ID", summary: "a customer's notes, oldest first (also in customer show and the case file)",
                    database: true, examples: ["receiptdesk customer note list alice"]),
    ]
}
