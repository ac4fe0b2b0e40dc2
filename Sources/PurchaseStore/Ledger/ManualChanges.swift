import Foundation
import ReceiptCore

extension PurchaseLedger {
    /// Grants an entitlement by hand until `until` (nil: forever). One grant in force per customer
    /// and entitlement: a second is refused with `alreadyExists`, also when two operators race.
    @discardableResult
    public func grant(customer customerId: String, entitlement: String, until: Date?, reason: String,
                      operatorName: String) throws -> GrantRecord {
        try Validate.operatorName(operatorName)
        try Validate.reason(reason)
        try Validate.identifier(entitlement, "entitlement")
        let known = Set(configuration.products.values.map(\.entitlement))
        guard known.isEmpty || known.contains(entitlement) || configuration.paidToFree?.entitlement == entitlement else {
            throw StoreError(.invalidInput, "entitlement \(entitlement) is not in the catalogue (known: \(known.sorted().joined(separator: ", ")))")
        }
        let now = clock()
        let until = try Self.grantEnd(until, now: now)
        do {
            return try database.writeTransaction {
                try requireCustomer(customerId)
                try database.lockCustomer(customerId)  // PostgreSQL: a revoke or another grant of this customer waits
                if let open = try database.queryFirst("""
                    SELECT * FROM grants WHERE customer_id = ? AND entitlement = ? AND revoked_at IS NULL
                    """, [.text(customerId), .text(entitlement)]).map(Self.grantRecord) {
                    if let ends = open.endsAt, ends <= now {
                        // It ran out: close it so the new grant can be the one in force.
                        try database.executeChangingOne("""
                            UPDATE grants SET revoked_at = ?, revoked_by = 'system', revoke_reason = 'ended' WHERE grant_id = ? AND revoked_at IS NULL
                            """, [.date(ends), .integer(open.grantId)],
                            raced: StoreError(.alreadyExists, "grant #\(open.grantId) of \(entitlement) to \(customerId) was closed by another operator meanwhile: nothing changed, look again"))
                    } else {
                        throw StoreError(.alreadyExists,
                                         "customer \(customerId) already has grant #\(open.grantId) of \(entitlement) (\(open.endsAt.map { "until " + RFC3339.format($0) } ?? "forever"), by \(open.grantedBy)): nothing changed")
                    }
                }
                let rows = try database.query("""
                    INSERT INTO grants (customer_id, entitlement, starts_at, ends_at, reason, granted_by, granted_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING grant_id
                    """, [.text(customerId), .text(entitlement), .date(now), .date(until), .text(reason), .text(operatorName), .date(now)])
                let grantId = rows.first?.int("grant_id") ?? 0
                try refreshEntitlements(customerId, now: now)
                try audit(now, operatorName, "grant", "customer:\(customerId)", .object([
                    ("grantId", .int(grantId)), ("entitlement", .string(entitlement)), ("until", .date(until)), ("reason", .string(reason)),
                ]))
                return GrantRecord(grantId: grantId, customerId: customerId, entitlement: entitlement, startsAt: now, endsAt: until,
                                   reason: reason, grantedBy: operatorName, revokedAt: nil)
            }
        } catch let error as StoreError where error.code == .constraint {
            throw StoreError(.alreadyExists, "customer \(customerId) already has a grant of \(entitlement) in force: nothing changed")
        }
    }

    /// The end a grant will be stored with: truncated to the millisecond (what is printed, audited
    /// and stored is that one instant), after `now`, and no later than `StoreDates.latest`.
    public static func grantEnd(_ until: Date?, now: Date) throws -> Date? {
        guard let until else { return nil }
        guard until.timeIntervalSince1970.isFinite, until <= StoreDates.latest else {
            throw StoreError(.invalidInput, "until \(RFC3339.format(until)) is after \(RFC3339.format(StoreDates.latest)), the latest date receiptdesk stores (a grant without an end lasts forever)")
        }
        let end = RFC3339.truncatedToMilliseconds(until)
        guard end > now else { throw StoreError(.invalidInput, "until \(RFC3339.format(end)) is not in the future") }
        return end
    }

