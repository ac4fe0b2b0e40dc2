/// What a purchase cost and why a customer asked for their money back: the price and currency
/// Apple signs on a StoreKit 2 transaction (milliunits of the currency, as Apple gives them; NULL
/// where the artefact carries none, as in app receipts), and the reason Apple gives with a
/// consumption request (`consumptionRequestReason`: UNINTENDED_PURCHASE, FULFILLMENT_ISSUE,
/// UNSATISFIED_WITH_PURCHASE, LEGAL, OTHER; NULL before Apple sent it).
enum MoneySchema {
    static let migration = Migration("0010-prices-and-refund-reasons") { dialect in
        [
            "ALTER TABLE transactions ADD COLUMN price \(dialect.integerType)",
            "ALTER TABLE transactions ADD COLUMN currency TEXT",
            "ALTER TABLE refund_requests ADD COLUMN request_reason TEXT",
        ]
    }
}
