import Foundation
import ReceiptCore

/// Dispatches to the subcommands and turns every outcome into an exit status.
enum CommandRunner {
    static let usage = """
    usage: receiptdesk <command> [options]

    commands:
      console [--db PATH|URL] [--db-password-file FILE] [--config FILE] [--operator NAME] [--read-only]
                      the terminal console over the purchase database (what receiptdesk opens on a terminal)
      decode [FILE|-] [--json] [--trust-anchor CERT]... [--device-id UUID] [--bundle-id ID]... [--app-apple-id N]
             [--config FILE] [--revocation off|prefer|require] [--ocsp-url URL]
                      decode and verify a receipt, JWS, notification or verifyReceipt answer (with
                      --config: its bundle ids, appAppleId, trust anchors and appStore.revocation;
                      --revocation asks the chain's OCSP responder, off by default)
      samples [DIR]   decode and verify every sample artefact in DIR (default Assets/Samples)

    purchase database (all take --db PATH|URL, --db-password-file FILE, --config FILE, --operator NAME, --json,
    --trust-anchor CERT; --db-password-file: the PostgreSQL password is the file's first line, kept out of `ps`):
      import FILE... --customer ID [--customer-name NAME] [--customer-email EMAIL] [--order ORDER]
             [--application-username VALUE]
                      with appStore.finishOnDelivery on, each consumable newly credited to an order is
                      then finished at Apple (as transaction finish)
      order create --customer ID --order ORDER --product PRODUCT [--account-token TOKEN] [--unlisted-product]
      order fail ORDER --reason TEXT
      customer show ID | customer add ID [--tester] [--name NAME] [--email EMAIL]
      customer export ID [--json]
                      a case file for a ticket (Markdown, or JSON): entitlements with reasons,
                      orders, transactions, receipts, grants, moves and the audit entries
      search TEXT [--limit N]
                      find customers, orders, transactions, receipts by any id or its start (any
                      case), a name or email fragment, env:/status:/verdict:/since: qualifiers
                      (exit 1 when nothing matches, as grep does)
      grant --customer ID --entitlement E [--until DATE | --for P30D] --reason TEXT
      revoke --customer ID (--entitlement E | --grant N) --reason TEXT
      restore --customer ID (--from-customer OLD [--transaction T]... | --receipt FILE) --reason TEXT [--dry-run]
             [--include-consumables]
      conflicts [--all] | conflicts resolve N --owner CUSTOMER --reason TEXT
      audit [--target T] [--limit N]
                      the audit log, newest first
      audit --verify [--expect SEQ:HASH] [--anchors FILE --public-key FILE] [--skip-entitlements]
                      the hash chain; every grant, conflict and entitlement row explained by the log
                      (rows written or edited past it are named; the entitlement recomputation reads
                      every transaction: --skip-entitlements leaves it out on a large database); with
                      --anchors, every line signed by the key and every anchored head still in the log
                      (catches a cut or rewritten tail, forged lines, backdated appended entries; not
                      an entry appended after the last anchor, honestly dated, with matching rows)
      audit anchor --key FILE [--to FILE] | audit anchor --new-key FILE
                      sign the verified head with a P-256 key the database never holds: print the
                      line, or append it to FILE (fsync); run from cron after changes. --new-key
                      writes a key (0600, never over a file) and prints its public key
      notify FILE|-   apply an App Store Server Notification V2 once per notificationUUID
      serve [--listen HOST:PORT] --tokens FILE [--max-body BYTES] [--max-connections N] [--idle-timeout S]
            [--trust-proxy ADDRESS]...
                      the live service: POST /v1/purchases (bearer token), POST /v1/apple/notifications
                      (Apple's signature), GET /v1/customers/ID/entitlements, /healthz, /readyz, /metrics;
                      SIGTERM stops it gracefully. serve token add NAME --tokens FILE prints a new token once
      reverify RECEIPT_ID | --customer ID | --all [--concurrency N]
                      ask Apple (config appStore) about stored receipts and apply what it knows
      demo [--db PATH] [--customers N] [--force]
                      build a demo database through the built-in simulator (config.json beside it)
      simulator [--port N] [--state DIR] [--shared-secret-file F] [--api-public-key PEM --issuer-id ID]
                      run the App Store simulator on 127.0.0.1 (verifyReceipt and the Server API)
      simulator mint unified|legacy|jws|notification [--config FILE] --product ID [--environment E]
                      an artefact signed by the config's built-in simulator (the demo's), valid for its app
      db init         create the database, or bring its schema up to date
      db migrate      bring an existing database's schema up to date (the only other command that changes it)
      db roles [--prefix NAME]
                      PostgreSQL: reader, operator, service and owner roles; the audit log append-only
      db copy --from SOURCE --to TARGET
                      copy a whole database between SQLite and PostgreSQL (postgres://…), verified
      lookup-order ORDER_ID --customer ID
                      import the transactions of an Apple order id (App Store Server API)
      subscription status CUSTOMER
                      ask Apple (Get All Subscription Statuses): state, why it stopped, prices
      subscription extend ORIGINAL_TX --days N --reason-code outage|satisfaction|other|undeclared --reason TEXT
             [--dry-run]
                      extend one renewal date at Apple (1–90 days, at most 2 a year), audited
      subscription mass-extend PRODUCT --days N --reason-code CODE --reason TEXT [--environment E]
             [--storefront USA]... [--dry-run] [--no-wait] [--poll-seconds S] [--max-polls N]
                      extend every active subscriber of a product, then follow Apple's progress
      subscription mass-status [REQUEST_ID] [--poll-seconds S] [--max-polls N]
      subscription offer CUSTOMER --product ID --offer OFFER_ID --reason TEXT [--transaction TX]
                      sign a promotional or win-back offer (Apple's version 2 signature), shown once, audited
      refunds [--all] | refunds send N --consented --reason TEXT [--refund-preference grant|prorated|decline|none]
             [--consumption-percentage 0-100] (version 2, the default)  [--consumption-status 0-3] (version 1) [--delivery-status 0-5] [--play-time 0-7] [--sample-content yes|no]
             [--platform 0-2] [--account-tenure 0-7] [--lifetime-purchased 0-7] [--lifetime-refunded 0-7]
             [--user-status 0-4] [--dry-run]
                      Apple's consumption requests (refund requests) by deadline; send the
                      consumption information (filled from the ledger, reviewed, audited)
      notifications fetch --since DATE [--until DATE] [--environment E]
                      what Apple sent over a period (Get Notification History), applied once
                      per notificationUUID; run it again to resume an interrupted fetch
      notifications test [--environment E] | notifications test-status TOKEN
      transaction history TX | transaction app-info ANY_TX | transaction set-token ORIGINAL_TX --token UUID --reason TEXT [--dry-run]
                      Apple's history of a transaction's account; fix a purchase's app account
                      token at Apple and in the ledger
      transaction show TX
                      one transaction as the ledger holds it, and when (and by whom) it was finished at Apple
      transaction finish TX --reason TEXT [--dry-run]
                      tell Apple a delivered transaction is finished (Finish Transaction), audited; a
                      repeat says "already finished at … by …" without asking Apple. Delivered: in the
                      ledger, from production or sandbox, not refunded or revoked (an upgrade counts),
                      granting something (its product in the catalogue, a quantity above 0, a sandbox
                      purchase only for a tester or with allowSandbox), no open conflict over it, and its
                      order, if it has one, paid and not ambiguous. Exit 65: not delivered, not in the
                      ledger, or refused by Apple; 69 or 75 (try again): Apple unreachable
      bench [--json] [--postgres URL [--receipts N]]
                      measure decode and verify speed (make bench builds it for release); with
                      --postgres also import from 1 and 4 processes and lookups on PostgreSQL beside
                      SQLite (--only postgres: that alone)
      soak [--seconds N] [--db PATH|URL]
                      everything at once under random faults, then the invariants checked (make soak)
      help            this text

    exit codes: 0 ok / valid, 1 decoded but not valid (or audit broken), 64 usage or configuration,
                65 bad input, 69 database unavailable, 75 busy: try again
    """

