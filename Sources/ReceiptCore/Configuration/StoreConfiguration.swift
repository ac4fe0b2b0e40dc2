import Foundation

/// The merchant's settings: which app, which products give which entitlement, the sandbox policy
/// and the paid-to-free rule. Read from `--config FILE`, `$RECEIPTDESK_CONFIG` or
/// `~/.config/receiptdesk/config.json` by the executable; an absent file means `defaults`.
///
/// ```json
/// {
///   "bundleIds": ["com.example.game"],
///   "appAppleId": 1234567890,
///   "products": {
///     "pro.monthly": { "entitlement": "pro", "type": "auto-renewable" },
///     "pro.lifetime": { "entitlement": "pro", "type": "non-consumable" },
///     "pro.pass.30d": { "entitlement": "pro", "type": "non-renewing", "duration": "P30D" },
///     "coins.100": { "entitlement": "coins", "type": "consumable", "units": 100 }
///   },
///   "sandbox": { "allowSandbox": false },
///   "paidToFree": { "entitlement": "pro", "beforeBuild": "42", "beforeDate": "2020-01-01T00:00:00Z" }
/// }
/// ```
/// A single `"bundleId": "com.example.game"` is accepted in place of `bundleIds`. Unknown keys are
/// refused at every level (a typo must not silently change behaviour), except the top-level
/// `reservedKeys`, which later settings will use and which are accepted and ignored today.
/// Keys that name a secret may not hold one inline (see `ConfigSecrets`).
public struct StoreConfiguration: Sendable, Equatable {
    /// The app's bundle ids; receipts for others do not verify. Empty: not checked.
    public var bundleIds: [String]
    /// The app's Apple id (`appAppleId`), for the App Store Server API.
    public var appAppleId: Int64?
    /// The catalogue: product id → what it gives.
    public var products: [String: CatalogueProduct]
    /// Whether sandbox (and Xcode / local testing) purchases grant entitlements to every customer,
    /// not only to testers. They are flagged either way.
    public var allowSandbox: Bool
    /// The paid-to-free rule, when the app was once paid.
    public var paidToFree: PaidToFreeRule?
    /// How to reach Apple (or the built-in simulator standing in for it).
    public var appStore = AppStoreSettings()
    /// The zone the console shows times in (`display.timeZone`, an IANA name); nil: `TZ`, else
    /// the system's. Stored times are UTC whatever it says.
    public var displayTimeZone: String?
    /// `operators`: each database user (PostgreSQL login role, OS user for SQLite) and the one
    /// operator name its changes are audited under. Empty: any name goes (the database user is
    /// recorded beside it either way).
    public var operatorsByDatabaseUser: [String: String] = [:]
    /// `console`: the terminal console's own settings (where it writes files).
    public var console = ConsoleSettings()

    /// No bundle ids, an empty catalogue, sandbox purchases grant nothing, no paid-to-free rule.
    public static let defaults = StoreConfiguration()

    /// Top-level keys accepted and ignored: settings of the next issue (Apple endpoints, the
    /// Server API, timeouts). Their contents are still searched for inline secrets.
    public static let reservedKeys: Set<String> = ["verifyReceipt", "serverAPI", "timeouts"]

    /// The largest config file accepted, in bytes (1 MiB).
    public static let maxBytes = 1 << 20
    /// The most products the catalogue may hold.
    public static let maxProducts = 10_000

    public init(bundleIds: [String] = [], appAppleId: Int64? = nil, products: [String: CatalogueProduct] = [:],
                allowSandbox: Bool = false, paidToFree: PaidToFreeRule? = nil) {
        self.bundleIds = bundleIds
        self.appAppleId = appAppleId
        self.products = products
        self.allowSandbox = allowSandbox
        self.paidToFree = paidToFree
    }

    /// Parses config JSON; `source` (a file path) goes in every error message.
    ///
    /// Throws `ReceiptError` with code `.configuration` and a one-line reason
    /// `config <source>: <key path>: <reason>` (for example `config /etc/rd.json:
    /// products.coins.100.type: 'consumible' is not one of consumable, non-consumable,
    /// auto-renewable, non-renewing`), or `config <source>: not valid JSON (…)`.
    public init(json bytes: [UInt8], source: String) throws {
        self = try StoreConfigurationParser(source: source).parse(bytes)
    }
}
