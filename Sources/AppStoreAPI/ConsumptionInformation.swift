import Foundation
import ReceiptCore

/// What the merchant tells Apple about a purchase whose customer asked Apple for a refund (Send
/// Consumption Information), in Apple's codes, in either of Apple's two versions:
///
/// Version 2 (`PUT /inApps/v2/transactions/consumption/{id}`, the default since Apple deprecated
/// version 1 on 2025-12-10): consent, how much was consumed in milliunits of a percent, delivery
/// and refund preference as names, whether a sample came first (see `ConsumptionInformation+V2`):
///
///     {"customerConsented":true,"consumptionPercentage":25000,"deliveryStatus":"DELIVERED",
///      "refundPreference":"GRANT_PRORATED","sampleContentProvided":false}
///
/// Version 1 (`PUT /inApps/v1/…`, kept where the config asks for it: `appStore.consumptionVersion`):
/// every field required, each with an "undeclared" value (0, or an empty token):
///
///     {"customerConsented":true,"consumptionStatus":2,"platform":1,"sampleContentProvided":false,
///      "deliveryStatus":0,"appAccountToken":"","accountTenure":3,"playTime":4,
///      "lifetimeDollarsRefunded":1,"lifetimeDollarsPurchased":2,"userStatus":1,"refundPreference":2}
///
/// The coded fields keep version 1's numbers for both; version 2's names are derived from them
/// (`deliveryStatus` 0 is DELIVERED, …; `refundPreference` 4, a prorated refund, exists in
/// version 2 only).
public struct ConsumptionInformation: Sendable, Equatable {
    /// Apple's version of the request: 2 (the default) or 1.
    public var version = 2
    /// Version 2: how much of the purchase was consumed, in milliunits of a percent
    /// (0…100000; 25000 is 25 %); nil when the merchant does not know.
    public var consumptionPercentage: Int?
    /// Apple refuses the request unless the customer consented to sharing it.
    public var customerConsented: Bool
    /// 0 undeclared, 1 not consumed, 2 partially consumed, 3 fully consumed.
    public var consumptionStatus: Int
    /// 0 undeclared, 1 an Apple platform, 2 another platform.
    public var platform: Int
    /// Whether a free sample, trial or description of the content came before the purchase.
    public var sampleContentProvided: Bool
    /// 0 delivered and working, 1 not delivered (quality issue), 2 wrong item, 3 server outage,
    /// 4 in-game currency change, 5 other reasons.
    public var deliveryStatus: Int
    /// The customer's app account token (a UUID), or "" when not declared.
    public var appAccountToken: String
    /// Account age: 0 undeclared, 1 0–3 days, 2 3–10, 3 10–30, 4 30–90, 5 90–180, 6 180–365, 7 over 365.
    public var accountTenure: Int
    /// Time in the app: 0 undeclared, 1 0–5 min, 2 5–60 min, 3 1–6 h, 4 6–24 h, 5 1–4 days,
    /// 6 4–16 days, 7 over 16 days.
    public var playTime: Int
    /// Lifetime refunds: 0 undeclared, 1 $0, 2 $0.01–49.99, 3 $50–99.99, 4 $100–499.99,
    /// 5 $500–999.99, 6 $1000–1999.99, 7 over $2000.
    public var lifetimeDollarsRefunded: Int
    /// Lifetime purchases, in the same bands as `lifetimeDollarsRefunded`.
    public var lifetimeDollarsPurchased: Int
    /// 0 undeclared, 1 active, 2 suspended, 3 terminated, 4 limited access.
    public var userStatus: Int
    /// The merchant's wish: 0 undeclared, 1 grant the refund, 2 decline it, 3 no preference.
    public var refundPreference: Int

    /// Information with every field given.
    public init(customerConsented: Bool, consumptionStatus: Int, platform: Int, sampleContentProvided: Bool,
                deliveryStatus: Int, appAccountToken: String, accountTenure: Int, playTime: Int,
                lifetimeDollarsRefunded: Int, lifetimeDollarsPurchased: Int, userStatus: Int, refundPreference: Int) {
        self.customerConsented = customerConsented
        self.consumptionStatus = consumptionStatus
        self.platform = platform
        self.sampleContentProvided = sampleContentProvided
        self.deliveryStatus = deliveryStatus
        self.appAccountToken = appAccountToken
        self.accountTenure = accountTenure
        self.playTime = playTime
        self.lifetimeDollarsRefunded = lifetimeDollarsRefunded
        self.lifetimeDollarsPurchased = lifetimeDollarsPurchased
        self.userStatus = userStatus
        self.refundPreference = refundPreference
    }

    /// Each coded field: its JSON name, its value, the largest value Apple accepts, and its words
    /// (version 2: the two it sends, delivery and refund preference).
    public var codedFields: [(name: String, value: Int, maximum: Int, meaning: String)] {
        version == 2 ? v2CodedFields : v1CodedFields
    }

