import Foundation
import ReceiptCore

/// What checking an anchors file against the audit log found.
public struct AuditAnchorReport: Sendable, Equatable {
    /// Anchor lines read (blank lines and `#` comments aside).
    public var lines = 0
    /// Lines whose signature holds and whose entry the log still holds with that hash.
    public var held = 0
    /// One sentence per problem, naming the line ("anchor on line 3 (entry 812, 2026-…): …").
    public var problems: [String] = []
    /// Problems past `AuditAnchorCheck.maxProblems`, counted but not listed.
    public var unlisted = 0
    /// The anchor with the highest entry among those that hold.
    public var latest: AuditAnchorLine?

    public var isIntact: Bool { problems.isEmpty && unlisted == 0 }

    mutating func add(_ problem: String) {
        if problems.count < AuditAnchorCheck.maxProblems { problems.append(problem) } else { unlisted += 1 }
    }
}

/// Checks the lines of an anchors file (`AuditAnchorLine`) against the log.
///
/// What it catches: a line forged or altered (its signature), entries deleted from the end with
/// the head rewritten to match (an anchored entry is gone), the chain rewritten from some entry
/// on with its hashes recomputed (an anchored entry's hash differs), and an entry appended after
/// an anchor but dated more than `backdatingTolerance` before it (backdated). What it cannot
/// catch: entries appended after the last anchor and dated honestly, by someone who can write
/// to the database: the chain and every earlier anchor stay consistent with them.
public enum AuditAnchorCheck {
    /// How much earlier than an anchor an entry after it may be dated: an entry's time is taken
    /// when its change starts, and the change may commit after an anchor read the head.
    public static let backdatingTolerance: TimeInterval = 15 * 60
    static let maxProblems = 50

    public static func check(_ database: SQLDatabase, anchors text: String, publicKey: PublicKey) throws -> AuditAnchorReport {
        var report = AuditAnchorReport()
        let lastSeq = try database.queryFirst("SELECT MAX(seq) AS last FROM audit_log", [])?.int("last") ?? 0
        var holding: [(line: Int, anchor: AuditAnchorLine)] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.hasSuffix("\r") ? String(raw.dropLast()) : String(raw)
            let number = index + 1
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) || line.hasPrefix("#") { continue }
            report.lines += 1
            let parsed: AuditAnchorLine
            do {
                parsed = try AuditAnchorLine(parsing: line)
            } catch let error as StoreError {
                report.add("line \(number): \(error.reason): the line was altered, or is not an anchor")
                continue
            }
            let name = "anchor on line \(number) (entry \(parsed.anchor.seq), \(StoreDates.format(parsed.takenAt)))"
            guard parsed.keyID == publicKey.keyID else {
                report.add("\(name): signed by key \(parsed.keyID.prefix(32)), not by the public key given (\(publicKey.keyID))")
                continue
            }
            guard parsed.isSigned(by: publicKey) else {
                report.add("\(name): the signature does not match the line: it was forged or altered")
                continue
            }
            let stored = try database.queryFirst("SELECT hash FROM audit_log WHERE seq = ?", [.integer(parsed.anchor.seq)])?.string("hash")
            guard let stored else {
                report.add("\(name): the log no longer holds entry \(parsed.anchor.seq) (it ends at \(lastSeq)): entries were deleted since")
                continue
            }
            guard stored == parsed.anchor.hash else {
                report.add("\(name): entry \(parsed.anchor.seq)'s hash differs: the log was rewritten since")
                continue
            }
            report.held += 1
            holding.append((number, parsed))
            if parsed.anchor.seq >= report.latest?.anchor.seq ?? 0 { report.latest = parsed }
        }
        if report.lines == 0 { report.add("the anchors file holds no anchor line: it proves nothing") }
        try findBackdated(database, after: holding, into: &report)
        return report
    }

    /// Entries after an anchor dated well before it: appended later, their dates made up. One
    /// pass over the entries after the lowest anchor.
    static func findBackdated(_ database: SQLDatabase, after anchors: [(line: Int, anchor: AuditAnchorLine)],
                              into report: inout AuditAnchorReport) throws {
        let sorted = anchors.sorted { $0.anchor.anchor.seq < $1.anchor.anchor.seq }
        guard let first = sorted.first else { return }
        var next = 0
        var newest: (line: Int, anchor: AuditAnchorLine)?
        var afterSeq = first.anchor.anchor.seq
        let page = 5_000
        while true {
            let rows = try database.query("SELECT seq, at, operator, action FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?",
                                          [.integer(afterSeq), .integer(Int64(page))])
            for row in rows {
                let seq = row.int("seq") ?? 0
                afterSeq = seq
                while next < sorted.count, sorted[next].anchor.anchor.seq < seq {
                    if sorted[next].anchor.takenAt > newest?.anchor.takenAt ?? .distantPast { newest = sorted[next] }
                    next += 1
                }
                guard let newest, let at = row.date("at"), at < newest.anchor.takenAt.addingTimeInterval(-backdatingTolerance) else { continue }
                report.add("entry \(seq) (\(row.string("action") ?? "?") by \(row.string("operator") ?? "?"), dated \(StoreDates.format(at))) comes after the anchor on line \(newest.line) (entry \(newest.anchor.anchor.seq), taken \(StoreDates.format(newest.anchor.takenAt))) but is dated before it: it was appended later and backdated")
            }
            if rows.count < page { break }
        }
    }
}
