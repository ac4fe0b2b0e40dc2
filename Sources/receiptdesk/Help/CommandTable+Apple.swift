/// The commands that act at Apple (App Store Server API, config appStore.serverAPI).
extension CommandTable {
    static let environmentOption = OptionSpec.value("--environment", "E", "production or sandbox", default: "production", example: "--environment sandbox")

    static let apple: [CommandSpec] = [
        CommandSpec(path: "lookup-order", arguments: "ORDER_ID --customer ID", summary: "import the transactions of an Apple order id (from the invoice email)", options: [
            .value("--customer", "ID", "the customer they belong to", example: "--customer alice"),
        ], database: true, examples: ["receiptdesk lookup-order MK5TTTVWJH --customer alice"]),
        CommandSpec(path: "subscription status", arguments: "CUSTOMER", summary: "ask Apple (Get All Subscription Statuses): state, why it stopped, prices; recorded",
                    database: true, examples: ["receiptdesk subscription status alice"]),
        CommandSpec(path: "subscription extend", arguments: "ORIGINAL_TX | --customers FILE | --search QUERY --days N --reason-code CODE --reason TEXT", summary: "extend renewal dates at Apple (1–90 days, at most 2 a year, active subscriptions only), one or a list of customers', audited", options: [
            .value("--days", "N", "days to add, 1–90", example: "--days 10"),
            .value("--reason-code", "CODE", "Apple's reason: outage, satisfaction, other or undeclared", example: "--reason-code outage"),
            .value("--reason", "TEXT", "why (required; in the audit log)", example: "--reason \"outage 30 Nov\""),
            .flag("--dry-run", "show the preview, ask Apple nothing (one subscription)"),
            .value("--customers", "FILE", "goodwill for many: every active subscription of these customers (one id a line, # comments)", example: "--customers outage.txt"),
            .value("--search", "QUERY", "goodwill for many: every active subscription of the customers this search finds", example: "--search cust-state"),
            .flag("--yes", "for many: ask Apple (without it, the preview alone)"),
        ], database: true, examples: ["receiptdesk subscription extend 2000000100000015 --days 10 --reason-code outage --reason \"outage 30 Nov\"",
                                      "receiptdesk subscription extend --customers outage.txt --days 3 --reason-code outage --reason \"outage 3 June\" --yes"],
                    notes: [
                      "The extension is written down (with its request identifier) before Apple is asked, so an answer lost on the way is retried with the same identifier, which Apple applies once; then the subscription's signed state is read back. An expired subscription is refused (exit 65): Apple extends active ones only, and not one in a free offer period, in billing retry, or in a billing grace period whose expiry has passed (SubscriptionExtensionIneligibleError); the refusal names the signed value it was decided from (Apple's status or expiry, and the notification or status answer that said it; for a free offer period, the current period's own signed transaction, its id and signing date: the renewal info's offer is for the next renewal and decides nothing).",
                      "With --customers or --search: a preview of every auto-renewable subscription of those customers (to extend, or skipped and why: not in the ledger, none, expired, in a free offer period, in billing retry, in a grace period past expiry, extended twice in 365 days, another extension awaiting Apple's answer), and with --yes each is extended as one is, then a report (extended to DATE, refused by Apple with its error, skipped because) and one apple-extend-batch audit entry. One goodwill (the reason code and the reason, spaces and case aside) extends a subscription once: its request identifier comes from the goodwill and the subscription, so running it again, or two operators at once, never extends twice (\"already extended by this goodwill\"). Exit 65 when Apple refused one, 75 when one got no answer (run it again: it retries the same request).",
                    ]),
        CommandSpec(path: "subscription mass-extend", arguments: "PRODUCT --days N --reason-code CODE --reason TEXT", summary: "extend every active subscriber of a product, then follow Apple's progress", options: [
            .value("--days", "N", "days to add, 1–90", example: "--days 3"),
            .value("--reason-code", "CODE", "outage, satisfaction, other or undeclared", example: "--reason-code outage"),
            .value("--reason", "TEXT", "why (required)", example: "--reason outage"),
            environmentOption,
            .value("--storefront", "CODE", "only these storefronts (repeatable)", default: "all", example: "--storefront USA", repeatable: true),
            .flag("--dry-run", "show the preview, ask Apple nothing"),
            .flag("--no-wait", "do not follow the progress"),
            .value("--poll-seconds", "S", "seconds between progress polls", default: "5", example: "--poll-seconds 30"),
            .value("--max-polls", "N", "give up following after N polls", default: "120"),
        ], database: true, examples: ["receiptdesk subscription mass-extend com.example.game.pro.monthly --days 3 --reason-code outage --reason outage"]),
        CommandSpec(path: "subscription mass-status", arguments: "[REQUEST_ID]", summary: "list mass extensions, or follow one", options: [
            .value("--poll-seconds", "S", "seconds between polls", default: "5"),
            .value("--max-polls", "N", "polls before giving up", default: "1", example: "--max-polls 60"),
        ], database: true, examples: ["receiptdesk subscription mass-status"]),
        CommandSpec(path: "subscription offer", arguments: "CUSTOMER --product ID --offer OFFER_ID --reason TEXT", summary: "sign a promotional or win-back offer (Apple's v2 signature), printed once, audited without it", options: [
            .value("--product", "ID", "the subscription product", example: "--product com.example.game.pro.monthly"),
            .value("--offer", "OFFER_ID", "the offer id from App Store Connect", example: "--offer WINBACK50"),
            .value("--reason", "TEXT", "why (required)", example: "--reason churned"),
            .value("--transaction", "TX", "which of the customer's subscriptions", default: "the newest of the product"),
        ], database: true, examples: ["receiptdesk subscription offer alice --product com.example.game.pro.monthly --offer WINBACK50 --reason churned"]),
        CommandSpec(path: "refunds", arguments: "[list]", summary: "Apple's consumption requests (refund requests) by deadline", options: [
            .flag("--all", "answered and closed ones too"),
        ], database: true, examples: ["receiptdesk refunds"]),
        CommandSpec(path: "refunds send", arguments: "N --consented --reason TEXT", summary: "send the consumption information for request N, filled from the ledger, reviewed, audited", options: [
            .flag("--consented", "the customer consented to sharing it (required)"),
            .value("--reason", "TEXT", "why (required)", example: "--reason \"used half the period\""),
            .value("--refund-preference", "P", "grant, prorated, decline or none", example: "--refund-preference prorated"),
            .value("--consumption-percentage", "0-100", "version 2: how much was consumed", default: "the share of the paid period gone by", example: "--consumption-percentage 40"),
            .value("--sample-content", "yes|no", "whether it was a sample"),
            .value("--consumption-status", "0-3", "version 1: Apple's consumptionStatus"),
            .value("--delivery-status", "0-5", "version 1: Apple's deliveryStatus"),
            .value("--platform", "0-2", "version 1: Apple's platform"),
            .value("--account-tenure", "0-7", "version 1: Apple's accountTenure band"),
            .value("--play-time", "0-7", "version 1: Apple's playTime band"),
            .value("--lifetime-purchased", "0-7", "version 1: lifetimeDollarsPurchased band"),
            .value("--lifetime-refunded", "0-7", "version 1: lifetimeDollarsRefunded band"),
            .value("--user-status", "0-4", "version 1: Apple's userStatus"),
            .flag("--dry-run", "show what would be sent, send nothing"),
        ], database: true, examples: ["receiptdesk refunds send 1 --consented --refund-preference prorated --reason \"used half the period\""],
                    notes: [
                      "Version 2 (the default) sends consumptionPercentage, the share of the paid period gone by unless --consumption-percentage says otherwise; the version 1 fields (--consumption-status and the bands) are filled from the ledger where not given. --dry-run shows every field and where it came from.",
                    ]),
        CommandSpec(path: "notifications fetch", arguments: "--since DATE", summary: "what Apple sent over a period (Get Notification History), applied once per notificationUUID; resumable", options: [
            .value("--since", "DATE", "from (RFC 3339 or 2026-11-01)", example: "--since 2026-11-01"),
            .value("--until", "DATE", "until", default: "now"),
            environmentOption,
        ], database: true, examples: ["receiptdesk notifications fetch --since 2026-11-01"],
                    notes: [
                      "The paging token is stored after every page: run it again to resume an interrupted fetch.",
                    ]),
        CommandSpec(path: "notifications test", arguments: "", summary: "ask Apple for a TEST notification, and say whether it was delivered", options: [environmentOption],
                    database: true, examples: ["receiptdesk notifications test"]),
        CommandSpec(path: "notifications test-status", arguments: "TOKEN", summary: "whether the TEST notification TOKEN was delivered", options: [environmentOption],
                    database: true, examples: ["receiptdesk notifications test-status 3f1c…"]),
        CommandSpec(path: "transaction history", arguments: "TX", summary: "Apple's history of a transaction's account, verified, with who owns each in the ledger",
                    database: true, examples: ["receiptdesk transaction history 2000000100000001"]),
        CommandSpec(path: "transaction app-info", arguments: "ANY_TX", summary: "the app download (app transaction) from any of its transaction ids",
                    database: true, examples: ["receiptdesk transaction app-info 2000000100000001"]),
        CommandSpec(path: "transaction set-token", arguments: "ORIGINAL_TX --token UUID --reason TEXT", summary: "fix a purchase's app account token at Apple and in the ledger", options: [
            .value("--token", "UUID", "the app account token", example: "--token 7e3fb20b-0d44-4c7a-9a53-1d8a3f0e6b21"),
            .value("--reason", "TEXT", "why (required)", example: "--reason \"order mix-up\""),
            .flag("--dry-run", "show the preview, ask Apple nothing"),
        ], database: true, examples: ["receiptdesk transaction set-token 2000000100000001 --token 7e3fb20b-0d44-4c7a-9a53-1d8a3f0e6b21 --reason \"order mix-up\""]),
        CommandSpec(path: "transaction show", arguments: "TX", summary: "one transaction as the ledger holds it, and when and by whom it was finished at Apple",
                    database: true, examples: ["receiptdesk transaction show 2000000100000002"]),
        CommandSpec(path: "transaction finish", arguments: "TX --reason TEXT", summary: "tell Apple a delivered transaction is finished (Finish Transaction), once, audited", options: [
            .value("--reason", "TEXT", "why (required)", example: "--reason \"coins delivered (ticket 88)\""),
            .flag("--dry-run", "check it is delivered, ask Apple nothing"),
        ], database: true, examples: ["receiptdesk transaction finish 2000000100000002 --reason \"coins delivered (ticket 88)\""],
                    notes: [
                      "Delivered, as the ledger sees it: the transaction is in the ledger, from production or sandbox, not refunded or revoked (an upgrade counts as delivered), it grants something (its product in the catalogue, a quantity above 0, a sandbox purchase only for a tester or with allowSandbox), no open conflict disputes it, and its merchant order, when it has one, is paid and not ambiguous.",
                      "A repeat says \"already finished at … by …\" from the ledger without asking Apple; two operators at once ask Apple once. Exit 65: not delivered, not in the ledger, or refused by Apple (by name, as 4040010 transactionIdNotFound); 69, or 75 when a retry may work: Apple unreachable.",
                    ]),
    ]
}
