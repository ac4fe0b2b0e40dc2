/// Every command and its options, in one table: the parser's gate (`CommandSpec.check`), `help`,
/// `COMMAND --help`, `completions` and `man` read it. A new command adds one `CommandSpec` to
/// the list of its area (`CommandTable+Ledger`, `+Support`, `+Apple`, `+Tools`); a test checks that every
/// option a source file reads is declared and every declared option is in its `--help`.
enum CommandTable {
    /// The program's version (`receiptdesk --version`).
    static let version = "0.29.0"

    static var all: [CommandSpec] { ledger + support + apple + tools }

    /// What every database command takes, also before the command (`receiptdesk --db X conflicts`).
    static let databaseOptions: [OptionSpec] = [
        .value("--db", "PATH|URL", "the purchase database: a SQLite file, or a postgres:// URL (libpq options pass through)",
               default: "$RECEIPTDESK_DB, else ~/.local/share/receiptdesk/purchases.sqlite", example: "--db postgres://receiptdesk@db/purchases"),
        .value("--db-password-file", "FILE", "PostgreSQL: the password is the file's first line (kept out of ps and shell history)",
               example: "--db-password-file /etc/receiptdesk/db-password"),
        .value("--config", "FILE", "the configuration: catalogue, bundle ids, Apple's credentials",
               default: "$RECEIPTDESK_CONFIG, else ~/.config/receiptdesk/config.json", example: "--config /etc/receiptdesk/config.json"),
        .value("--operator", "NAME", "the operator changes are recorded under (the config's operators map may fix it)",
               default: "the login name", example: "--operator mei"),
        .flag("--json", "print JSON for scripts instead of text"),
        .value("--trust-anchor", "CERT", "also trust this root certificate (DER or PEM): for test certificate authorities",
               example: "--trust-anchor test-root.der", repeatable: true),
        .value("--legacy-intermediate", "CERT", "also accept this intermediate for iOS 6 receipts' signatures", repeatable: true),
    ]

    /// The spec `arguments` name (the longest path that matches their first words), or nil.
    static func find(_ arguments: [String]) -> CommandSpec? {
        all.filter { spec in
            let words = spec.words
            return words.count <= arguments.count && Array(arguments.prefix(words.count)) == words
        }.max { $0.words.count < $1.words.count }
    }

    /// The specs under a group word (`order` → `order create`, `order fail`), visible ones only.
    static func group(_ word: String) -> [CommandSpec] {
        all.filter { !$0.hidden && $0.words.first == word }
    }
}
