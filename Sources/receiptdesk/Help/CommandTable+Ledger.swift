/// The purchase database's commands: import, orders, customers, search, grants, conflicts, audit.
extension CommandTable {
    static let ledger: [CommandSpec] = [
        CommandSpec(path: "import", arguments: "FILE...", summary: "record receipts, signed transactions or notifications for a customer; says what each file recorded, then what was granted", options: [
            .value("--customer", "ID", "the customer the purchases belong to (created when new)", example: "--customer alice"),
            .value("--customer-name", "NAME", "the new customer's display name", example: "--customer-name \"Alice Martin\""),
            .value("--customer-email", "EMAIL", "the new customer's email", example: "--customer-email alice@example.com"),
            .value("--order", "ORDER", "bind the purchase to this merchant order", example: "--order o-17"),
            .value("--application-username", "VALUE", "the applicationUsername / appAccountToken the app sent, to find the order"),
            .value("--source", "TEXT", "what the audit log says the receipts came from", default: "import FILE"),
        ], database: true, examples: ["receiptdesk import receipt.b64 --customer alice"],
                    notes: [
                      "Each file is its own ledger operation: files are read and verified on worker threads and written in batches of 100, one write transaction each, so a crash leaves each batch applied or absent and running the same command again completes it (what is already in is reported as a duplicate).",
                      "Each transaction id counts once: a repeat is a duplicate and changes nothing; a transaction another customer owns opens a conflict. A purchase binds to its order by --order, else by the applicationUsername / appAccountToken, else by the customer's single pending order for that product. Invalid receipts are kept and flagged and grant nothing; sandbox purchases grant only for a tester or with allowSandbox.",
                      "The last line says what the imports newly granted the customer (\"alice: pro granted until …\", \"coins ×1200 granted\", or \"nothing newly granted\"); --json prints {\"customerId\", \"files\": [each file's result], \"granted\": [{\"customerId\", \"entitlement\", \"until\"} or, for units, {\"customerId\", \"entitlement\", \"quantity\", \"total\"}]}. With appStore.finishOnDelivery on, each consumable newly credited to an order is then finished at Apple, as transaction finish does.",
                    ]),
        CommandSpec(path: "order create", arguments: "--customer ID --order ORDER --product PRODUCT", summary: "record a merchant order waiting for its purchase", options: [
            .value("--customer", "ID", "who ordered", example: "--customer alice"),
            .value("--order", "ORDER", "the merchant's order id", example: "--order o-1"),
            .value("--product", "PRODUCT", "the product id, from the config's catalogue", example: "--product com.example.game.pro.yearly"),
            .value("--account-token", "TOKEN", "the appAccountToken (UUID) the app will send with the purchase"),
            .flag("--unlisted-product", "accept a product the catalogue does not list (warned)"),
        ], database: true, examples: ["receiptdesk order create --customer alice --order o-1 --product com.example.game.pro.yearly"]),
        CommandSpec(path: "order fail", arguments: "ORDER", summary: "record a failed payment for an order", options: [
            .value("--reason", "TEXT", "why it failed", example: "--reason \"card declined\""),
        ], database: true, examples: ["receiptdesk order fail o-1 --reason \"card declined\""]),
        CommandSpec(path: "customer show", arguments: "ID", summary: "a customer's entitlements with their reasons, Apple's side, orders, transactions, receipts",
                    database: true, examples: ["receiptdesk customer show alice"]),
        CommandSpec(path: "customer add", arguments: "ID", summary: "add a customer, or update the name, email or tester mark given (says which)", options: [
            .flag("--tester", "a sandbox tester: their sandbox purchases grant"),
            .value("--name", "NAME", "display name", example: "--name \"Alice Martin\""),
            .value("--email", "EMAIL", "email address", example: "--email alice@example.com"),
        ], database: true, examples: ["receiptdesk customer add alice --name \"Alice Martin\" --email alice@example.com"]),
        CommandSpec(path: "customer export", arguments: "ID", summary: "a case file for a ticket (Markdown, or JSON with --json)",
                    database: true, examples: ["receiptdesk customer export alice > case.md"],
                    notes: [
                      "The case file holds the entitlements with their reasons, Apple's side, orders, transactions, receipts, grants, moves and the audit entries about the customer.",
                    ]),
        CommandSpec(path: "search", arguments: "TEXT", summary: "find customers, orders, transactions, receipts by any id or its start, a name or email fragment, qualifiers (exit 1: nothing found)", options: [
            .value("--limit", "N", "at most N rows per kind", default: "10", example: "--limit 100"),
        ], database: true, examples: ["receiptdesk search alice", "receiptdesk search env:sandbox status:conflict"],
                    notes: [
                      "TEXT matches any id or its start (in any case), a name or email fragment, and qualifiers env:, status:, verdict: and since:. Exit 1 when nothing matches, as grep does.",
                      "A customer found through a related id, not their own id, name or email, says which, as the console does: via txn 2000000123456789 (also original txn, web order line, token, order, Apple order, app txn); --json: the customers list's matchedVia, by customer id, each {kind, value}.",
                    ]),
        CommandSpec(path: "grant", arguments: "(--customer ID | --customers FILE | --search QUERY) --entitlement E --reason TEXT", summary: "grant an entitlement by hand, audited; to many: a preview of who would get what, then one batch with --yes", options: [
            .value("--customer", "ID", "who gets it", example: "--customer alice"),
            .value("--customers", "FILE", "goodwill for many: one customer id a line (# comments; at most 5000)", example: "--customers outage.txt"),
            .value("--search", "QUERY", "goodwill for many: every customer search finds for QUERY", example: "--search env:production"),
            .value("--entitlement", "E", "the entitlement's name", example: "--entitlement pro"),
            .value("--until", "DATE", "when it ends (RFC 3339 or 2026-12-31)", default: "forever", example: "--until 2026-12-31"),
            .value("--for", "DURATION", "how long (ISO 8601), instead of --until", example: "--for P30D"),
            .value("--days", "N", "with --customers or --search: how many days (1–3650), instead of --until", example: "--days 7"),
            .value("--reason", "TEXT", "why (required; in the audit log)", example: "--reason \"outage goodwill\""),
            .flag("--yes", "with --customers or --search: grant (without it: a preview, nothing written)"),
        ], database: true, examples: ["receiptdesk grant --customer alice --entitlement pro --for P30D --reason \"outage goodwill\"",
                                      "receiptdesk grant --customers outage.txt --entitlement pro --days 7 --reason \"outage 3 June\" --yes"]),
        CommandSpec(path: "revoke", arguments: "--customer ID (--entitlement E | --grant N) --reason TEXT", summary: "revoke manual grants, audited", options: [
            .value("--customer", "ID", "whose grant", example: "--customer alice"),
            .value("--entitlement", "E", "every manual grant of this entitlement", example: "--entitlement pro"),
            .value("--grant", "N", "one grant by its number", example: "--grant 12"),
            .value("--reason", "TEXT", "why (required)", example: "--reason chargeback"),
        ], database: true, examples: ["receiptdesk revoke --customer alice --entitlement pro --reason chargeback"]),
        CommandSpec(path: "restore", arguments: "--customer ID (--from-customer OLD | --receipt FILE) --reason TEXT", summary: "move purchases to a customer as Apple's restore would", options: [
            .value("--customer", "ID", "who receives them", example: "--customer alice-new"),
            .value("--from-customer", "OLD", "whose purchases move", example: "--from-customer alice"),
            .value("--transaction", "T", "only this transaction (repeatable)", repeatable: true),
            .value("--receipt", "FILE", "the purchases of this receipt instead"),
            .value("--reason", "TEXT", "why (required)", example: "--reason \"new account\""),
            .flag("--dry-run", "show what would move, change nothing"),
            .flag("--include-consumables", "move consumables too (Apple does not restore them)"),
        ], database: true, examples: ["receiptdesk restore --customer alice-new --from-customer alice --reason \"new account\""],
                    notes: [
                      "Consumables stay with their owner unless --include-consumables: Apple does not restore them, and moving one lets it be spent twice.",
                    ]),
        CommandSpec(path: "conflicts", arguments: "", summary: "transactions claimed by a second customer, and ambiguous order bindings", options: [
            .flag("--all", "resolved ones too"),
        ], database: true, examples: ["receiptdesk conflicts"]),
        CommandSpec(path: "conflicts resolve", arguments: "N --owner CUSTOMER --reason TEXT", summary: "settle a conflict: who owns the transaction", options: [
            .value("--owner", "CUSTOMER", "the customer who keeps it", example: "--owner alice"),
            .value("--reason", "TEXT", "why (required)", example: "--reason \"same person, two accounts\""),
        ], database: true, examples: ["receiptdesk conflicts resolve 1 --owner alice --reason \"ticket 42\""]),
        CommandSpec(path: "audit", arguments: "", summary: "the audit log, newest first; with --verify, check the hash chain and that the log explains every row", options: [
            .value("--target", "T", "entries about this target only", example: "--target alice"),
            .value("--limit", "N", "at most N entries (1–100000)", default: "50", example: "--limit 200"),
            .flag("--verify", "recompute the hash chain, name the first altered entry, print the head (SEQ:HASH)"),
            .value("--expect", "SEQ:HASH", "with --verify: fail unless the log still holds this head", example: "--expect 812:3f0c…"),
            .value("--anchors", "FILE", "with --verify: check every signed anchor line in FILE", example: "--anchors /var/log/receiptdesk/anchors"),
            .value("--public-key", "FILE", "with --anchors: the anchor key's public key", example: "--public-key anchor.pub"),
            .flag("--skip-entitlements", "with --verify: leave out the entitlement recomputation (large databases)"),
        ], database: true, examples: ["receiptdesk audit --target alice", "receiptdesk audit --verify"],
                    notes: [
                      "--verify recomputes the hash chain and names the first altered entry, prints the head (SEQ:HASH) to keep outside the database, and names every grant, conflict and entitlement row the log does not explain (rows written or edited past it). The entitlement recomputation reads every transaction, 500 customers at a time; --skip-entitlements leaves it out on a large database.",
                      "With --anchors and --public-key it checks every line is signed by the key and every anchored head is still in the log: it catches a cut or rewritten tail, forged lines and backdated appended entries; not an entry appended after the last anchor, honestly dated, with rows that match it.",
                    ]),
        CommandSpec(path: "audit anchor", arguments: "--key FILE [--to FILE] | --new-key FILE", summary: "sign the verified head with a P-256 key the database never holds; from cron", options: [
            .value("--key", "FILE", "the private key (made by --new-key)", example: "--key /etc/receiptdesk/anchor.key"),
            .value("--to", "FILE", "append the signed line to FILE (fsync) instead of printing it", example: "--to /var/log/receiptdesk/anchors"),
            .value("--new-key", "FILE", "write a new key (0600, never over a file) and print its public key", example: "--new-key anchor.key"),
        ], database: true, examples: ["receiptdesk audit anchor --new-key anchor.key > anchor.pub", "receiptdesk audit anchor --key anchor.key --to anchors"],
                    notes: [
                      "The line signed is \"receiptdesk-audit-anchor v1 LOCATION SEQ:HASH TIME\". Keep the key on another machine or account; run it from cron after changes or every few minutes.",
                    ]),
        CommandSpec(path: "notify", arguments: "FILE|-", summary: "apply an App Store Server Notification V2, once per notificationUUID",
                    database: true, examples: ["receiptdesk notify notification.json"]),
        CommandSpec(path: "reverify", arguments: "RECEIPT_ID | --customer ID | --all", summary: "ask Apple (config appStore) about stored receipts and apply what it knows", options: [
            .value("--customer", "ID", "every receipt of this customer", example: "--customer alice"),
            .flag("--all", "every stored receipt"),
            .value("--concurrency", "N", "requests in flight at once", default: "4", example: "--concurrency 8"),
        ], database: true, examples: ["receiptdesk reverify --all --concurrency 8"],
                    notes: [
                      "An answer that contradicts the local verdict (valid for a receipt found invalid here, or a refusal of one found valid) is reported in a line starting CONTRADICTION and kept with the receipt; nothing is granted, applied or revoked by it.",
                    ]),
        CommandSpec(path: "console", arguments: "", summary: "the terminal console over the purchase database (what receiptdesk opens on a terminal)", options: [
            .flag("--read-only", "no changing action; the database opened read-only"),
            .value("--search", "TEXT", "open at this search, as if typed after / (the same words and qualifiers)", example: "--search \"ada env:sandbox\""),
        ], database: true, examples: ["receiptdesk console --db .build/demo/purchases.sqlite --config .build/demo/config.json",
                                      "receiptdesk console --search ada"]),
        CommandSpec(path: "serve", arguments: "--tokens FILE", summary: "the live service: purchases, Apple's notifications, entitlements, health and metrics over HTTP", options: [
            .value("--listen", "HOST:PORT", "where to listen (plain HTTP; TLS belongs to a proxy)", default: "127.0.0.1:8080", example: "--listen 10.0.0.5:8080"),
            .value("--tokens", "FILE", "the clients' bearer tokens (serve token add)", default: "$RECEIPTDESK_SERVE_TOKENS", example: "--tokens /etc/receiptdesk/serve-tokens"),
            .value("--max-body", "BYTES", "largest request body", default: "4194304 (4 MiB)", example: "--max-body 1048576"),
            .value("--max-connections", "N", "connections at once", default: "64", example: "--max-connections 256"),
            .value("--idle-timeout", "SECONDS", "close a connection idle this long", default: "10", example: "--idle-timeout 30"),
            .value("--trust-proxy", "ADDRESS", "believe this proxy's X-Forwarded-For for the audit's client", example: "--trust-proxy 127.0.0.1", repeatable: true),
        ], database: true, examples: ["receiptdesk serve --listen 127.0.0.1:8080 --tokens /etc/receiptdesk/serve-tokens"],
                    notes: [
                      "Routes: POST /v1/purchases (bearer token), POST /v1/apple/notifications (Apple's signature), GET /v1/customers/ID/entitlements (bearer token), /healthz, /readyz and /metrics. SIGTERM stops it gracefully: requests in flight finish.",
                    ]),
        CommandSpec(path: "serve token add", arguments: "NAME --tokens FILE", summary: "add a client token to the tokens file and print it once", options: [
            .value("--tokens", "FILE", "the tokens file (its hash only is kept)", default: "$RECEIPTDESK_SERVE_TOKENS", example: "--tokens serve-tokens"),
        ], examples: ["receiptdesk serve token add app --tokens serve-tokens"]),
    ]
}
