import AppStoreAPI
import Foundation
import ReceiptCore

/// A renewal extension for every active subscriber of a product (after an outage), as asked of
/// Apple and as Apple reports its progress (table `mass_extensions`).
public struct MassExtensionRecord: Sendable, Equatable {
    public let requestIdentifier: String
    public let productId: String
    public let environment: String
    public let days: Int64
    public let reasonCode: Int64
    public let storefronts: [String]
    public let requestedAt: Date?
    public let operatorName: String
    public let reason: String
    /// "requested", "complete" or "refused".
    public let status: String
    public let succeeded: Int64
    public let failed: Int64
    public let completedAt: Date?
    public let checkedAt: Date?

    /// "complete: 30 extended, 2 failed", "in progress: 12 extended so far", "refused: …".
    public var progress: String {
        switch status {
        case "complete": return "complete: \(succeeded) extended, \(failed) failed"
        case "refused": return "refused by Apple"
        default: return checkedAt == nil ? "requested, not checked yet" : "in progress: \(succeeded) extended, \(failed) failed so far"
        }
    }
}

/// What a mass extension would cover, as far as the ledger knows.
public struct MassExtensionPlan: Sendable {
    public let productId: String
    public let environment: Environment
    public let days: Int
    public let reasonCode: ExtendReasonCode
    public let storefronts: [String]
    /// Active subscribers of the product the ledger knows (Apple decides who is eligible).
    public let knownActiveSubscribers: Int
    public let requestIdentifier: String
    /// The newest mass extension of this product and environment when the plan was made, and its
    /// progress: a request is refused when another was made since (see `recordMassExtensionRequested`).
    public var latestRequestSeen: (requestIdentifier: String, progress: String, by: String)? = nil
    /// How many mass extensions of this product and environment the ledger held then (rows are
    /// never deleted, so a change in the count is a request made since, whatever the clocks say).
    public var requestsSeen: Int64 = 0

    public var lines: [String] {
        latestLine + ["Extend every active subscriber of \(productId) (\(environment.rawValue.lowercased())) by \(days) day\(days == 1 ? "" : "s")",
         "Apple's reason code \(reasonCode.rawValue): \(reasonCode.words)",
         "storefronts: \(storefronts.isEmpty ? "all" : storefronts.joined(separator: ", "))",
         "active subscribers in this ledger: \(knownActiveSubscribers) (Apple decides who is eligible; those already extended twice this year fail)",
         "request \(requestIdentifier); Apple works through it over time: progress is polled"]
    }

    private var latestLine: [String] {
        guard let latest = latestRequestSeen else { return [] }
        return ["earlier mass extension of this product: \(latest.requestIdentifier) by \(latest.by), \(latest.progress)"]
    }
}

extension PurchaseLedger {
    /// Checks a mass extension: the product must be an auto-renewable one of the catalogue, 1–90 days.
    public func planMassExtension(productId: String, days: Int, reasonCode: ExtendReasonCode, storefronts: [String],
                                  environment: Environment) throws -> MassExtensionPlan {
        guard (1...AppStoreServerAPIClient.maxExtensionDays).contains(days) else {
            throw StoreError(.invalidInput, "Apple extends a renewal date by 1–\(AppStoreServerAPIClient.maxExtensionDays) days at a time; \(days) is not")
        }
        guard environment == .production || environment == .sandbox else {
            throw StoreError(.invalidInput, "a mass extension is for production or sandbox, not \(environment.rawValue)")
        }
        guard let product = configuration.products[productId] else {
            throw StoreError(.invalidInput, "product \(productId) is not in the config's catalogue")
        }
        guard product.type == .autoRenewable else {
            throw StoreError(.invalidInput, "product \(productId) is \(product.type.rawValue), not an auto-renewable subscription")
        }
        for code in storefronts where !(code.count == 3 && code.allSatisfy({ $0.isASCII && $0.isUppercase })) {
            throw StoreError(.invalidInput, "storefront '\(code.prefix(20))' is not a three-letter country code such as USA")
        }
        let now = clock()
        let count = try database.queryFirst("""
            SELECT COUNT(DISTINCT COALESCE(original_transaction_id, transaction_id)) AS n FROM transactions
            WHERE product_id = ? AND environment = ? AND expires_date > ? AND revocation_date IS NULL
            """, [.text(productId), .text(environment.rawValue), .date(now)])?.int("n") ?? 0
        var plan = MassExtensionPlan(productId: productId, environment: environment, days: days, reasonCode: reasonCode,
                                     storefronts: storefronts, knownActiveSubscribers: Int(count), requestIdentifier: UUID().uuidString.lowercased())
        plan.latestRequestSeen = try latestMassExtension(productId: productId, environment: environment)
            .map { ($0.requestIdentifier, $0.progress, $0.operatorName) }
        plan.requestsSeen = try massExtensionCount(productId: productId, environment: environment)
        return plan
    }

