import Foundation

/// The one JSON object `receiptdesk decode --json` prints: stable keys, absent values as null,
/// dates in RFC 3339 UTC.
public enum DecodeReport {
    public static func json(_ artefact: DecodedArtefact, verdict: Verdict, now: Date, includeTree: Bool = true) -> JSONValue {
        let s = artefact.summary
        var members: [(String, JSONValue)] = [
            ("format", .string(s.format.rawValue)),
            ("environment", .string(s.environment.environment.rawValue)),
            ("environmentEvidence", environmentJSON(s.environment)),
            ("verdict", verdictJSON(verdict)),
            ("bundleId", .string(s.bundleId)),
            ("appVersion", .string(s.appVersion)),
            ("originalAppVersion", .string(s.originalAppVersion)),
            ("creationDate", .date(s.creationDate)),
            ("originalPurchaseDate", .date(s.originalPurchaseDate)),
            ("notificationType", .string(s.notificationType)),
            ("subtype", .string(s.subtype)),
            ("notificationUUID", .string(s.notificationUUID)),
            ("purchases", .array(s.purchases.map(purchaseJSON))),
            ("renewal", s.renewal.map(renewalJSON) ?? .null),
        ]
        if includeTree { members.append(("tree", treeJSON(artefact.tree(now: now)))) }
        return .object(members)
    }

    /// `{"source": …, "value": …, "signed": true, "claim": {"source", "value", "environment",
    /// "signed": false} or null, "mismatch": false}`.
    public static func environmentJSON(_ e: EnvironmentReading) -> JSONValue {
        .object([
            ("source", .string(e.source.rawValue)),
            ("value", .string(e.rawValue)),
            ("signed", .bool(e.isSigned)),
            ("claim", e.claim.map { c in
                .object([("source", .string(c.source.rawValue)), ("value", .string(c.rawValue)),
                         ("environment", .string(c.environment.rawValue)), ("signed", .bool(false))])
            } ?? .null),
            ("mismatch", .bool(e.isMismatch)),
        ])
    }

    public static func verdictJSON(_ v: Verdict) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("status", .string(v.status.rawValue)),
            ("reason", .string(v.reason)),
            ("chain", .array(v.chain.map { .string($0) })),
            ("validationTime", .date(v.validationTime)),
            ("extraAnchor", .string(v.extraAnchor)),
        ]
        // Only when a check was asked for: offline verdicts keep their shape.
        if let revocation = v.revocation { members.append(("revocation", revocationJSON(revocation))) }
        return .object(members)
    }

    /// `{"checked": true, "outcome": "good", "checkedAt": …, "responder": …, "validUntil": …, "summary": …}`.
    public static func revocationJSON(_ r: RevocationStatus) -> JSONValue {
        let outcome: String
        var detail: String?
        switch r.state {
        case .off: outcome = "off"
        case .good: outcome = "good"
        case .revoked(let certificate, _, let reason): outcome = "revoked"; detail = "\(certificate): \(reason)"
        case .notChecked(let why): outcome = "notChecked"; detail = why
        }
        return .object([
            ("checked", .bool(r.state == .good || outcome == "revoked")),
            ("outcome", .string(outcome)),
            ("detail", .string(detail)),
            ("checkedAt", .date(r.checkedAt)),
            ("responder", .string(r.responder)),
            ("validUntil", .date(r.validUntil)),
            ("summary", .string(r.summary)),
        ])
    }

    public static func purchaseJSON(_ p: Purchase) -> JSONValue {
        .object([
            ("transactionId", .string(p.transactionId)),
            ("originalTransactionId", .string(p.originalTransactionId)),
            ("productId", .string(p.productId)),
            ("quantity", .int(p.quantity)),
            ("purchaseDate", .date(p.purchaseDate)),
            ("originalPurchaseDate", .date(p.originalPurchaseDate)),
            ("expiresDate", .date(p.expiresDate)),
            ("cancellationDate", .date(p.cancellationDate)),
            ("revocationDate", .date(p.revocationDate)),
            ("webOrderLineItemId", .string(p.webOrderLineItemId)),
            ("isTrialPeriod", .bool(p.isTrialPeriod)),
            ("isInIntroOfferPeriod", .bool(p.isInIntroOfferPeriod)),
            ("promotionalOfferId", .string(p.promotionalOfferId)),
            ("appAccountToken", .string(p.appAccountToken)),
            ("productType", .string(p.productType?.rawValue)),
            ("ownershipType", .string(p.ownershipType)),
            ("revocationType", .string(p.revocationTypeRaw)),
            ("revocationPercentage", .int(p.revocationPercentage)),
            ("isUpgraded", .bool(p.isUpgraded)),
            ("billingPlanType", .string(p.billingPlanTypeRaw)),
            ("commitment", p.commitment.map { c in
                .object([("billingPeriodNumber", .int(c.billingPeriodNumber)), ("totalBillingPeriods", .int(c.totalBillingPeriods)),
                         ("commitmentPrice", .int(c.commitmentPrice)), ("commitmentExpiresDate", .date(c.commitmentExpiresDate))])
            } ?? .null),
        ])
    }

    static func renewalJSON(_ r: RenewalInfo) -> JSONValue {
        .object([
            ("originalTransactionId", .string(r.originalTransactionId)),
            ("productId", .string(r.productId)),
            ("autoRenewProductId", .string(r.autoRenewProductId)),
            ("autoRenewStatus", .int(r.autoRenewStatus)),
            ("expirationIntent", .int(r.expirationIntent)),
            ("isInBillingRetryPeriod", .bool(r.isInBillingRetryPeriod)),
            ("gracePeriodExpiresDate", .date(r.gracePeriodExpiresDate)),
            ("renewalDate", .date(r.renewalDate)),
            ("recentSubscriptionStartDate", .date(r.recentSubscriptionStartDate)),
            ("renewalBillingPlanType", .string(r.renewalBillingPlanTypeRaw)),
            ("commitment", r.commitment.map { c in
                .object([("autoRenewProductId", .string(c.autoRenewProductId)), ("autoRenewStatus", .int(c.autoRenewStatus)),
                         ("renewalBillingPlanType", .string(c.renewalBillingPlanTypeRaw)), ("renewalDate", .date(c.renewalDate)),
                         ("renewalPrice", .int(c.renewalPrice))])
            } ?? .null),
        ])
    }

    public static func treeJSON(_ node: TreeNode) -> JSONValue {
        .object([
            ("label", .string(node.label)),
            ("attribute", node.attribute.map { .int(Int64($0)) } ?? .null),
            ("value", .string(node.value)),
            ("warnings", .array(node.warnings.map { .object([("kind", .string($0.kind.rawValue)), ("message", .string($0.message))]) })),
            ("children", .array(node.children.map(treeJSON))),
        ])
    }
}
