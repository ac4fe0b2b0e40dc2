import Foundation
import ReceiptCore

/// A customer's display name and email, as the merchant knows them: what support searches by.
/// Neither decides anything; both are shown and searched only.
public struct CustomerContact: Sendable, Equatable {
    /// nil leaves the stored value as it is; "" clears it.
    public var displayName: String?
    public var email: String?

    public init(displayName: String? = nil, email: String? = nil) {
        self.displayName = displayName
        self.email = email
    }

    public var isEmpty: Bool { displayName == nil && email == nil }

    /// Refuses a name or email that is too long, holds characters that would change a terminal,
    /// or (email) is not `local@domain`.
    public func validate() throws {
        if let displayName, !displayName.isEmpty {
            try Validate.freeText(displayName, "display name", maxBytes: 200)
        }
        if let email, !email.isEmpty {
            try Validate.freeText(email, "email", maxBytes: 254)
            let parts = email.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
                  !email.contains(where: \.isWhitespace) else {
                throw StoreError(.invalidInput, "email '\(email)' is not an address like name@example.com")
            }
        }
    }
}

extension PurchaseLedger {
    /// Sets the name and email of an existing customer; returns whether anything changed.
    /// Audited (`customer-contact`).
    @discardableResult
    public func setContact(_ customerId: String, _ contact: CustomerContact, operatorName: String) throws -> Bool {
        try contact.validate()
        let now = clock()
        return try database.writeTransaction {
            try requireCustomer(customerId)
            return try applyContact(customerId, contact, now: now, operatorName: operatorName)
        }
    }

    /// Whether the customer is in the ledger.
    public func customerExists(_ customerId: String) throws -> Bool {
        try database.queryFirst("SELECT 1 AS found FROM customers WHERE customer_id = ?", [.text(customerId)]) != nil
    }

    /// Inside a write transaction: writes what `contact` changes and audits it.
    func applyContact(_ customerId: String, _ contact: CustomerContact, now: Date, operatorName: String) throws -> Bool {
        guard !contact.isEmpty else { return false }
        try database.lockCustomer(customerId)  // PostgreSQL: one contact change (and digest key) per customer at a time
        guard let row = try database.queryFirst("SELECT display_name, email FROM customers WHERE customer_id = ?", [.text(customerId)]) else { return false }
        func next(_ given: String?, _ stored: String?) -> String? { given.map { $0.isEmpty ? nil : $0 } ?? stored }
        let name = next(contact.displayName, row.string("display_name"))
        let email = next(contact.email, row.string("email"))
        guard name != row.string("display_name") || email != row.string("email") else { return false }
        try database.execute("UPDATE customers SET display_name = ?, email = ?, updated_at = ?, version = version + 1 WHERE customer_id = ?",
                             [.text(name), .text(email), .date(now), .text(customerId)])
        // The chain keeps keyed digests, never the name or email (see `PersonalDigest`): erasing
        // the customer later needs no rewriting of hashed history.
        try audit(now, operatorName, "customer-contact", "customer:\(customerId)",
                  .object([("displayName", try name.map { .string(try personalDigest($0, of: customerId, now: now)) } ?? .null),
                           ("email", try email.map { .string(try personalDigest($0, of: customerId, now: now)) } ?? .null)]))
        return true
    }

    /// Records which Apple order (the id on the customer's invoice email) each transaction
    /// belongs to, as Look Up Order ID answered, so a search by that id finds them. Transactions
    /// not in the ledger are skipped; returns how many were newly recorded. Audited.
    @discardableResult
    public func recordAppleOrder(_ appleOrderId: String, transactionIds: [String], operatorName: String) throws -> Int {
        try Validate.identifier(appleOrderId, "Apple order id")
        let now = clock()
        return try database.writeTransaction {
            var recorded: [String] = []
            for id in transactionIds {
                guard try database.queryFirst("SELECT 1 AS found FROM transactions WHERE transaction_id = ?", [.text(id)]) != nil else { continue }
                let changed = try database.execute("""
                    INSERT INTO apple_orders (transaction_id, apple_order_id, looked_up_at, looked_up_by) VALUES (?, ?, ?, ?)
                    ON CONFLICT (transaction_id) DO NOTHING
                    """, [.text(id), .text(appleOrderId), .date(now), .text(operatorName)])
                if changed > 0 { recorded.append(id) }
            }
            if !recorded.isEmpty {
                try audit(now, operatorName, "apple-order", "apple-order:\(appleOrderId)", .object([("transactions", .array(recorded.map(JSONValue.string)))]))
            }
            return recorded.count
        }
    }
}

extension Validate {
    /// Free text shown to operators (names, emails): not blank, bounded, and free of control,
    /// bidirectional and zero-width characters.
    static func freeText(_ value: String, _ what: String, maxBytes: Int) throws {
        if let (position, scalar) = UnsafeText.firstUnsafe(value) {
            throw StoreError(.invalidInput, "\(what) '\(UnsafeText.escaped(String(value.prefix(40)), keeping: []))' holds \(UnsafeText.describe(scalar)) at character \(position)")
        }
        guard value.utf8.count <= maxBytes else {
            throw StoreError(.invalidInput, "\(what) '\(value.prefix(40))…' is longer than \(maxBytes) bytes")
        }
    }
}
