import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk subscription extend (--customers FILE | --search QUERY) --days N --reason-code CODE
/// --reason TEXT [--yes]`: goodwill at Apple for many. Without `--yes` it previews (each
/// customer's subscriptions: who gets what, who is left out and why) and asks Apple nothing; with
/// it, each subscription is extended once (`AppleActions.extendBatch`) and the report says who
/// got what. `subscription extend` hands over here when `--customers` or `--search` is given.
enum ExtendBatchCommand {
    static func run(_ args: inout Arguments, _ options: StoreOptions) throws -> ExitStatus {
        let listPath = try args.value("--customers"), query = try args.value("--search")
        let days = try intOption(try args.value("--days"), "--days", 1...10_000)
        let code = try SubscriptionCommand.reasonCode(try args.value("--reason-code"))
        let reason = try args.value("--reason")
        let confirmed = args.flag("--yes")
        if args.flag("--dry-run") { throw CommandFailure.usage("for many customers the preview is the default (no --dry-run); --yes asks Apple") }
        guard try args.finish(maxPositionals: 0).isEmpty else { throw CommandFailure.usage("give ORIGINAL_TX, or --customers FILE / --search QUERY for many, not both") }
        guard (listPath == nil) != (query == nil) else { throw CommandFailure.usage("give --customers FILE or --search QUERY, not both") }
        guard let days else { throw CommandFailure.usage("subscription extend needs --days N (1–90)") }
        guard let reason else { throw CommandFailure.usage("subscription extend needs --reason TEXT (it is audited)") }
        let session = try AppleActionSession(options, command: "subscription extend")
        defer { session.close() }
        let preview: RenewalExtensionBatch
        do {
            let customers: [String]
            if let listPath {
                guard let text = String(validating: try InputReader.read(listPath), as: UTF8.self) else {
                    throw CommandFailure(status: .badInput, message: "\(listPath): not UTF-8 text (one customer id a line)")
                }
                customers = try GrantBatch.customers(fromList: text, source: listPath)
            } else {
                customers = try GrantBatch.customers(matching: try BrowseFilter(parsing: query ?? ""), in: session.ledger.database)
            }
            preview = try session.ledger.planRenewalExtensionBatch(customers: customers, days: days, reasonCode: code, reason: reason)
        } catch let error as StoreError { throw CommandFailure.from(error) }
        let source = listPath ?? "search \(query ?? "")"
        guard confirmed else {
            print(options.json ? json(preview).serialized() : text(preview, source: source))
            return .ok
        }
        let actions = session.actions, operatorName = options.operatorName
        let done = try session.run { try await actions.extendBatch(preview, operatorName: operatorName) }
        print(options.json ? json(done).serialized() : text(done, source: source))
        if done.lines.contains(where: { if case .failed = $0.outcome { return true } else { return false } }) { return .temporaryFailure }
        return done.refusedOrFailed > 0 ? .badInput : .ok
    }

    static func text(_ batch: RenewalExtensionBatch, source: String) -> String {
        let subscriptions = batch.lines.filter { $0.originalTransactionId != nil }.count
        let customers = Set(batch.lines.map(\.customerId)).count
        let head = batch.applied
            ? "\(batch.batchId): extended \(batch.extendedNow) of \(Plural.of(subscriptions, "subscription")) of \(Plural.of(customers, "customer")) from \(source) at Apple"
            : "preview: would extend \(batch.toExtend) of \(Plural.of(subscriptions, "subscription")) of \(Plural.of(customers, "customer")) from \(source) by \(Plural.of(batch.days, "day")) at Apple (\(batch.batchId))"
        var lines = [head, "  Apple's reason code \(batch.reasonCode.rawValue): \(batch.reasonCode.words); reason: \(UnsafeText.escaped(batch.reason, keeping: []))"]
        for line in batch.lines {
            var who = UnsafeText.escaped(line.customerId, keeping: [])
            if let original = line.originalTransactionId { who += "  \(original) (\(line.productId ?? "?"))" }
            let day = { (date: Date?) in date.map(SubscriptionStory.utcDay) ?? "?" }
            switch line.outcome {
            case .willExtend(let expires, let retry):
                let end = expires.map { $0.addingTimeInterval(Double(line.days) * 86_400) }
                lines.append("  + \(who)  expires \(day(expires)) → about \(day(end))" + (retry ? "  (retries the request whose answer never arrived)" : ""))
            case .extended(let to): lines.append("  + \(who)  extended by \(Plural.of(line.days, "day")) to \(to.map(RFC3339.format) ?? "?")")
            case .alreadyExtended(let to, let by, let at):
                lines.append("  = \(who)  already extended by this goodwill to \(day(to)) (\(by), \(day(at))): nothing asked")
            case .refused(let why): lines.append("  ✗ \(who)  refused by Apple: \(why)")
            case .skipped(let why): lines.append("  - \(who)  skipped: \(why)")
            case .failed(let why): lines.append("  ! \(who)  \(why)")
            }
            if let note = line.note { lines.append("      \(note)") }
        }
        if !batch.applied { lines.append("nothing asked of Apple: run it again with --yes to extend (Apple emails each customer their new renewal date; an extension cannot be undone)") }
        return lines.joined(separator: "\n")
    }

    static func json(_ batch: RenewalExtensionBatch) -> JSONValue {
        .object([("batchId", .string(batch.batchId)), ("applied", .bool(batch.applied)), ("days", .int(Int64(batch.days))),
                 ("reasonCode", .int(Int64(batch.reasonCode.rawValue))), ("reason", .string(batch.reason)),
                 ("subscriptions", .array(batch.lines.map { line in
                     var members: [(String, JSONValue)] = [("customerId", .string(line.customerId)),
                                                           ("originalTransactionId", .string(line.originalTransactionId)),
                                                           ("productId", .string(line.productId)), ("days", .int(Int64(line.days)))]
                     switch line.outcome {
                     case .willExtend(let expires, let retry):
                         members += [("outcome", .string("would-extend")), ("expiresDate", .date(expires)), ("retry", .bool(retry))]
                     case .extended(let to): members += [("outcome", .string("extended")), ("effectiveDate", .date(to))]
                     case .alreadyExtended(let to, let by, let at):
                         members += [("outcome", .string("already-extended")), ("effectiveDate", .date(to)), ("by", .string(by)), ("at", .date(at))]
                     case .refused(let why): members += [("outcome", .string("refused")), ("why", .string(why))]
                     case .skipped(let why): members += [("outcome", .string("skipped")), ("why", .string(why))]
                     case .failed(let why): members += [("outcome", .string("failed")), ("why", .string(why))]
                     }
                     if let note = line.note { members.append(("note", .string(note))) }
                     return .object(members)
                 }))])
    }
}
