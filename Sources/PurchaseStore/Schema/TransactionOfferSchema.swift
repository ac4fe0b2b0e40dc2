/// Migration 0017: each transaction's own offer, as its signed transaction (JWS) says it, and the
/// signing date of the JWS it was read from. The offer of a period is a fact of that period's
/// transaction: a free trial is `offer_discount_type` 'FREE_TRIAL' on the trial's transaction and
/// on no later one. `subscription_states`' offer columns mix it with the renewal info's offer for
/// the next renewal, so what the current period is (goodwill's "in a free offer period") is read
/// here, from the subscription's newest transaction.
///
/// - `offer_type`: 1 introductory, 2 promotional, 3 offer code, 4 win-back (Apple's `offerType`).
/// - `offer_identifier`, `offer_period` (ISO 8601, "P1M"), `offer_discount_type` ("FREE_TRIAL",
///   "PAY_AS_YOU_GO", "PAY_UP_FRONT", "ONE_TIME", as written).
/// - `signed_date`: when Apple signed the first JWS of this transaction the ledger recorded (the
///   offer columns come from it; a transaction's offer never changes). NULL: the ledger has seen
///   it only in a receipt or an answer without its JWS, so its offer is unknown.
enum TransactionOfferSchema {
    static let migration = Migration("0017-transaction-offers") { dialect in
        [
            "ALTER TABLE transactions ADD COLUMN offer_type \(dialect.integerType)",
            "ALTER TABLE transactions ADD COLUMN offer_identifier TEXT",
            "ALTER TABLE transactions ADD COLUMN offer_period TEXT",
            "ALTER TABLE transactions ADD COLUMN offer_discount_type TEXT",
            "ALTER TABLE transactions ADD COLUMN signed_date TEXT",
        ]
    }
}