    /// The lines of `usage` about one subcommand (its synopsis and what follows it, indented),
    /// plus the options every database command takes; nil for an unknown command.
    static func usage(of command: String) -> String? {
        let lines = usage.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var own: [String] = []
        var inside = false
        var sectionOptions: String?
        for line in lines {
            if line.hasPrefix("purchase database") { sectionOptions = line }
            let body = line.drop { $0 == " " }
            let indent = line.count - body.count
            if indent == 2 {
                // A synopsis line: "customer show ID | customer add ID …" names the command first.
                inside = body.hasPrefix(command + " ") || body == command || body.contains("| \(command) ")
                if inside { own.append("  receiptdesk " + body) }
            } else if inside && indent > 2 {
                own.append("      " + line.trimmingCharacters(in: .whitespaces))
            } else {
                inside = false
            }
        }
        guard !own.isEmpty else { return nil }
        let database = ["import", "order", "customer", "search", "grant", "revoke", "restore", "conflicts", "audit", "notify", "reverify", "lookup-order",
                        "subscription", "refunds", "notifications", "transaction"]
        var text = "usage:\n" + own.joined(separator: "\n")
        if database.contains(command), let sectionOptions {
            text += "\n\n" + sectionOptions.replacingOccurrences(of: "purchase database (all take", with: "options (every database command takes").replacingOccurrences(of: "):", with: ")")
        }
        return text + "\n\nexit codes: 0 ok / valid, 1 not valid, 64 usage, 65 bad input, 69 database unavailable, 75 busy"
    }

    static func run(_ arguments: [String]) -> ExitStatus {
        // No subcommand (only options such as --db or --read-only) on a terminal: the console.
        let onTerminal = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        if onTerminal, arguments.first.map({ $0.hasPrefix("--") && $0 != "--help" }) ?? true {
            return run(["console"] + arguments)
        }
        guard let command = arguments.first else {
            print(usage)
            return .usage
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h"), let own = usage(of: command) {
            print(own)
            return .ok
        }
        do {
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
            case "help", "--help", "-h":
                print(usage)
                return .ok
            default:
                throw CommandFailure.usage("unknown command '\(command)'; try 'receiptdesk help'")
            }
        } catch {
            let failure = CommandFailure.from(error)
            printError("receiptdesk \(command): \(failure.message)")
            if failure.status == .usage { printError("try 'receiptdesk help'") }
            return failure.status
        }
    }
}
