import Foundation

/// A legacy iOS 6 `transactionReceipt`: base64 of an OpenStep plist envelope
///
///     {
///         "signature" = "<base64 LegacySignatureBlob>";
///         "purchase-info" = "<base64 of another OpenStep plist>";
///         "environment" = "Sandbox";        // absent in production
///         "pod" = "100";
///         "signing-status" = "0";
///     }
///
/// whose `purchase-info` plist holds string values only:
///
///     { "transaction-id" = "1000000046178817"; "product-id" = "com.example.pro";
///       "purchase-date-ms" = "1335798355868"; "purchase-date" = "2012-04-30 15:05:55 Etc/GMT"; … }
///
/// Every envelope and purchase-info entry is kept in order; the known purchase-info keys are
/// also typed. The raw purchase-info bytes are kept because the signature covers them.
public struct LegacyReceipt: Sendable {
    /// Every envelope entry in the order written, known keys included.
    public let envelope: [PlistEntry]
    /// The decoded `signature`, nil when the receipt carries none.
    public let signature: LegacySignatureBlob?
    /// The envelope's `environment` as written ("Sandbox"); nil when absent (production).
    public let environmentRaw: String?
    /// The envelope's `pod` as written.
    public let pod: String?
    /// The envelope's `signing-status` as written.
    public let signingStatus: String?
    /// The base64-decoded `purchase-info`: the bytes the signature covers.
    public let purchaseInfoBytes: [UInt8]
    /// Every purchase-info entry in the order written, known and unknown.
    public let purchaseInfo: [PlistEntry]

    /// `transaction-id`.
    public private(set) var transactionId: String?
    /// `original-transaction-id`: the first purchase of this product (restores and renewals share it).
    public private(set) var originalTransactionId: String?
    /// `product-id`.
    public private(set) var productId: String?
    /// `quantity`.
    public private(set) var quantity: Int64?
    /// `bid`: the app's bundle identifier.
    public private(set) var bundleId: String?
    /// `bvrs`: the app's bundle version (CFBundleVersion).
    public private(set) var bundleVersion: String?
    /// `item-id`: the product's App Store item id.
    public private(set) var itemId: String?
    /// `app-item-id`: the app's App Store id (absent or 0 in the sandbox; signed evidence of the
    /// environment).
    public private(set) var appItemId: String?
    /// `version-external-identifier`: the app version's App Store id.
    public private(set) var versionExternalIdentifier: String?
    /// From `purchase-date-ms`, else `purchase-date`.
    public private(set) var purchaseDate: Date?
    /// `purchase-date-pst` as written ("2012-04-30 08:05:55 America/Los_Angeles").
    public private(set) var purchaseDatePST: String?
    /// From `original-purchase-date-ms`, else `original-purchase-date`.
    public private(set) var originalPurchaseDate: Date?
    /// `original-purchase-date-pst` as written.
    public private(set) var originalPurchaseDatePST: String?
    /// From `expires-date-ms`, else `expires-date` (milliseconds or a GMT date), else
    /// `expires-date-formatted`.
    public private(set) var expiresDate: Date?
    /// From `cancellation-date-ms`, else `cancellation-date` (milliseconds or a GMT date).
    public private(set) var cancellationDate: Date?
    /// `web-order-line-item-id` (auto-renewable subscriptions).
    public private(set) var webOrderLineItemId: String?
    /// `unique-identifier`: the device identifier (UDID era).
    public private(set) var uniqueIdentifier: String?
    /// `unique-vendor-identifier`: the identifierForVendor UUID.
    public private(set) var uniqueVendorIdentifier: String?
    /// `is-trial-period` ("true" / "false").
    public private(set) var isTrialPeriod: Bool?
    /// `is-in-intro-offer-period` ("true" / "false").
    public private(set) var isInIntroOfferPeriod: Bool?