    func massExtensionCount(productId: String, environment: Environment) throws -> Int64 {
        try database.queryFirst("SELECT count(*) AS n FROM mass_extensions WHERE product_id = ? AND environment = ?",
                                [.text(productId), .text(environment.rawValue)])?.int("n") ?? 0
    }

    /// The newest mass extension of a product in an environment.
    func latestMassExtension(productId: String, environment: Environment) throws -> MassExtensionRecord? {
        try database.queryFirst("""
            SELECT * FROM mass_extensions WHERE product_id = ? AND environment = ? ORDER BY requested_at DESC, request_identifier DESC LIMIT 1
            """, [.text(productId), .text(environment.rawValue)]).map(Self.massExtensionRecord)
    }

    /// Writes the mass extension before Apple is asked (status "requested"), unless another mass
    /// extension of the product was asked since the plan was made (it would extend every
    /// subscriber a second time): then nothing is written and the operator is told to look again.
    /// Call it while holding the product's `InFlightClaim`.
    func recordMassExtensionRequested(_ plan: MassExtensionPlan, reason: String, operatorName: String) throws {
        try Validate.reason(reason)
        try Validate.operatorName(operatorName)
        let now = clock()
        try database.writeTransaction {
            guard try massExtensionCount(productId: plan.productId, environment: plan.environment) == plan.requestsSeen else {
                let latest = try latestMassExtension(productId: plan.productId, environment: plan.environment)
                throw StoreError(.alreadyExists, "another mass extension of \(plan.productId) was asked since the preview (\(latest?.requestIdentifier ?? "?") by \(latest?.operatorName ?? "?"), \(latest?.progress ?? "")): nothing was asked of Apple; look again")
            }
            try database.execute("""
                INSERT INTO mass_extensions (request_identifier, product_id, environment, days, reason_code, storefronts, requested_at,
                                             operator, reason, status)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'requested')
                """, [.text(plan.requestIdentifier), .text(plan.productId), .text(plan.environment.rawValue), .integer(Int64(plan.days)),
                      .integer(Int64(plan.reasonCode.rawValue)), .text(plan.storefronts.joined(separator: ",")), .date(now),
                      .text(operatorName), .text(reason)])
            try audit(now, operatorName, "apple-mass-extend", "product:\(plan.productId)", .object([
                ("requestIdentifier", .string(plan.requestIdentifier)), ("environment", .string(plan.environment.rawValue)),
                ("days", .int(Int64(plan.days))), ("reasonCode", .int(Int64(plan.reasonCode.rawValue))),
                ("storefronts", .array(plan.storefronts.map { .string($0) })), ("reason", .string(reason)),
            ]))
        }
    }

    /// Records Apple's refusal of a mass extension request, audited.
    func recordMassExtensionRefused(_ requestIdentifier: String, why: String, operatorName: String) throws {
        let now = clock()
        try database.writeTransaction {
            try database.execute("UPDATE mass_extensions SET status = 'refused', checked_at = ? WHERE request_identifier = ?",
                                 [.date(now), .text(requestIdentifier)])
            try audit(now, operatorName, "apple-mass-extend", "request:\(requestIdentifier)", .object([
                ("outcome", .string("refused: \(why)")),
            ]))
        }
    }

