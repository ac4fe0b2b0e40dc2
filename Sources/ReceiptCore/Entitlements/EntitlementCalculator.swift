import Foundation

/// What a customer owns at `now`, and why: a pure function of their transactions, the catalogue,
/// manual grants and revocations, the paid-to-free rule and the sandbox policy. No I/O, no clock.
///
/// - Products map to entitlements through the catalogue; a product the catalogue lacks maps to
///   an entitlement named after the product id, typed by the transaction's own `productType`
///   (else non-consumable), flagged "not in catalogue".
/// - Auto-renewable: from purchase until the earliest of expiry, revocation and cancellation.
///   Non-renewing: purchase + the catalogue duration (none: flagged, until revoked).
///   Non-consumable: until revoked or cancelled. Consumable: counted (quantity × units) unless
///   revoked or cancelled; held while the balance is above zero.
/// - Sources hold in [starts, ends): an expiry exactly at `now` no longer holds.
/// - Sandbox, Xcode and local-testing purchases are listed and flagged "sandbox"; they hold only
///   when the customer is a tester or `allowSandbox` is on.
/// - Manual grants hold in [starts, ends) unless revoked; manual revocations end the purchase and
///   legacy-paid sources that started before them (see `ManualRevocations`).
/// - The paid-to-free rule: see `LegacyPaidSource`.
public enum EntitlementCalculator {
    /// Every entitlement with at least one source, sorted by name.
    public static func compute(_ input: EntitlementInput, configuration: StoreConfiguration, now: Date) -> [EntitlementState] {
        let sandboxAllowed = input.isTester || configuration.allowSandbox
        var drafts = PurchaseSources.make(input.transactions, configuration: configuration,
                                          sandboxAllowed: sandboxAllowed, now: now)
        if let legacy = LegacyPaidSource.make(rule: configuration.paidToFree, facts: input.appPurchase,
                                              sandboxAllowed: sandboxAllowed, now: now) {
            drafts.append(legacy)
        }
        ManualRevocations.apply(input.revocations, to: &drafts, now: now)
        drafts += ManualGrantSources.make(input.grants, now: now)

        var byName: [String: [EntitlementSource]] = [:]
        for draft in drafts {
            var source = draft.source
            // Reasons and flags quote ids, names and operators' words: keep each on one line.
            source.reason = ConfigText.oneLine(source.reason)
            source.flags = source.flags.map(ConfigText.oneLine)
            byName[draft.entitlement, default: []].append(source)
        }
        return byName.keys.sorted().map { name in
            EntitlementSummary.state(name: name, sources: byName[name] ?? [])
        }
    }
}