    /// The purchase-info keys this decoder gives a meaning to.
    public static let knownPurchaseInfoKeys: Set<String> = [
        "transaction-id", "original-transaction-id", "product-id", "quantity", "bid", "bvrs", "item-id",
        "app-item-id", "version-external-identifier", "purchase-date", "purchase-date-ms", "purchase-date-pst",
        "original-purchase-date", "original-purchase-date-ms", "original-purchase-date-pst", "expires-date",
        "expires-date-ms", "expires-date-formatted", "cancellation-date", "cancellation-date-ms",
        "web-order-line-item-id", "unique-identifier", "unique-vendor-identifier", "is-trial-period",
        "is-in-intro-offer-period",
    ]

    /// Decodes a receipt from its base64 text, as an app sends it; whitespace and line breaks
    /// anywhere in the text are ignored.
    public init(base64: String) throws {
        try self.init(plistBytes: try Base64.decode(base64, "legacy receipt: receipt text"))
    }

    /// Decodes a receipt from the envelope plist's bytes (the base64 already undone).
    public init(plistBytes: [UInt8]) throws {
        let what = "legacy receipt"
        guard let envelope = try PlistValue(openStep: plistBytes, context: what).entries else {
            throw ReceiptError(.unexpectedTag, "\(what): the envelope is not a dictionary")
        }
        func text(_ key: String) throws -> String? {
            guard let value = envelope.first(where: { $0.key == key })?.value else { return nil }
            guard let text = value.stringValue else {
                throw ReceiptError(.unexpectedTag, "\(what): envelope key '\(key)' is \(value.kindName), expected a string")
            }
            return text
        }
        self.envelope = envelope
        environmentRaw = try text("environment")
        pod = try text("pod")
        signingStatus = try text("signing-status")
        if let signatureText = try text("signature") {
            let blob = try Base64.decode(signatureText, "\(what): envelope key 'signature'")
            signature = try LegacySignatureBlob(bytes: blob)
        } else {
            signature = nil
        }
        guard let infoText = try text("purchase-info") else {
            throw ReceiptError(.missingField, "\(what): envelope key 'purchase-info' is missing")
        }
        purchaseInfoBytes = try Base64.decode(infoText, "\(what): envelope key 'purchase-info'")
        guard let info = try PlistValue(openStep: purchaseInfoBytes, context: "\(what) purchase-info").entries else {
            throw ReceiptError(.unexpectedTag, "\(what): purchase-info is not a dictionary")
        }
        purchaseInfo = info
        try readPurchaseInfo()
    }

    /// Types the known purchase-info keys; a malformed value is an error naming its key.
    private mutating func readPurchaseInfo() throws {
        let fields = LegacyFields(entries: purchaseInfo)
        transactionId = try fields.text("transaction-id")
        originalTransactionId = try fields.text("original-transaction-id")
        productId = try fields.text("product-id")
        quantity = try fields.integer("quantity")
        bundleId = try fields.text("bid")
        bundleVersion = try fields.text("bvrs")
        itemId = try fields.text("item-id")
        appItemId = try fields.text("app-item-id")
        versionExternalIdentifier = try fields.text("version-external-identifier")
        webOrderLineItemId = try fields.text("web-order-line-item-id")
        uniqueIdentifier = try fields.text("unique-identifier")
        uniqueVendorIdentifier = try fields.text("unique-vendor-identifier")
        isTrialPeriod = try fields.flag("is-trial-period")
        isInIntroOfferPeriod = try fields.flag("is-in-intro-offer-period")
        // Every date key present is checked, then the -ms form wins.
        let purchaseMs = try fields.milliseconds("purchase-date-ms")
        let purchaseGMT = try fields.gmtDate("purchase-date")
        purchaseDate = purchaseMs ?? purchaseGMT
        purchaseDatePST = try fields.zonedText("purchase-date-pst")
        let originalMs = try fields.milliseconds("original-purchase-date-ms")
        let originalGMT = try fields.gmtDate("original-purchase-date")
        originalPurchaseDate = originalMs ?? originalGMT
        originalPurchaseDatePST = try fields.zonedText("original-purchase-date-pst")
        let expiresMs = try fields.milliseconds("expires-date-ms")
        let expiresPlain = try fields.millisecondsOrGMT("expires-date")
        let expiresFormatted = try fields.gmtDate("expires-date-formatted")
        expiresDate = expiresMs ?? expiresPlain ?? expiresFormatted
        let cancellationMs = try fields.milliseconds("cancellation-date-ms")
        let cancellationPlain = try fields.millisecondsOrGMT("cancellation-date")
        cancellationDate = cancellationMs ?? cancellationPlain
    }