    /// Revokes a manual grant (`grantId`), or an entitlement however it is held (open grants are
    /// revoked; purchases and the paid-to-free rule are suppressed from now on).
    public func revoke(customer customerId: String, entitlement: String? = nil, grantId: Int64? = nil, reason: String,
                       operatorName: String) throws {
        try Validate.operatorName(operatorName)
        try Validate.reason(reason)
        guard (entitlement == nil) != (grantId == nil) else {
            throw StoreError(.invalidInput, "name either an entitlement (--entitlement) or a grant (--grant), not both")
        }
        let now = clock()
        try database.writeTransaction {
            try requireCustomer(customerId)
            // PostgreSQL: a second revoke (or grant) of this customer waits here and then reads
            // what this one wrote, so a grant is revoked once and by one operator.
            try database.lockCustomer(customerId)
            var details: [(String, JSONValue)] = [("reason", .string(reason))]
            if let grantId {
                guard let grant = try database.queryFirst("SELECT * FROM grants WHERE grant_id = ? AND customer_id = ?",
                                                          [.integer(grantId), .text(customerId)]).map(Self.grantRecord) else {
                    throw StoreError(.notFound, "grant #\(grantId) not found for customer \(customerId)")
                }
                guard grant.revokedAt == nil else { throw StoreError(.alreadyExists, "grant #\(grantId) is already revoked: nothing changed") }
                try revokeGrant(grantId, now: now, operatorName: operatorName, reason: reason)
                details += [("grantId", .int(grantId)), ("entitlement", .string(grant.entitlement))]
            } else if let entitlement {
                let state = try entitlements(customerId, now: now).first { $0.name == entitlement }
                guard let state, state.isActive else {
                    throw StoreError(.invalidRequest, "customer \(customerId) does not hold \(entitlement): nothing to revoke")
                }
                let openGrants = try database.query("SELECT grant_id FROM grants WHERE customer_id = ? AND entitlement = ? AND revoked_at IS NULL",
                                                    [.text(customerId), .text(entitlement)]).compactMap { $0.int("grant_id") }
                for id in openGrants { try revokeGrant(id, now: now, operatorName: operatorName, reason: reason) }
                if state.sources.contains(where: { $0.isActive && $0.kind != .manual }) {
                    try database.execute("""
                        INSERT INTO revocations (customer_id, entitlement, revoked_at, revoked_by, reason) VALUES (?, ?, ?, ?, ?)
                        """, [.text(customerId), .text(entitlement), .date(now), .text(operatorName), .text(reason)])
                }
                details += [("entitlement", .string(entitlement)), ("grantsRevoked", .array(openGrants.map { .int($0) }))]
            }
            try refreshEntitlements(customerId, now: now)
            try audit(now, operatorName, "revoke", "customer:\(customerId)", .object(details))
        }
    }

    /// Revokes one open grant; a grant another writer closed meanwhile fails the whole change.
    private func revokeGrant(_ grantId: Int64, now: Date, operatorName: String, reason: String) throws {
        try database.executeChangingOne("UPDATE grants SET revoked_at = ?, revoked_by = ?, revoke_reason = ? WHERE grant_id = ? AND revoked_at IS NULL",
                                        [.date(now), .text(operatorName), .text(reason), .integer(grantId)],
                                        raced: StoreError(.alreadyExists, "grant #\(grantId) was revoked by another operator meanwhile: nothing changed"))
    }

