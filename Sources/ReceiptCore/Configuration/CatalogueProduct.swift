import Foundation

/// One product of the catalogue: which entitlement it gives and how.
///
/// ```json
/// "products": {
///   "pro.monthly": { "entitlement": "pro", "type": "auto-renewable" },
///   "pro.pass.30d": { "entitlement": "pro", "type": "non-renewing", "duration": "P30D" },
///   "coins.100": { "entitlement": "coins", "type": "consumable", "units": 100, "name": "金币礼包" }
/// }
/// ```
public struct CatalogueProduct: Sendable, Equatable {
    /// The entitlement the product gives ("pro", "coins"); never empty.
    public var entitlement: String
    /// consumable | non-consumable | auto-renewable | non-renewing.
    public var type: ProductType
    /// How long a non-renewing subscription lasts from its purchase; nil for the other types.
    public var duration: ISODuration?
    /// Consumables: units granted per purchased quantity of 1 (a "coins.100" product gives 100).
    public var units: Int64
    /// The name people know the product by ("金币礼包"), for display only.
    public var name: String?

    public init(entitlement: String, type: ProductType, duration: ISODuration? = nil, units: Int64 = 1, name: String? = nil) {
        self.entitlement = entitlement
        self.type = type
        self.duration = duration
        self.units = units
        self.name = name
    }
}
