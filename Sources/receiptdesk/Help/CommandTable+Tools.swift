/// Decoding, the demo and its simulator, the database's administration, measuring, and help.
extension CommandTable {
    static let tools: [CommandSpec] = [
        CommandSpec(path: "decode", arguments: "[FILE|-]", summary: "decode and verify a receipt, JWS, notification or verifyReceipt answer (exit 1: not valid)", options: [
            .flag("--json", "one JSON object, for scripts"),
            .value("--trust-anchor", "CERT", "also trust this root (DER or PEM)", example: "--trust-anchor test-root.der", repeatable: true),
            .value("--legacy-intermediate", "CERT", "also accept this intermediate for iOS 6 receipts", repeatable: true),
            .value("--device-id", "UUID", "check the receipt's device hash against this identifierForVendor", example: "--device-id 956328D9-CC6A-47F4-BE40-6953FB0AB6C7"),
            .value("--bundle-id", "ID", "expect this bundle id", example: "--bundle-id com.example.app", repeatable: true),
            .value("--app-apple-id", "N", "expect this app's Apple id in production artefacts", example: "--app-apple-id 1234567890"),
            .value("--config", "FILE", "take bundle ids, appAppleId, trust anchors and revocation from a config", example: "--config config.json"),
            .value("--revocation", "MODE", "ask the chain's OCSP responder: off, prefer or require", default: "off", example: "--revocation prefer"),
            .value("--ocsp-url", "URL", "ask this OCSP responder instead of the one the certificate names"),
        ], examples: ["receiptdesk decode receipt.b64", "receiptdesk decode - --json < payload.jws"],
                    notes: [
                      "Input may be base64 (with or without line breaks), raw DER, a compact JWS, a notification body, a verifyReceipt answer, a decoded JWS payload or a legacy OpenStep plist; over 16 MiB is refused. The verdict is valid, invalid (with the reason), unsigned or unverifiable (Xcode and LocalTesting artefacts); chains are validated at the artefact's own time against Apple's roots.",
                    ]),
        CommandSpec(path: "samples", arguments: "[DIR]", summary: "decode and verify every sample artefact in DIR", examples: ["receiptdesk samples"]),
        CommandSpec(path: "demo", arguments: "", summary: "build a demo database through the built-in simulator (config.json beside it)", options: [
            .value("--db", "PATH", "the demo database to create", default: ".build/demo/purchases.sqlite", example: "--db /tmp/demo/purchases.sqlite"),
            .value("--customers", "N", "how many customers (20–100000)", default: "300", example: "--customers 20"),
            .flag("--force", "replace an existing demo"),
            .value("--operator", "NAME", "the operator its changes are recorded under", default: "demo"),
        ], examples: ["receiptdesk demo --db /tmp/demo/purchases.sqlite --customers 20"]),
        CommandSpec(path: "simulator", arguments: "", summary: "run the App Store simulator on loopback (verifyReceipt and the Server API) until SIGINT or SIGTERM", options: [
            .value("--port", "N", "port to listen on", default: "a free one (printed)", example: "--port 8443"),
            .value("--host", "ADDRESS", "loopback address to listen on", default: "127.0.0.1"),
            .value("--state", "DIR", "keep what it minted and knows in DIR", example: "--state .build/demo/simulator"),
            .value("--shared-secret-file", "FILE", "verifyReceipt's shared secret"),
            .value("--api-public-key", "PEM", "the Server API key's public half, to check request JWTs"),
            .value("--issuer-id", "ID", "the Server API issuer id"),
            .value("--api-key-id", "KID", "the Server API key id"),
            .value("--bundle-id", "ID", "the app's bundle id", default: "com.example.receiptdesk"),
            .value("--latency-ms", "N", "answer this much later", default: "0", example: "--latency-ms 200"),
            .value("--notify-url", "URL", "post each notification there (loopback only)", example: "--notify-url http://127.0.0.1:8080/v1/apple/notifications"),
        ], examples: ["receiptdesk simulator --port 8443 --state /tmp/simulator"]),
        CommandSpec(path: "simulator mint", arguments: "unified|legacy|jws|notification", summary: "an artefact signed by the config's built-in simulator (the demo's), valid for its app; never by Apple", options: [
            .value("--config", "FILE", "a config naming the simulator (appStore.simulator.stateDirectory)", default: "$RECEIPTDESK_CONFIG", example: "--config .build/demo/config.json"),
            .value("--product", "ID", "the product bought (from the config's catalogue)", example: "--product com.example.game.pro.monthly"),
            .value("--environment", "E", "production or sandbox", default: "production", example: "--environment sandbox"),
            .value("--account", "TOKEN", "the account (app account token) buying", default: "a new one"),
            .value("--legacy-version", "2|3", "legacy: the signature blob's version", default: "2", example: "--legacy-version 3"),
            .value("--date", "DATE", "when it was bought", default: "now", example: "--date 2026-12-01T12:00:00Z"),
            .value("--original-build", "BUILD", "unified: the build first installed (original_application_version)",
                   default: "production: the config's paid-to-free cutoff + 12 (52 for the demo), a customer of the free app; sandbox: 1.0, as Apple's",
                   example: "--original-build 12 (a paid-era customer)"),
            .value("--transaction", "ID", "notification: the transaction it is about", example: "--transaction 2000000100000001"),
            .value("--type", "TYPE", "notification: its notificationType", example: "--type DID_RENEW"),
            .value("--subtype", "S", "notification: its subtype", example: "--subtype AUTO_RENEW_DISABLED"),
        ], examples: ["receiptdesk simulator mint unified --product com.example.game.pro.monthly > receipt.b64",
                      "receiptdesk simulator mint notification --transaction 2000000100000001 --type DID_RENEW > notification.json"]),
        CommandSpec(path: "db init", arguments: "", summary: "create the database, or bring its schema up to date", options: dbOptions, examples: ["receiptdesk db init --db purchases.sqlite"]),
        CommandSpec(path: "db migrate", arguments: "", summary: "bring an existing database's schema up to date (its owner runs it)", options: dbOptions, examples: ["receiptdesk db migrate"],
                    notes: [
                      "The only commands that change a schema are db init and db migrate: every other command refuses a database whose schema is behind (exit 69), so a role with table rights only can use it.",
                    ]),
        CommandSpec(path: "db roles", arguments: "", summary: "PostgreSQL: reader, operator, service and owner roles; the audit log append-only", options: dbOptions + [
            .value("--prefix", "NAME", "the roles' name prefix", default: "receiptdesk", example: "--prefix shop"),
        ], examples: ["receiptdesk db roles --db postgres://postgres@db/purchases"]),
        CommandSpec(path: "db copy", arguments: "--from SOURCE --to TARGET", summary: "copy a whole database between SQLite and PostgreSQL, verified", options: [
            .value("--from", "SOURCE", "a SQLite path or postgres:// URL", example: "--from purchases.sqlite"),
            .value("--to", "TARGET", "a SQLite path or postgres:// URL", example: "--to postgres://receiptdesk@db/purchases"),
            .flag("--json", "the report as JSON"),
        ], examples: ["receiptdesk db copy --from purchases.sqlite --to postgres://receiptdesk@db/purchases"],
                    notes: [
                      "The source is read inside one snapshot (others keep working), PostgreSQL is written with COPY in one transaction that builds the keys, foreign keys and indexes after the rows (others wait for the target's tables until it commits), every table's rows and contents are compared on both sides, and a target that did not verify is removed or emptied.",
                    ]),
        CommandSpec(path: "db bench", arguments: "--postgres URL", summary: "import throughput and lookups on PostgreSQL beside SQLite", options: [
            .value("--postgres", "URL", "a database the benchmark may fill", example: "--postgres postgres://bench@127.0.0.1/bench"),
            .value("--receipts", "N", "receipts to import", default: "2000"),
            .value("--runs", "N", "lookups timed", default: "500"),
            .value("--lookups-on", "DB", "also time the lookups on this database", repeatable: true),
            .flag("--json", "the figures as JSON"),
        ], examples: ["receiptdesk db bench --postgres postgres://bench@127.0.0.1/bench"]),
        CommandSpec(path: "db bench-worker", arguments: "", summary: "one importing process of db bench", options: [
            .value("--db", "LOCATION", "the database"), .value("--receipts", "N", "receipts"), .value("--worker", "K", "this worker"),
            .value("--workers", "W", "workers"), .value("--batch", "B", "batch size", default: "1"),
            .value("--from", "F", "the first receipt's number", default: "0"),
        ], hidden: true),
        CommandSpec(path: "bench", arguments: "", summary: "measure decode, verify, ledger, console and serve speed (make bench: the release build)", options: [
            .flag("--json", "the figures as JSON"),
            .value("--seconds", "S", "seconds per rate", default: "1", example: "--seconds 3"),
            .value("--samples", "DIR", "the artefacts decoded", default: "Assets/Samples"),
            .value("--only", "NAME", "only the cases whose name contains NAME", example: "--only serve"),
            .value("--postgres", "URL", "also PostgreSQL: a database the benchmark may fill"),
            .value("--receipts", "N", "receipts for the PostgreSQL import", default: "2000"),
            .value("--duration", "SECONDS", "with --only serve: the memory run, serve under steady load from 64 clients for that long (30–86400), resident memory every 30 s against the aim (< 150 MB, flat)",
                   example: "--only serve --duration 600"),
            .value("--transactions", "N", "only the scale benchmark, on a realistic database of N transactions built once and kept", example: "--transactions 1000000"),
            .flag("--scale", "only the scale benchmark on 10,000,000 transactions (--transactions 10000000)"),
            .value("--keep", "DIR", "where the scale benchmark keeps its databases", default: ".build/bench-scale"),
        ], examples: ["receiptdesk bench --only verify", "receiptdesk bench --only serve --duration 600",
                      "receiptdesk bench --transactions 1000000 --postgres postgres://bench@127.0.0.1/bench"],
                    notes: [
                      "With --postgres it also imports from 1 and 4 processes and times lookups on PostgreSQL beside SQLite (--only postgres: that alone).",
                    ]),
        CommandSpec(path: "soak", arguments: "", summary: "everything at once under random faults, then the invariants checked (make soak)", options: [
            .value("--seconds", "N", "how long (5–86400)", default: "60", example: "--seconds 120"),
            .value("--db", "PATH|URL", "the database", default: "a temporary SQLite file"),
            .value("--folder", "DIR", "where its files go", default: "a temporary folder"),
            .value("--customers", "N", "customers (20–2000)", default: "60"),
        ], examples: ["receiptdesk soak --seconds 120"]),
        CommandSpec(path: "help", arguments: "[COMMAND]", summary: "every command, or one command's options", options: [
            .flag("--options", "every command and each option it accepts, one \"COMMAND<tab>OPTION\" a line, for tools"),
        ], examples: ["receiptdesk help customer add"]),
        CommandSpec(path: "version", arguments: "", summary: "the version (also receiptdesk --version)", examples: ["receiptdesk --version"]),
        CommandSpec(path: "completions", arguments: "bash|zsh|fish", summary: "shell completions for every command and option", examples: [
            "receiptdesk completions bash > /etc/bash_completion.d/receiptdesk",
            "receiptdesk completions zsh > ~/.zfunc/_receiptdesk",
            "receiptdesk completions fish > ~/.config/fish/completions/receiptdesk.fish"]),
        CommandSpec(path: "man", arguments: "", summary: "the manual page, as roff", examples: ["receiptdesk man | man -l -"]),
    ]

    /// `db init`, `db migrate` and `db roles` take the database and its password only.
    static let dbOptions: [OptionSpec] = Array(databaseOptions.prefix(2))
}
