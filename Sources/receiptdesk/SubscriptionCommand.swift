import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk subscription status|extend|mass-extend|mass-status`: a subscription's state at
/// Apple, and renewal date extensions (one subscription, a list of customers' (`ExtendBatchCommand`),
/// or every subscriber's after an outage).
enum SubscriptionCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        guard let sub = arguments.first else {
            throw CommandFailure.usage("subscription needs a subcommand: status, extend, mass-extend, mass-status or offer")
        }
        var args = Arguments(Array(arguments.dropFirst()))
        let options = try StoreOptions.take(&args)
        switch sub {
        case "status": return try status(&args, options)
        case "extend":
            let many = arguments.contains { $0 == "--customers" || $0 == "--search" || $0.hasPrefix("--customers=") || $0.hasPrefix("--search=") }
            return try many ? ExtendBatchCommand.run(&args, options) : extend(&args, options)
        case "mass-extend": return try massExtend(&args, options)
        case "mass-status": return try massStatus(&args, options)
        case "offer": return try OfferCommand.sign(&args, options)
        default: throw CommandFailure.usage("unknown subscription subcommand '\(sub)': use status, extend, mass-extend, mass-status or offer")
        }
    }

    /// Asks Apple (Get All Subscription Statuses), records what it says, prints the state.
    private static func status(_ args: inout Arguments, _ options: StoreOptions) throws -> ExitStatus {
        guard let customer = try args.finish(maxPositionals: 1).first else { throw CommandFailure.usage("subscription status needs CUSTOMER") }
        let session = try AppleActionSession(options, command: "subscription status", checking: [(customer, "customer id")])
        defer { session.close() }
        let actions = session.actions, operatorName = options.operatorName
        let result = try session.run { try await actions.refreshSubscriptions(customerId: customer, operatorName: operatorName) }
        let side = try session.ledger.appleSide(of: customer)
        if options.json {
            print(JSONValue.object([("customerId", .string(customer)), ("apple", .string(session.label))] + AppleSideText.json(side, now: Date())
                                   + [("changes", .array(result.changes.map { .string("\($0.kind.rawValue) \($0.transactionId): \($0.detail)") })),
                                      ("problems", .array(result.problems.map { .string($0) }))]).serialized())
        } else {
            print("\(customer): Apple's subscription status (\(session.label))")
            AppleSideText.lines(side, now: Date()).dropFirst().forEach { print($0) }
            for change in result.changes { print("applied: \(change.kind.rawValue) \(change.transactionId): \(change.detail)") }
            for problem in result.problems { print("problem: \(problem)") }
        }
        return result.problems.isEmpty ? .ok : .verificationFailed
    }

    private static func extend(_ args: inout Arguments, _ options: StoreOptions) throws -> ExitStatus {
        let days = try intOption(try args.value("--days"), "--days", 1...10_000)
        let code = try reasonCode(try args.value("--reason-code"))
        let reason = try args.value("--reason")
        let dryRun = args.flag("--dry-run")
        guard let original = try args.finish(maxPositionals: 1).first else {
            throw CommandFailure.usage("subscription extend needs ORIGINAL_TRANSACTION_ID --days N --reason-code CODE --reason TEXT")
        }
        guard let days else { throw CommandFailure.usage("subscription extend needs --days N (1–90)") }
        guard dryRun || reason != nil else { throw CommandFailure.usage("subscription extend needs --reason TEXT (it is audited)") }
        let session = try AppleActionSession(options, command: "subscription extend", checking: [(original, "original transaction id")])
        defer { session.close() }
        let plan = try session.ledger.planRenewalExtension(original: original, days: days, reasonCode: code)
        if dryRun || !options.json { plan.lines.forEach { print(($0 == plan.lines.first ? "" : "  ") + $0) } }
        if dryRun { print("dry run: nothing asked of Apple"); return .ok }
        let actions = session.actions, operatorName = options.operatorName, text = reason ?? ""
        let outcome = try session.run { try await actions.extendRenewal(plan, reason: text, operatorName: operatorName) }
        if options.json {
            print(JSONValue.object([("originalTransactionId", .string(plan.originalTransactionId)), ("customerId", .string(plan.customerId)),
                                    ("days", .int(Int64(plan.days))), ("requestIdentifier", .string(plan.requestIdentifier)),
                                    ("effectiveDate", .string(outcome.effectiveDate.map(RFC3339.format))),
                                    ("state", outcome.state.map { AppleSideText.state($0) } ?? .null),
                                    ("problem", .string(outcome.refreshProblem))]).serialized())
        } else {
            print("extended: Apple's new expiry \(outcome.effectiveDate.map(RFC3339.format) ?? "?")")
            if let state = outcome.state { print("now: \(SubscriptionStory.line(state))") }
            if let problem = outcome.refreshProblem { print(problem) }
        }
        return .ok
    }

    private static func massExtend(_ args: inout Arguments, _ options: StoreOptions) throws -> ExitStatus {
        let days = try intOption(try args.value("--days"), "--days", 1...10_000)
        let code = try reasonCode(try args.value("--reason-code"))
        let reason = try args.value("--reason")
        let environment = try storeEnvironment(try args.value("--environment"))
        let storefronts = try args.values("--storefront")
        let dryRun = args.flag("--dry-run"), noWait = args.flag("--no-wait")
        let poll = try intOption(try args.value("--poll-seconds"), "--poll-seconds", 0...3600) ?? 5
        let maxPolls = try intOption(try args.value("--max-polls"), "--max-polls", 1...10_000) ?? 120
        guard let product = try args.finish(maxPositionals: 1).first else {
            throw CommandFailure.usage("subscription mass-extend needs PRODUCT_ID --days N --reason-code CODE --reason TEXT")
        }
        guard let days else { throw CommandFailure.usage("subscription mass-extend needs --days N (1–90)") }
        guard dryRun || reason != nil else { throw CommandFailure.usage("subscription mass-extend needs --reason TEXT (it is audited)") }
        let session = try AppleActionSession(options, command: "subscription mass-extend")
        defer { session.close() }
        let plan = try session.ledger.planMassExtension(productId: product, days: days, reasonCode: code, storefronts: storefronts,
                                                        environment: environment)
        plan.lines.forEach { print(($0 == plan.lines.first ? "" : "  ") + $0) }
        if dryRun { print("dry run: nothing asked of Apple"); return .ok }
        let actions = session.actions, operatorName = options.operatorName, text = reason ?? ""
        let record = try session.run { try await actions.massExtend(plan, reason: text, operatorName: operatorName) }
        print("Apple accepted request \(record.requestIdentifier)")
        if noWait { print("`receiptdesk subscription mass-status \(record.requestIdentifier)` follows it"); return .ok }
        return try follow(record.requestIdentifier, session, poll: poll, maxPolls: maxPolls)
    }

    private static func massStatus(_ args: inout Arguments, _ options: StoreOptions) throws -> ExitStatus {
        let poll = try intOption(try args.value("--poll-seconds"), "--poll-seconds", 0...3600) ?? 5
        let maxPolls = try intOption(try args.value("--max-polls"), "--max-polls", 1...10_000) ?? 1
        let positionals = try args.finish(maxPositionals: 1)
        guard let request = positionals.first else {
            let all = try options.openLedgerForReading().massExtensions()
            if all.isEmpty { print("no mass extensions") }
            for m in all {
                print("\(m.requestIdentifier)  \(m.productId)  +\(Plural.of(m.days, "day"))  \(m.environment.lowercased())  \(m.progress)  asked \(AppleSideText.day(m.requestedAt)) by \(m.operatorName): \(m.reason)")
            }
            return .ok
        }
        let session = try AppleActionSession(options, command: "subscription mass-status")
        defer { session.close() }
        return try follow(request, session, poll: poll, maxPolls: maxPolls)
    }

    /// Polls until complete (or `maxPolls`), one progress line per answer.
    private static func follow(_ request: String, _ session: AppleActionSession, poll: Int, maxPolls: Int) throws -> ExitStatus {
        let actions = session.actions, operatorName = session.options.operatorName
        fflush(nil)  // what was printed comes before the progress lines written as they arrive
        let record = try session.run {
            try await actions.pollMassExtension(request, operatorName: operatorName, interval: .seconds(poll), maxPolls: maxPolls) { record in
                FileHandle.standardOutput.write(Data("progress: \(record.progress)\n".utf8))
            }
        }
        if record.status != "complete" {
            print("not complete yet: `receiptdesk subscription mass-status \(request) --max-polls N` goes on following it")
        }
        return .ok
    }

    static func reasonCode(_ text: String?) throws -> ExtendReasonCode {
        guard let text else { throw CommandFailure.usage("--reason-code is required: undeclared, satisfaction, other or outage (0–3)") }
        guard let code = ExtendReasonCode(text: text) else {
            throw CommandFailure.usage("--reason-code \(text.prefix(20)): use undeclared, satisfaction, other or outage (0–3)")
        }
        return code
    }
}
