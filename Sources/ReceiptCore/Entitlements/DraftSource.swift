import Foundation

/// A source on its way into an `EntitlementState`: the entitlement it belongs to, and whether it
/// grants nothing whatever the dates (stopped by the sandbox policy, a quantity of zero, a
/// paid-to-free rule that does not apply); operators' revocations pass those by.
struct DraftSource {
    var entitlement: String
    var source: EntitlementSource
    var grantsNothing: Bool
}

extension Environment {
    /// Sandbox, Xcode and local StoreKit testing: purchases nobody paid for.
    var isTestEnvironment: Bool { self == .sandbox || self == .xcode || self == .localTesting }
}

/// The sentence for a sandbox source that the policy stops.
func sandboxGrantsNothing(_ entitlement: String) -> String {
    "\(entitlement) from a sandbox purchase grants nothing: the customer is not a tester and allowSandbox is off"
}

/// "1 unit", "1200 units".
func unitCount(_ units: Int64) -> String { units == 1 ? "1 unit" : "\(units) units" }
