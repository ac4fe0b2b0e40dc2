import Foundation
import ReceiptCore

/// A transaction that changed owner: kept on both customers ("transferred out to …" / "restored
/// from …").
public struct TransferRecord: Sendable, Equatable {
    public let transactionId: String
    public let fromCustomer: String
    public let toCustomer: String
    /// "restore" or "conflict" (a resolved conflict).
    public let kind: String
    public let at: Date
    public let operatorName: String
    public let reason: String
}

/// A transaction arriving again after it was recorded: when, from what, for whom, by whom.
public struct ArrivalRecord: Sendable, Equatable {
    public let transactionId: String
    public let at: Date
    /// What brought it: "receipt #12 (import r.b64)", "notification 6f1c…".
    public let source: String
    public let receiptId: Int64?
    /// The customer it was presented for (another than the owner: the order mix-up to look at).
    public let presentedFor: String?
    public let operatorName: String
}

/// One re-verification as every operator sees it, kept with the receipt.
public struct ReverificationResult: Sendable, Equatable {
    public let at: Date
    public let operatorName: String
    public let outcome: String
    public let summary: String
    public let appleEnvironment: String?
    /// Apple's answer against the local decode, one line each.
    public let differences: [String]
    /// What was applied from it, one line each.
    public let applied: [String]
    /// Apple's answer as it came (JSON, keys sorted), when there was one.
    public var rawAnswer: String? = nil
}

extension PurchaseLedger {
    /// Inside a write transaction: records that `transactionId` moved.
    func recordTransfer(_ transactionId: String, from: String, to: String, kind: String, reason: String, operatorName: String, now: Date) throws {
        try database.execute("""
            INSERT INTO transfers (transaction_id, from_customer, to_customer, kind, transferred_at, operator, reason)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [.text(transactionId), .text(from), .text(to), .text(kind), .date(now), .text(operatorName), .text(reason)])
    }

    /// Inside a write transaction: a trace for every transaction of an import that was already
    /// recorded (counted on the transaction; what it grants is unchanged).
    func recordRepeats(_ reports: [ImportResult.TransactionReport], source: String, receiptId: Int64?, presentedFor: String?,
                       operatorName: String, now: Date) throws {
        for report in reports {
            switch report.outcome {
            case .duplicate, .conflict: break
            case .recorded: continue
            }
            try database.executeLater("""
                INSERT INTO arrivals (transaction_id, arrived_at, source, receipt_id, presented_for, operator) VALUES (?, ?, ?, ?, ?, ?)
                """, [.text(report.transactionId), .date(now), .text(source), .integer(receiptId), .text(presentedFor), .text(operatorName)])
            try database.executeLater("UPDATE transactions SET repeat_arrivals = repeat_arrivals + 1 WHERE transaction_id = ?",
                                 [.text(report.transactionId)])
        }
    }

    /// The transfers in and out of a customer, oldest first.
    public func transfers(of customerId: String) throws -> [TransferRecord] {
        try database.query("""
            SELECT * FROM transfers WHERE from_customer = ? UNION SELECT * FROM transfers WHERE to_customer = ? ORDER BY transfer_id
            """, [.text(customerId), .text(customerId)]).map { row in
            TransferRecord(transactionId: row.string("transaction_id") ?? "", fromCustomer: row.string("from_customer") ?? "",
                           toCustomer: row.string("to_customer") ?? "", kind: row.string("kind") ?? "", at: row.date("transferred_at") ?? .distantPast,
                           operatorName: row.string("operator") ?? "", reason: row.string("reason") ?? "")
        }
    }

    /// The repeated arrivals of a customer's transactions, and of transactions presented for
    /// them that another customer owns, newest first (at most `limit`).
    public func arrivals(of customerId: String, limit: Int = 200) throws -> [ArrivalRecord] {
        try database.query("""
            SELECT a.* FROM arrivals a WHERE a.transaction_id IN (SELECT transaction_id FROM transactions WHERE customer_id = ?)
            UNION SELECT a.* FROM arrivals a WHERE a.presented_for = ?
            ORDER BY arrival_id DESC LIMIT ?
            """, [.text(customerId), .text(customerId), .integer(Int64(limit))]).map(Self.arrival)
    }

    /// The repeated arrivals of one transaction, newest first.
    public func arrivals(ofTransaction transactionId: String, limit: Int = 50) throws -> [ArrivalRecord] {
        try database.query("SELECT * FROM arrivals WHERE transaction_id = ? ORDER BY arrival_id DESC LIMIT ?",
                           [.text(transactionId), .integer(Int64(limit))]).map(Self.arrival)
    }

    static func arrival(_ row: SQLRow) -> ArrivalRecord {
        ArrivalRecord(transactionId: row.string("transaction_id") ?? "", at: row.date("arrived_at") ?? .distantPast,
                      source: row.string("source") ?? "", receiptId: row.int("receipt_id"), presentedFor: row.string("presented_for"),
                      operatorName: row.string("operator") ?? "")
    }

    /// The newest re-verifications of a receipt, newest first.
    public func reverifications(ofReceipt receiptId: Int64, limit: Int = 5) throws -> [ReverificationResult] {
        try database.query("SELECT * FROM reverifications WHERE receipt_id = ? ORDER BY reverification_id DESC LIMIT ?",
                           [.integer(receiptId), .integer(Int64(limit))]).map { row in
            func lines(_ column: String) -> [String] {
                // Written by `recordReverification` as a JSON array of strings.
                guard let text = row.string(column) else { return [] }
                return ((try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String]) ?? []
            }
            return ReverificationResult(at: row.date("verified_at") ?? .distantPast, operatorName: row.string("operator") ?? "",
                                        outcome: row.string("outcome") ?? "", summary: row.string("summary") ?? "",
                                        appleEnvironment: row.string("apple_environment"), differences: lines("differences"), applied: lines("applied"),
                                        rawAnswer: row.string("raw_answer"))
        }
    }
}