    /// Where the purchase happened, from what the signature covers: App Store purchases carry a
    /// non-zero `app-item-id` (and `version-external-identifier`) in purchase-info; sandbox
    /// purchases carry none, or 0. The envelope's `environment` key sits outside the signed part
    /// and is kept as a claim beside that evidence; when the two disagree the reading is a
    /// mismatch and the environment is sandbox, so an edited envelope never makes a sandbox
    /// purchase count as paid.
    public var environment: EnvironmentReading {
        let signed = environmentEvidence
        let claimed: Environment = environmentRaw.map { Environment.named($0) } ?? .production
        let disagrees = claimed != signed.environment
        let claim = EnvironmentClaim(environment: claimed, source: .legacyEnvironmentKey, rawValue: environmentRaw,
                                     disagrees: disagrees)
        return EnvironmentReading(disagrees ? .sandbox : signed.environment, source: .legacyPurchaseInfo,
                                  rawValue: signed.description, isSigned: signature != nil, claim: claim)
    }

    /// What purchase-info says about the environment (`app-item-id`, `version-external-identifier`).
    var environmentEvidence: LegacyEnvironmentEvidence {
        LegacyEnvironmentEvidence(appItemId: appItemId, versionExternalIdentifier: versionExternalIdentifier)
    }

    /// The purchase-info value for `key` as written, if present.
    public func purchaseInfoValue(_ key: String) -> String? {
        purchaseInfo.first { $0.key == key }?.value.stringValue
    }

    /// This purchase in the shape shared by every format. Legacy receipts do not state a
    /// product type, so `productType` stays nil.
    public var purchase: Purchase {
        var p = Purchase()
        p.transactionId = transactionId
        p.originalTransactionId = originalTransactionId
        p.productId = productId
        p.quantity = quantity
        p.purchaseDate = purchaseDate
        p.originalPurchaseDate = originalPurchaseDate
        p.expiresDate = expiresDate
        p.cancellationDate = cancellationDate
        p.webOrderLineItemId = webOrderLineItemId
        p.isTrialPeriod = isTrialPeriod
        p.isInIntroOfferPeriod = isInIntroOfferPeriod
        return p
    }
}

/// Typed reads of purchase-info values, each error naming the key.
private struct LegacyFields {
    let entries: [PlistEntry]

    private func fail(_ key: String, _ message: String) -> ReceiptError {
        ReceiptError(.badValue, "legacy receipt: purchase-info key '\(key)' \(message)")
    }

    private static func quoted(_ text: String) -> String {
        text.count > 48 ? "'\(text.prefix(48))…'" : "'\(text)'"
    }

    /// The string value; another kind of value is an error.
    func text(_ key: String) throws -> String? {
        guard let value = entries.first(where: { $0.key == key })?.value else { return nil }
        guard let text = value.stringValue else {
            throw ReceiptError(.unexpectedTag, "legacy receipt: purchase-info key '\(key)' is \(value.kindName), expected a string")
        }
        return text
    }

    /// A date's text: an empty value counts as absent, as Apple writes empty dates elsewhere.
    private func dateText(_ key: String) throws -> String? {
        guard let text = try text(key), !text.isEmpty else { return nil }
        return text
    }

