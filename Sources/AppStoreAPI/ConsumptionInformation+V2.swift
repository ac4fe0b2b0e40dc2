import Foundation
import ReceiptCore

/// Send Consumption Information version 2 (App Store Server API, 2025): the body and its rules.
///
///     {"customerConsented":true,"consumptionPercentage":25000,"deliveryStatus":"DELIVERED",
///      "refundPreference":"GRANT_PRORATED","sampleContentProvided":false}
///
/// `customerConsented`, `deliveryStatus` and `sampleContentProvided` are required;
/// `consumptionPercentage` (0…100000 milliunits) and `refundPreference` may be left out.
extension ConsumptionInformation {
    /// Apple's `deliveryStatus` names, by version 1's code (4, a currency change, has no name of
    /// its own in version 2: it is UNDELIVERED_OTHER).
    public static let deliveryStatusNames = ["DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM",
                                             "UNDELIVERED_SERVER_OUTAGE", "UNDELIVERED_OTHER", "UNDELIVERED_OTHER"]
    /// Apple's `refundPreference` names by code: 0 and 3 (undeclared, no preference) are left out.
    public static let refundPreferenceNames: [Int: String] = [1: "GRANT_FULL", 2: "DECLINE", 4: "GRANT_PRORATED"]

    var v2CodedFields: [(name: String, value: Int, maximum: Int, meaning: String)] {
        let delivery = ["delivered and working", "not delivered: quality issue", "wrong item delivered", "not delivered: server outage",
                        "not delivered: other reason", "not delivered: other reason"]
        let preference = ["no preference (left out)", "grant a full refund", "decline the refund", "no preference (left out)",
                          "grant a prorated refund"]
        func words(_ value: Int, _ names: [String]) -> String { names.indices.contains(value) ? names[value] : "unknown value \(value)" }
        return [("deliveryStatus", deliveryStatus, 5, words(deliveryStatus, delivery)),
                ("refundPreference", refundPreference, 4, words(refundPreference, preference))]
    }

    /// The consumed share in words: "25 %", or "not declared".
    public var consumptionPercentageText: String {
        guard let consumptionPercentage else { return "not declared" }
        let percent = Double(consumptionPercentage) / 1000
        return percent == percent.rounded() ? "\(Int(percent)) %" : String(format: "%.1f %%", percent)
    }

    func validateV2() throws {
        if let consumptionPercentage, !(0...100_000).contains(consumptionPercentage) {
            throw AppStoreError(.configuration, "consumption information: consumptionPercentage \(consumptionPercentage) is not 0–100000 (milliunits of a percent)")
        }
        for field in v2CodedFields where !(0...field.maximum).contains(field.value) {
            throw AppStoreError(.configuration, "consumption information: \(field.name) \(field.value) is not 0–\(field.maximum)")
        }
    }

    var v2JSON: JSONValue {
        var members: [(String, JSONValue)] = [("customerConsented", .bool(customerConsented))]
        if let consumptionPercentage { members.append(("consumptionPercentage", .int(Int64(consumptionPercentage)))) }
        let delivery = Self.deliveryStatusNames.indices.contains(deliveryStatus) ? Self.deliveryStatusNames[deliveryStatus] : "UNDELIVERED_OTHER"
        members.append(("deliveryStatus", .string(delivery)))
        if let preference = Self.refundPreferenceNames[refundPreference] { members.append(("refundPreference", .string(preference))) }
        members.append(("sampleContentProvided", .bool(sampleContentProvided)))
        return .object(members)
    }

    /// Version 2 as `v2JSON` wrote it; nil for anything else (version 1 has numeric codes).
    init?(v2JSON object: JSONObject) {
        guard let consented = (try? object.bool("customerConsented")) ?? nil,
              let sample = (try? object.bool("sampleContentProvided")) ?? nil,
              let deliveryName = (try? object.string("deliveryStatus")) ?? nil,
              let delivery = Self.deliveryStatusNames.firstIndex(of: deliveryName) else { return nil }
        let preferenceName = (try? object.string("refundPreference")) ?? nil
        let preference = preferenceName.flatMap { name in Self.refundPreferenceNames.first { $0.value == name }?.key } ?? 0
        self.init(customerConsented: consented, consumptionStatus: 0, platform: 0, sampleContentProvided: sample,
                  deliveryStatus: delivery, appAccountToken: "", accountTenure: 0, playTime: 0,
                  lifetimeDollarsRefunded: 0, lifetimeDollarsPurchased: 0, userStatus: 0, refundPreference: preference)
        consumptionPercentage = ((try? object.int("consumptionPercentage")) ?? nil).map { Int($0) }
        version = 2
    }
}
