import Foundation
@testable import PurchaseStore
import ReceiptCore
import Testing

/// The audit entries a PostgreSQL transaction appends at its commit are hashed on the server
/// (`AuditChainOnServer`): each hash must be exactly the one `AuditLog.hash` computes, whatever
/// the text holds, or the chain would not verify.
@Suite("PostgreSQL audit chain appended on the server", .enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
struct PostgresAuditChainTests {
    /// Texts that a byte count, an array literal or an encoding would get wrong: several scripts,
    /// a character outside the Basic Multilingual Plane, quotes, backslashes, braces, commas,
    /// NULL spelled out, an empty string and a newline.
    static let awkward = ["Zoë Müller", "鈴木さくら", "Иванов", "emoji 🧾 receipt", "quote \" and backslash \\ and {brace, comma}",
                          "NULL", "", "line\nbreak", "'single'"]

    @Test func entriesHashedOnTheServerAreTheClientsHashesAndTheChainVerifies() throws {
        let scratch = try ScratchDatabase(.postgres)
        let database = try #require(try PurchaseDatabase.open(scratch.location) as? PostgresDatabase)
        let start = Date(timeIntervalSince1970: 1_780_000_000)
        // Three commits: the first starts the chain from nothing (no head row yet), the next two
        // go on from the head the one before wrote.
        for round in 0..<3 {
            try database.writeTransaction {
                database.pipelinesWrites = round != 1  // the entries queued with COMMIT, and sent at once
                for (index, text) in Self.awkward.enumerated() {
                    try AuditLog.appendAtCommit(database, at: start.addingTimeInterval(Double(round * 100 + index)),
                                                operatorName: "op \(text)", action: "test", target: "customer:\(text)",
                                                details: .object([("text", .string(text)), ("round", .int(Int64(round)))]))
                }
            }
        }
        let rows = try database.query("SELECT seq, at, operator, action, target, details, prev_hash, hash, db_user FROM audit_log ORDER BY seq", [])
        #expect(rows.count == 3 * Self.awkward.count)
        var previous = AuditLog.genesis
        for (position, row) in rows.enumerated() {
            let seq = try #require(row.int("seq"))
            #expect(seq == Int64(position + 1))
            #expect(row.string("prev_hash") == previous)
            #expect(row.string("db_user") == database.databaseUser && database.databaseUser != nil)
            let expected = AuditLog.hash(seq: seq, at: row.string("at") ?? "", operatorName: row.string("operator") ?? "",
                                         action: row.string("action") ?? "", target: row.string("target") ?? "",
                                         details: row.string("details") ?? "", previousHash: previous, databaseUser: row.string("db_user"))
            #expect(row.string("hash") == expected, "entry \(seq): \(row.string("operator") ?? "")")
            previous = expected
        }
        let texts = rows.map { $0.string("target") ?? "" }
        #expect(texts.prefix(Self.awkward.count).elementsEqual(Self.awkward.map { "customer:\($0)" }), "each text stored as it was given, in order")
        let head = try database.queryFirst("SELECT seq, hash FROM audit_head WHERE id = 1", [])
        #expect(head?.int("seq") == Int64(rows.count) && head?.string("hash") == previous)
        let verification = try AuditLog.verify(database)
        #expect(verification.problem == nil && verification.checked == rows.count, "\(verification)")
    }
}
