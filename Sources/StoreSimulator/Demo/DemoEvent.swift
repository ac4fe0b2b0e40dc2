import Foundation

/// One step of building the demo database, in the order a merchant's backend would see them. The
/// simulator produces the steps (it mints every artefact, so "Apple" knows them later); the
/// command line replays them through the purchase ledger.
public enum DemoEvent: Sendable {
    /// A sandbox tester account (App Review, QA).
    case addTester(customer: String)
    /// The merchant's backend records an order before the purchase.
    case createOrder(orderId: String, customer: String, productId: String, accountToken: String?)
    /// StoreKit reported a failed payment for the order.
    case failOrder(orderId: String, reason: String)
    /// A receipt, JWS or notification body arrives for a customer (callbacks may repeat).
    case importArtefact(bytes: [UInt8], customer: String, orderId: String?, applicationUsername: String?, source: String)
    /// An App Store Server Notification arrives.
    case notify(body: [UInt8])
    /// Support gives goodwill.
    case grant(customer: String, entitlement: String, until: Date?, reason: String)
    /// The merchant's account system knows the customer's name and email.
    case contact(customer: String, name: String, email: String)
}

/// The catalogue the demo uses, with product names in several scripts.
public enum DemoCatalogue {
    public static let bundleId = "com.example.receiptdesk.game"
    public static let monthly = "com.example.game.pro.monthly"
    public static let yearly = "com.example.game.pro.yearly"
    public static let coins = "com.example.game.coins.1200"
    public static let gems = "com.example.game.gems.jp500"
    public static let removeAds = "com.example.game.removeads"
    public static let seasonPass = "com.example.game.season.pass"

    /// The config's `products` section.
    public static let productsJSON = """
    {
        "\(monthly)": {"entitlement": "pro", "type": "auto-renewable", "name": "Pro (monthly)"},
        "\(yearly)": {"entitlement": "pro", "type": "auto-renewable", "name": "Pro (yearly)"},
        "\(coins)": {"entitlement": "coins", "type": "consumable", "units": 1200, "name": "金币礼包"},
        "\(gems)": {"entitlement": "gems", "type": "consumable", "units": 500, "name": "ジェム 500個"},
        "\(removeAds)": {"entitlement": "no-ads", "type": "non-consumable", "name": "Без рекламы"},
        "\(seasonPass)": {"entitlement": "season", "type": "non-renewing", "duration": "P1M", "name": "Season Pass ✦"}
    }
    """
}