    /// Settles a conflict by naming the owner: the transaction moves to the claimant when they are
    /// chosen, and both customers' entitlements are recomputed.
    public func resolveConflict(_ conflictId: Int64, owner: String, reason: String, operatorName: String) throws {
        try Validate.operatorName(operatorName)
        try Validate.reason(reason)
        let now = clock()
        try database.writeTransaction {
            guard let seen = try database.queryFirst("SELECT * FROM conflicts WHERE conflict_id = ?", [.integer(conflictId)])
                .map(Self.conflictRecord) else {
                throw StoreError(.notFound, "conflict #\(conflictId) not found")
            }
            // PostgreSQL: the customers first (the order every change takes them in), then the
            // conflict row, read again under its lock: a second resolution waits here and then
            // sees this one's, and the transaction cannot move under it.
            try database.lockCustomers([seen.ownerCustomerId, seen.claimantCustomerId])
            guard let conflict = try database.queryFirstLocking("SELECT * FROM conflicts WHERE conflict_id = ?", [.integer(conflictId)])
                .map(Self.conflictRecord) else {
                throw StoreError(.notFound, "conflict #\(conflictId) not found")
            }
            guard conflict.status == "open" else {
                throw StoreError(.alreadyExists, "conflict #\(conflictId) is already resolved\(conflict.resolvedBy.map { " (by \($0))" } ?? ""): nothing changed")
            }
            guard conflict.ownerCustomerId == seen.ownerCustomerId else {
                throw StoreError(.alreadyExists, "conflict #\(conflictId) changed owner while it was being resolved (now \(conflict.ownerCustomerId)): nothing changed, look again")
            }
            guard owner == conflict.ownerCustomerId || owner == conflict.claimantCustomerId else {
                throw StoreError(.invalidInput, "the owner must be \(conflict.ownerCustomerId) or \(conflict.claimantCustomerId)")
            }
            // Resolved first, so the row keeps who owned it before (moving updates open conflicts only).
            try database.executeChangingOne("""
                UPDATE conflicts SET status = 'resolved', resolved_owner = ?, resolved_at = ?, resolved_by = ?, resolution_reason = ?
                WHERE conflict_id = ? AND status = 'open'
                """, [.text(owner), .date(now), .text(operatorName), .text(reason), .integer(conflictId)],
                raced: StoreError(.alreadyExists, "conflict #\(conflictId) was resolved by another operator meanwhile: nothing changed"))
            if owner != conflict.ownerCustomerId {
                try moveTransaction(conflict.transactionId, from: conflict.ownerCustomerId, to: owner)
                try recordTransfer(conflict.transactionId, from: conflict.ownerCustomerId, to: owner, kind: "conflict",
                                   reason: "conflict #\(conflictId): \(reason)", operatorName: operatorName, now: now)
            }
            for customer in Set([conflict.ownerCustomerId, conflict.claimantCustomerId]) {
                try refreshEntitlements(customer, now: now)
            }
            try audit(now, operatorName, "conflict-resolve", "transaction:\(conflict.transactionId)", .object([
                ("conflictId", .int(conflictId)), ("previousOwner", .string(conflict.ownerCustomerId)),
                ("claimant", .string(conflict.claimantCustomerId)), ("owner", .string(owner)), ("reason", .string(reason)),
            ]))
        }
    }

    /// Moves one transaction to another customer; open conflicts about it follow the new owner.
    /// The transaction must still belong to `old`: when another writer moved it meanwhile, the
    /// whole change fails and nothing of it is kept.
    func moveTransaction(_ transactionId: String, from old: String, to new: String) throws {
        try database.executeChangingOne("UPDATE transactions SET customer_id = ?, version = version + 1 WHERE transaction_id = ? AND customer_id = ?",
                                        [.text(new), .text(transactionId), .text(old)],
                                        raced: StoreError(.alreadyExists, "transaction \(transactionId) no longer belongs to \(old) (another operator moved it meanwhile): nothing changed, look again"))
        try database.execute("UPDATE conflicts SET owner_customer_id = ? WHERE transaction_id = ? AND status = 'open'",
                             [.text(new), .text(transactionId)])
    }
}
