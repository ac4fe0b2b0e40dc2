/// Apple's names for unified receipt attribute numbers (the names its verifyReceipt JSON uses).
public enum ReceiptFieldNames {
    /// App-level attributes.
    public static let app: [Int: String] = [
        0: "receipt_type", 1: "app_item_id", 2: "bundle_id", 3: "application_version", 4: "opaque_value",
        5: "sha1_hash", 8: "transaction_date", 9: "fulfillment_tool_version", 10: "age_rating",
        11: "developer_id", 12: "receipt_creation_date", 15: "download_id", 16: "installer_version_id",
        17: "in_app", 18: "original_purchase_date", 19: "original_application_version", 21: "expiration_date",
    ]
    /// In-app purchase attributes.
    public static let inApp: [Int: String] = [
        1701: "quantity", 1702: "product_id", 1703: "transaction_id", 1704: "purchase_date",
        1705: "original_transaction_id", 1706: "original_purchase_date", 1707: "product_type",
        1708: "expires_date", 1711: "web_order_line_item_id", 1712: "cancellation_date",
        1713: "is_trial_period", 1719: "is_in_intro_offer_period", 1721: "promotional_offer_id",
    ]
    /// Attributes Apple documents as reserved: shown, not flagged.
    public static let reserved: Set<Int> = [6, 7, 13, 14, 20, 25]
}
