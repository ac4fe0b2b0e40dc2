/// The two App Store environments the simulator serves, each under its own path prefix on one
/// port: `/production/…` stands for `buy.itunes.apple.com` and `api.storekit.apple.com`,
/// `/sandbox/…` for `sandbox.itunes.apple.com` and `api.storekit-sandbox.apple.com`.
/// The raw value is what JSON carries (`"environment":"Sandbox"`).
public enum SimulatorEnvironment: String, Codable, Sendable, CaseIterable {
    /// The real store (`buy.itunes.apple.com`, `api.storekit.apple.com`).
    case production = "Production"
    /// The test store (`sandbox.itunes.apple.com`, `api.storekit-sandbox.apple.com`).
    case sandbox = "Sandbox"

    /// The path prefix's component: "production" or "sandbox".
    public var pathComponent: String {
        switch self {
        case .production: return "production"
        case .sandbox: return "sandbox"
        }
    }

    /// What a unified receipt of this environment writes in field 0: "Production" or
    /// "ProductionSandbox".
    public var receiptType: String {
        switch self {
        case .production: return "Production"
        case .sandbox: return "ProductionSandbox"
        }
    }

    /// The environment whose path prefix is `component`, if any.
    public init?(pathComponent component: Substring) {
        switch component {
        case "production": self = .production
        case "sandbox": self = .sandbox
        default: return nil
        }
    }
}

/// The four App Store product types, by the names StoreKit 2 writes in a transaction's `type`.
public enum SimulatedProductType: String, Codable, Sendable, CaseIterable {
    /// Renews each period until cancelled.
    case autoRenewable = "Auto-Renewable Subscription"
    /// Bought once, kept for ever (restorable).
    case nonConsumable = "Non-Consumable"
    /// Used up (coins); may be bought again.
    case consumable = "Consumable"
    /// A fixed period that does not renew by itself.
    case nonRenewing = "Non-Renewing Subscription"

    /// Unified receipt field 1707: 0 non-consumable, 1 consumable, 2 non-renewing, 3 auto-renewable.
    public var receiptCode: Int64 {
        switch self {
        case .nonConsumable: return 0
        case .consumable: return 1
        case .nonRenewing: return 2
        case .autoRenewable: return 3
        }
    }
}