    func integer(_ key: String) throws -> Int64? {
        guard let text = try text(key) else { return nil }
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }), let value = Int64(text) else {
            throw fail(key, "is not a whole number: \(Self.quoted(text))")
        }
        return value
    }

    func flag(_ key: String) throws -> Bool? {
        guard let text = try text(key) else { return nil }
        switch text.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw fail(key, "is not true or false: \(Self.quoted(text))")
        }
    }

    /// UNIX milliseconds, as the `-ms` keys write them.
    func milliseconds(_ key: String) throws -> Date? {
        guard let text = try dateText(key) else { return nil }
        guard let date = Self.parseMilliseconds(text) else {
            throw fail(key, "is not a whole number of milliseconds: \(Self.quoted(text))")
        }
        return date
    }

    /// `2012-04-30 15:05:55 Etc/GMT` (also `GMT`, `UTC`, `Etc/UTC`).
    func gmtDate(_ key: String) throws -> Date? {
        guard let text = try dateText(key) else { return nil }
        guard let date = Self.parseGMT(text) else {
            throw fail(key, "is not a date like '2012-04-30 15:05:55 Etc/GMT': \(Self.quoted(text))")
        }
        return date
    }

    /// Older auto-renewable receipts write milliseconds under the plain key, others a GMT date.
    func millisecondsOrGMT(_ key: String) throws -> Date? {
        guard let text = try dateText(key) else { return nil }
        guard let date = Self.parseMilliseconds(text) ?? Self.parseGMT(text) else {
            throw fail(key, "is neither milliseconds nor a date like '2012-04-30 15:05:55 Etc/GMT': \(Self.quoted(text))")
        }
        return date
    }

    /// A local date with a zone name (`2012-04-30 08:05:55 America/Los_Angeles`), checked for
    /// shape and kept as text: converting it would need a time-zone database, and the GMT and
    /// `-ms` keys already say the instant.
    func zonedText(_ key: String) throws -> String? {
        guard let text = try dateText(key) else { return nil }
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[2].isEmpty, RFC3339.parse("\(parts[0])T\(parts[1])Z") != nil,
              parts[1].count == 8 else {
            throw fail(key, "is not a date like '2012-04-30 08:05:55 America/Los_Angeles': \(Self.quoted(text))")
        }
        return text
    }

    static func parseMilliseconds(_ text: String) -> Date? {
        guard (1...15).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) }),
              let ms = Int64(text), RFC3339.isStorableMilliseconds(Double(ms)) else { return nil }
        return RFC3339.fromMilliseconds(Double(ms))
    }

    static func parseGMT(_ text: String) -> Date? {
        for zone in [" Etc/GMT", " GMT", " Etc/UTC", " UTC"] where text.hasSuffix(zone) {
            let stamp = text.dropLast(zone.count)
            guard stamp.utf8.count == 19 else { return nil }
            return RFC3339.parse(String(stamp) + "Z")
        }
        return nil
    }
}

/// The signed evidence of a legacy purchase's environment: App Store purchases name the app
/// (`app-item-id`) and its version (`version-external-identifier`) with non-zero ids; Apple
/// documents both as 0 in the sandbox, where they are usually absent.
struct LegacyEnvironmentEvidence {
    let appItemId: String?
    let versionExternalIdentifier: String?

    private static func isNonZero(_ id: String?) -> Bool {
        guard let id, !id.isEmpty, id.utf8.allSatisfy({ (48...57).contains($0) }) else { return false }
        return id.utf8.contains { $0 != UInt8(ascii: "0") }
    }

    /// Production when `app-item-id` is a non-zero id and `version-external-identifier`, if
    /// written, is one too; sandbox otherwise.
    var environment: Environment {
        let versionOK = versionExternalIdentifier == nil || Self.isNonZero(versionExternalIdentifier)
        return Self.isNonZero(appItemId) && versionOK ? .production : .sandbox
    }

    /// "app-item-id 521129812, version-external-identifier 3"; "app-item-id absent".
    var description: String {
        var text = "app-item-id " + (appItemId ?? "absent")
        if let versionExternalIdentifier { text += ", version-external-identifier \(versionExternalIdentifier)" }
        return text
    }
}
