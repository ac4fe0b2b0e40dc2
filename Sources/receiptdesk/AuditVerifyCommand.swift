import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk audit --verify [--expect SEQ:HASH] [--anchors FILE --public-key FILE] [--skip-entitlements]`:
/// the hash chain, the anchors kept outside the database, and every grant, conflict and
/// entitlement row explained by the log. Exit 1 on any problem.
enum AuditVerifyCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let options = try StoreOptions.take(&args)
        _ = args.flag("--verify")
        let expectText = try args.value("--expect")
        let anchorsPath = try args.value("--anchors")
        let publicKeyPath = try args.value("--public-key")
        let skipEntitlements = args.flag("--skip-entitlements")
        for option in ["--target", "--limit"] where try args.value(option) != nil {
            throw CommandFailure.usage("\(option) lists entries: it does not go with --verify")
        }
        _ = try args.finish(maxPositionals: 0)
        var anchor: AuditAnchor?
        if let expectText {
            guard let parsed = AuditAnchor(expectText) else {
                throw CommandFailure.usage("--expect \(expectText) is not SEQ:HASH (an entry number and its 64-hex-digit hash, as audit --verify prints them)")
            }
            anchor = parsed
        }
        guard (anchorsPath == nil) == (publicKeyPath == nil) else {
            throw CommandFailure.usage("--anchors FILE and --public-key FILE go together: the anchors' signatures are checked with the public key")
        }
        var anchors: (text: String, key: PublicKey)?
        if let anchorsPath, let publicKeyPath {
            let text = try readText(anchorsPath, "--anchors")
            let key: PublicKey
            do { key = try PublicKey(pem: try readText(publicKeyPath, "--public-key")) } catch let error as ReceiptError {
                throw CommandFailure.badInput("--public-key \(publicKeyPath): \(error.reason)")
            }
            anchors = (text, key)
        }

        let ledger = try options.openLedgerForReading()
        let chain = try AuditLog.verify(ledger.database, expecting: anchor)
        let anchorReport = try anchors.map { try AuditAnchorCheck.check(ledger.database, anchors: $0.text, publicKey: $0.key) }
        var rows = try AuditExplanation.grantsAndConflicts(ledger.database)
        if !skipEntitlements {
            let entitlements = try ledger.recheckEntitlements(now: Date())
            rows.problems += entitlements.problems
            rows.unlisted += entitlements.unlisted
            rows.checked.merge(entitlements.checked) { $1 }
        }
        let intact = chain.isIntact && (anchorReport?.isIntact ?? true) && rows.isExplained
        if options.json {
            printJSON(chain, anchorReport, rows, intact: intact)
        } else {
            printText(chain, anchorReport, rows, anchorsPath: anchorsPath, skipEntitlements: skipEntitlements)
        }
        return intact ? .ok : .verificationFailed
    }

    static func readText(_ path: String, _ option: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else { throw CommandFailure.badInput("\(option) \(path): cannot read it") }
        guard let text = String(data: data, encoding: .utf8) else { throw CommandFailure.badInput("\(option) \(path): not UTF-8 text") }
        return text
    }

    static func printText(_ chain: AuditVerification, _ anchors: AuditAnchorReport?, _ rows: UnexplainedRows, anchorsPath: String?,
                          skipEntitlements: Bool) {
        if let problem = chain.problem {
            print("audit log BROKEN after \(chain.checked) good entries: \(problem)")
        } else {
            print("audit log intact: \(Plural.of(chain.checked, "entry", "entries")) verified")
            if let head = chain.head {
                print("head \(head)  (keep it outside the database: `audit anchor` signs it; `audit --verify --expect \(head)` checks the log still holds it)")
            }
        }
        if let anchors, let anchorsPath {
            if anchors.isIntact {
                print("anchors: " + (anchors.lines == 1 ? "the 1 line of" : "all \(anchors.lines) lines of") + " \(anchorsPath) hold" + (anchors.latest.map { " (the latest: entry \($0.anchor.seq), \(StoreDates.format($0.takenAt)))" } ?? ""))
            } else {
                print("anchors BROKEN: \(anchors.held) of \(Plural.of(anchors.lines, "line")) of \(anchorsPath) hold")
                for problem in anchors.problems { print("  \(problem)") }
                if anchors.unlisted > 0 { print("  … and \(anchors.unlisted) more") }
            }
        }
        let counts = ["grants", "conflicts", "entitlements"].compactMap { table in rows.checked[table].map { "\(table == "entitlements" ? "entitlement rows" : table) \($0)" } }
        if rows.isExplained {
            print("rows explained by the log: " + counts.joined(separator: ", ") + (skipEntitlements ? " (entitlements not rechecked: --skip-entitlements)" : ""))
        } else {
            print("rows NOT explained by the log (of " + counts.joined(separator: ", ") + "):")
            for problem in rows.problems { print("  \(problem)") }
            if rows.unlisted > 0 { print("  … and \(rows.unlisted) more") }
        }
    }

    static func printJSON(_ chain: AuditVerification, _ anchors: AuditAnchorReport?, _ rows: UnexplainedRows, intact: Bool) {
        var fields: [(String, JSONValue)] = [
            ("intact", .bool(intact)), ("chainIntact", .bool(chain.isIntact)), ("checked", .int(Int64(chain.checked))),
            ("problem", .string(chain.problem)), ("head", .string(chain.head?.description)),
        ]
        if let anchors {
            fields.append(("anchors", .object([("lines", .int(Int64(anchors.lines))), ("held", .int(Int64(anchors.held))),
                                               ("problems", .array(anchors.problems.map { .string($0) })), ("unlisted", .int(Int64(anchors.unlisted)))])))
        }
        fields.append(("rowsChecked", .object(rows.checked.sorted { $0.key < $1.key }.map { ($0.key, .int(Int64($0.value))) })))
        fields.append(("unexplained", .array(rows.problems.map { .string($0) })))
        fields.append(("unexplainedUnlisted", .int(Int64(rows.unlisted))))
        print(JSONValue.object(fields).serialized())
    }
}
