import Foundation
import ReceiptCore

/// The inner dictionary of an iOS 6 transaction receipt (`purchase-info`, before base64), from
/// readable values. Every value is written as a string, as Apple did:
///
///     {
///     	"original-purchase-date-pst" = "2012-04-30 08:05:55 America/Los_Angeles";
///     	"original-transaction-id" = "1000000046178817";
///     	"bvrs" = "20120427";
///     	"transaction-id" = "1000000046178817";
///     	"quantity" = "1";
///     	"original-purchase-date-ms" = "1335798355868";
///     	"product-id" = "com.mindmobapp.download";
///     	"item-id" = "521129812";
///     	"bid" = "com.mindmobapp.MindMob";
///     	"purchase-date-ms" = "1335798355868";
///     	"purchase-date" = "2012-04-30 15:05:55 Etc/GMT";
///     	"purchase-date-pst" = "2012-04-30 08:05:55 America/Los_Angeles";
///     	"original-purchase-date" = "2012-04-30 15:05:55 Etc/GMT";
///     }
///
/// Optional keys (`unique-identifier`, `unique-vendor-identifier`, `app-item-id`,
/// `version-external-identifier`, `web-order-line-item-id`, `expires-date` …) are written when set.
public struct LegacyPurchaseInfo: Sendable {
    /// `transaction-id`.
    public var transactionId: String
    /// `original-transaction-id`.
    public var originalTransactionId: String
    /// `product-id`.
    public var productId: String
    /// `quantity`.
    public var quantity: Int
    /// `bid`: the app's bundle identifier.
    public var bundleId: String
    /// `bvrs`: the app's bundle version.
    public var bundleVersion: String
    /// `item-id`: the product's App Store item id.
    public var itemId: String
    /// `purchase-date`, `purchase-date-ms`, `purchase-date-pst`.
    public var purchaseDate: Date
    /// `original-purchase-date`, `-ms`, `-pst`.
    public var originalPurchaseDate: Date
    /// `unique-identifier` (the device UDID of the time).
    public var uniqueIdentifier: String?
    /// `unique-vendor-identifier`.
    public var uniqueVendorIdentifier: String?
    /// `app-item-id`.
    public var appItemId: String?
    /// `version-external-identifier`.
    public var versionExternalIdentifier: String?
    /// `web-order-line-item-id`.
    public var webOrderLineItemId: String?
    /// For auto-renewable subscriptions: `expires-date` (ms) and `expires-date-formatted(-pst)`.
    public var expiresDate: Date?
    /// Entries written after the ones above, as given.
    public var extraEntries: [(key: String, value: String)] = []

    /// A first purchase: the original transaction id and date default to this one's.
    public init(transactionId: String, originalTransactionId: String? = nil, productId: String, quantity: Int = 1,
                bundleId: String, bundleVersion: String, itemId: String, purchaseDate: Date,
                originalPurchaseDate: Date? = nil) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId ?? transactionId
        self.productId = productId
        self.quantity = quantity
        self.bundleId = bundleId
        self.bundleVersion = bundleVersion
        self.itemId = itemId
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate ?? purchaseDate
    }

    /// The entries in Apple's order.
    public var entries: [(key: String, value: String)] {
        var list: [(key: String, value: String)] = []
        func add(_ key: String, _ value: String?) { if let value { list.append((key, value)) } }
        add("original-purchase-date-pst", Self.pacific(originalPurchaseDate))
        add("unique-identifier", uniqueIdentifier)
        add("original-transaction-id", originalTransactionId)
        add("bvrs", bundleVersion)
        add("app-item-id", appItemId)
        add("transaction-id", transactionId)
        add("quantity", String(quantity))
        add("original-purchase-date-ms", Self.milliseconds(originalPurchaseDate))
        add("unique-vendor-identifier", uniqueVendorIdentifier)
        add("product-id", productId)
        add("item-id", itemId)
        add("version-external-identifier", versionExternalIdentifier)
        add("web-order-line-item-id", webOrderLineItemId)
        add("bid", bundleId)
        if let expiresDate {
            add("expires-date", Self.milliseconds(expiresDate))
            add("expires-date-formatted", Self.gmt(expiresDate))
            add("expires-date-formatted-pst", Self.pacific(expiresDate))
        }
        add("purchase-date-ms", Self.milliseconds(purchaseDate))
        add("purchase-date", Self.gmt(purchaseDate))
        add("purchase-date-pst", Self.pacific(purchaseDate))
        add("original-purchase-date", Self.gmt(originalPurchaseDate))
        return list + extraEntries
    }

    /// The plist text (tab-indented, `"key" = "value";` lines).
    public var plist: String { OpenStepPlist.write(entries) }

    /// UNIX milliseconds as a decimal string.
    static func milliseconds(_ date: Date) -> String {
        String(JSONMembers.milliseconds(date))
    }

    /// `2012-04-30 15:05:55 Etc/GMT`.
    static func gmt(_ date: Date) -> String { civil(date, offset: 0) + " Etc/GMT" }

    /// `2012-04-30 08:05:55 America/Los_Angeles`, or nil when the system has no time zone data.
    static func pacific(_ date: Date) -> String? {
        guard let zone = TimeZone(identifier: "America/Los_Angeles") else { return nil }
        return civil(date, offset: zone.secondsFromGMT(for: date)) + " America/Los_Angeles"
    }

    private static func civil(_ date: Date, offset: Int) -> String {
        let t = CivilTime(date.addingTimeInterval(Double(offset)))
        func pad(_ n: Int, _ width: Int = 2) -> String {
            String(repeating: "0", count: max(0, width - String(n).count)) + String(n)
        }
        return "\(pad(t.year, 4))-\(pad(t.month))-\(pad(t.day)) \(pad(t.hour)):\(pad(t.minute)):\(pad(t.second))"
    }
}