    private var v1CodedFields: [(name: String, value: Int, maximum: Int, meaning: String)] {
        [("consumptionStatus", consumptionStatus, 3, Self.words(consumptionStatus, ["undeclared", "not consumed", "partially consumed", "fully consumed"])),
         ("platform", platform, 2, Self.words(platform, ["undeclared", "Apple platform", "non-Apple platform"])),
         ("deliveryStatus", deliveryStatus, 5, Self.words(deliveryStatus, ["delivered and working", "not delivered: quality issue", "wrong item delivered",
                                                                         "not delivered: server outage", "not delivered: in-game currency change",
                                                                         "not delivered: other reason"])),
         ("accountTenure", accountTenure, 7, Self.words(accountTenure, ["undeclared", "0–3 days", "3–10 days", "10–30 days", "30–90 days",
                                                                       "90–180 days", "180–365 days", "over 365 days"])),
         ("playTime", playTime, 7, Self.words(playTime, ["undeclared", "0–5 minutes", "5–60 minutes", "1–6 hours", "6–24 hours", "1–4 days",
                                                        "4–16 days", "over 16 days"])),
         ("lifetimeDollarsRefunded", lifetimeDollarsRefunded, 7, Self.words(lifetimeDollarsRefunded, Self.dollarBands)),
         ("lifetimeDollarsPurchased", lifetimeDollarsPurchased, 7, Self.words(lifetimeDollarsPurchased, Self.dollarBands)),
         ("userStatus", userStatus, 4, Self.words(userStatus, ["undeclared", "active", "suspended", "terminated", "limited access"])),
         ("refundPreference", refundPreference, 3, Self.words(refundPreference, ["undeclared", "grant the refund", "decline the refund",
                                                                                "no preference"]))]
    }

    /// Sets the coded field named `name` (its JSON name, as in `codedFields`); false for a name
    /// that is not one. The value is checked by `validate()`, not here.
    @discardableResult
    public mutating func setCodedField(_ name: String, to value: Int) -> Bool {
        switch name {
        case "consumptionStatus": consumptionStatus = value
        case "platform": platform = value
        case "deliveryStatus": deliveryStatus = value
        case "accountTenure": accountTenure = value
        case "playTime": playTime = value
        case "lifetimeDollarsRefunded": lifetimeDollarsRefunded = value
        case "lifetimeDollarsPurchased": lifetimeDollarsPurchased = value
        case "userStatus": userStatus = value
        case "refundPreference": refundPreference = value
        default: return false
        }
        return true
    }

    static let dollarBands = ["undeclared", "$0", "$0.01–49.99", "$50–99.99", "$100–499.99", "$500–999.99", "$1000–1999.99", "over $2000"]

    private static func words(_ value: Int, _ names: [String]) -> String {
        names.indices.contains(value) ? names[value] : "unknown value \(value)"
    }

    /// Throws `.configuration` naming the first field Apple would refuse.
    public func validate() throws {
        guard customerConsented else {
            throw AppStoreError(.configuration, "consumption information: the customer has not consented to sharing it; Apple refuses it without consent")
        }
        if version == 2 { return try validateV2() }
        guard version == 1 else { throw AppStoreError(.configuration, "consumption information: version \(version) is not 1 or 2") }
        for field in codedFields where !(0...field.maximum).contains(field.value) {
            throw AppStoreError(.configuration, "consumption information: \(field.name) \(field.value) is not 0–\(field.maximum)")
        }
        guard appAccountToken.isEmpty || UUID(uuidString: appAccountToken) != nil else {
            throw AppStoreError(.configuration, "consumption information: appAccountToken '\(appAccountToken.prefix(40))' is not a UUID (or empty)")
        }
    }

    /// The request body, in Apple's member names for its version.
    public var json: JSONValue {
        if version == 2 { return v2JSON }
        var members: [(String, JSONValue)] = [("customerConsented", .bool(customerConsented))]
        for field in codedFields { members.append((field.name, .int(Int64(field.value)))) }
        members.append(("sampleContentProvided", .bool(sampleContentProvided)))
        members.append(("appAccountToken", .string(appAccountToken)))
        return .object(members)
    }

    /// Reads what `json` wrote (as kept in the ledger), either version; nil when something is missing.
    public init?(json object: JSONObject) {
        if let v2 = Self(v2JSON: object) {
            self = v2
            return
        }
        func int(_ key: String) -> Int? { (try? object.int(key)).flatMap { $0 }.map { Int($0) } }
        guard let consented = (try? object.bool("customerConsented")) ?? nil,
              let sample = (try? object.bool("sampleContentProvided")) ?? nil,
              let token = (try? object.string("appAccountToken")) ?? nil,
              let consumption = int("consumptionStatus"), let platform = int("platform"), let delivery = int("deliveryStatus"),
              let tenure = int("accountTenure"), let play = int("playTime"), let refunded = int("lifetimeDollarsRefunded"),
              let purchased = int("lifetimeDollarsPurchased"), let user = int("userStatus"), let preference = int("refundPreference") else {
            return nil
        }
        self.init(customerConsented: consented, consumptionStatus: consumption, platform: platform, sampleContentProvided: sample,
                  deliveryStatus: delivery, appAccountToken: token, accountTenure: tenure, playTime: play,
                  lifetimeDollarsRefunded: refunded, lifetimeDollarsPurchased: purchased, userStatus: user, refundPreference: preference)
        version = 1
    }

    /// The band of `lifetimeDollarsPurchased` / `lifetimeDollarsRefunded` for an amount in US dollars.
    public static func dollarBand(_ dollars: Double) -> Int {
        switch dollars {
        case ..<0.005: return 1
        case ..<50: return 2
        case ..<100: return 3
        case ..<500: return 4
        case ..<1000: return 5
        case ..<2000: return 6
        default: return 7
        }
    }

    /// The band of `accountTenure` for an account `days` old.
    public static func tenureBand(days: Double) -> Int {
        switch days {
        case ..<0: return 0
        case ..<3: return 1
        case ..<10: return 2
        case ..<30: return 3
        case ..<90: return 4
        case ..<180: return 5
        case ..<365: return 6
        default: return 7
        }
    }
}
