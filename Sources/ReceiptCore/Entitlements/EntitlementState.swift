import Foundation

/// One entitlement of a customer at `now`, with every source that bears on it.
public struct EntitlementState: Sendable, Equatable {
    /// The entitlement ("pro", "coins").
    public var name: String
    /// Whether any source holds at `now`.
    public var isActive: Bool
    /// The latest end among active sources; nil when an active source has no end, or when none
    /// is active.
    public var ends: Date?
    /// Consumables: the units of the counted consumable purchases (not revoked, not cancelled,
    /// granting); nil when no source is a consumable purchase.
    public var balance: Int64?
    /// The reason of the source that keeps it longest (no end beats any end; "coins: 1200 units
    /// via 2 consumable purchases" when only consumables hold it), else why it is not held (the
    /// reason of its newest source).
    public var reason: String
    /// Every source, active first, then newest first.
    public var sources: [EntitlementSource]

    /// The sources besides the one `reason` speaks for, each reason once, in `sources`' order:
    /// what a display lists under the entitlement's own line ("also: …"), so no source is
    /// printed twice and a purchase that grants beside a longer-lasting source is still named.
    public var otherSources: [EntitlementSource] {
        var seen: Set<String> = [reason]
        return sources.filter { seen.insert($0.reason).inserted }
    }

    /// The reason for a line that already starts with the name ("coins: …"): without the name it
    /// begins with ("coins: 1200 units via …" → "1200 units via …", "pro expired …" → "expired …").
    public var reasonAfterName: String { Self.dropping(name, from: reason) }

    /// `text` without `name` (and the ": " or " " after it) at its start.
    public static func dropping(_ name: String, from text: String) -> String {
        for separator in [": ", " "] where text.hasPrefix(name + separator) {
            return String(text.dropFirst(name.count + separator.count))
        }
        return text
    }

    public init(name: String, isActive: Bool, ends: Date?, balance: Int64?, reason: String, sources: [EntitlementSource]) {
        self.name = name
        self.isActive = isActive
        self.ends = ends
        self.balance = balance
        self.reason = reason
        self.sources = sources
    }
}
