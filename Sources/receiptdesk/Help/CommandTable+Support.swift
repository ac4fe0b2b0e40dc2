/// The support team's weekly work (issue 29, 4): notes on a customer, the team report, and
/// erasure of a customer's personal data. (Goodwill for many is `grant`'s, in `+Ledger`.)
extension CommandTable {
    static let support: [CommandSpec] = [
        CommandSpec(path: "customer note add", arguments: "ID TEXT", summary: "add a note on a customer for the whole team (one line, at most 2000 bytes; audited as a keyed digest, not the text)",
                    database: true, examples: ["receiptdesk customer note add alice \"called 12 May, promised a refund if Apple declines\""]),
        CommandSpec(path: "customer note list", arguments: "ID", summary: "a customer's notes, oldest first (also in customer show and the case file)",
                    database: true, examples: ["receiptdesk customer note list alice"]),
        CommandSpec(path: "customer erase", arguments: "ID --reason TEXT", summary: "erase a customer's personal data on request: name, email, notes' text, their receipts' raw bytes (device identifiers) and digest key; kept: the id, orders, transactions with prices and dates, grants, the audit log (which still verifies)", options: [
            .value("--reason", "TEXT", "why (required; in the audit log): the request and its ticket", example: "--reason \"GDPR request #991\""),
            .flag("--yes", "erase (without it: a preview of what goes and what stays, nothing written)"),
        ], database: true, examples: ["receiptdesk customer erase alice --reason \"GDPR request #991\"", "receiptdesk customer erase alice --reason \"GDPR request #991\" --yes"]),
        CommandSpec(path: "report", arguments: "", summary: "the team's overview of this week (from Monday) and this month, UTC: arrivals, refunds and their reasons, revocations, conflicts opened and resolved, sandbox receipts on production, grants and revokes by operator, active subscriptions by product; a sparkline per day", options: [
            .flag("--week", "this week only (from Monday 00:00 UTC)"),
            .flag("--month", "this month only (from the 1st, UTC)"),
        ], database: true, examples: ["receiptdesk report --week", "receiptdesk report --json"]),
    ]
}