    /// Records a status answer; the completion is audited once.
    func recordMassExtensionStatus(_ status: MassExtensionStatus, operatorName: String) throws -> MassExtensionRecord {
        let now = clock()
        return try database.writeTransaction {
            // Locked as read (PostgreSQL): a second poller waits, then sees the completion already recorded.
            guard let before = try database.queryFirstLocking("SELECT * FROM mass_extensions WHERE request_identifier = ?",
                                                              [.text(status.requestIdentifier.lowercased())]).map(Self.massExtensionRecord) else {
                throw StoreError(.notFound, "mass extension \(status.requestIdentifier) is not in the ledger")
            }
            try database.execute("""
                UPDATE mass_extensions SET status = ?, succeeded = ?, failed = ?, completed_at = ?, checked_at = ? WHERE request_identifier = ?
                """, [.text(status.complete ? "complete" : before.status == "refused" ? "refused" : "requested"), .integer(status.succeededCount),
                      .integer(status.failedCount), .date(status.completeDate ?? (status.complete ? now : nil)), .date(now),
                      .text(status.requestIdentifier)])
            if status.complete, before.status != "complete" {
                try audit(now, operatorName, "apple-mass-extend-done", "product:\(before.productId)", .object([
                    ("requestIdentifier", .string(status.requestIdentifier)), ("succeeded", .int(status.succeededCount)),
                    ("failed", .int(status.failedCount)),
                ]))
            }
            guard let after = try massExtension(status.requestIdentifier) else { throw StoreError(.sql, "mass extension row vanished") }
            return after
        }
    }

    /// One mass extension by request identifier.
    public func massExtension(_ requestIdentifier: String) throws -> MassExtensionRecord? {
        try database.queryFirst("SELECT * FROM mass_extensions WHERE request_identifier = ?", [.text(requestIdentifier.lowercased())])
            .map(Self.massExtensionRecord)
    }

    /// Every mass extension, newest first.
    public func massExtensions(limit: Int = 100) throws -> [MassExtensionRecord] {
        try database.query("SELECT * FROM mass_extensions ORDER BY requested_at DESC LIMIT ?", [.integer(Int64(max(1, limit)))])
            .map(Self.massExtensionRecord)
    }

    static func massExtensionRecord(_ row: SQLRow) -> MassExtensionRecord {
        MassExtensionRecord(requestIdentifier: row.string("request_identifier") ?? "", productId: row.string("product_id") ?? "",
                            environment: row.string("environment") ?? "", days: row.int("days") ?? 0, reasonCode: row.int("reason_code") ?? 0,
                            storefronts: (row.string("storefronts") ?? "").split(separator: ",").map(String.init),
                            requestedAt: row.date("requested_at"), operatorName: row.string("operator") ?? "", reason: row.string("reason") ?? "",
                            status: row.string("status") ?? "", succeeded: row.int("succeeded") ?? 0, failed: row.int("failed") ?? 0,
                            completedAt: row.date("completed_at"), checkedAt: row.date("checked_at"))
    }

    /// A RENEWAL_EXTENSION/SUMMARY notification: Apple finished a mass extension; its counts are
    /// recorded on the request (inside the caller's write transaction).
    func recordMassExtensionSummary(_ notification: ServerNotification, now: Date) throws {
        guard notification.notificationType == "RENEWAL_EXTENSION", notification.subtype == "SUMMARY",
              let summary = try notification.payload.object("summary"),
              let request = try summary.string("requestIdentifier") else { return }
        try database.execute("""
            UPDATE mass_extensions SET status = 'complete', succeeded = ?, failed = ?, completed_at = COALESCE(completed_at, ?), checked_at = ?
            WHERE request_identifier = ?
            """, [.integer(try summary.int("succeededCount") ?? 0), .integer(try summary.int("failedCount") ?? 0),
                  .date(notification.signedDate ?? now), .date(now), .text(request.lowercased())])
    }
}
