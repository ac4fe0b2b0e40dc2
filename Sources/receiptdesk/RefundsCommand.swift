import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk refunds [--all]` (the queue of Apple's consumption requests, most urgent first,
/// overdue ones marked) and `receiptdesk refunds send N --consented …` (Send Consumption
/// Information, filled from the ledger, reviewed, audited).
enum RefundsCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var rest = arguments
        let sub = rest.first.flatMap { $0.hasPrefix("--") ? nil : $0 } ?? "list"
        if rest.first == sub { rest.removeFirst() }
        var args = Arguments(rest)
        let options = try StoreOptions.take(&args)
        switch sub {
        case "list": return try list(&args, options)
        case "send": return try send(&args, options)
        default: throw CommandFailure.usage("unknown refunds subcommand '\(sub)': use list (the default) or send")
        }
    }

    private static func list(_ args: inout Arguments, _ options: StoreOptions) throws -> ExitStatus {
        let all = args.flag("--all")
        _ = try args.finish(maxPositionals: 0)
        let now = Date()
        let requests = try options.openLedgerForReading().refundRequests(all: all)
        if options.json {
            print(JSONValue.array(requests.map { AppleSideText.refund($0, now: now) }).serialized())
            return .ok
        }
        if requests.isEmpty { print(all ? "no refund requests" : "no refund request waiting (--all shows answered ones)") }
        for r in requests {
            print("#\(r.requestId)  \(r.timing(at: now))  \(r.customerId ?? "(no known customer)")  \(r.productId ?? "?")  transaction \(r.transactionId)  \(r.environment.lowercased())  deadline \(RFC3339.format(r.deadline))\(r.requestReason.map { "  why: \(RefundRequest.reasonWords($0))" } ?? "")")
        }
        return .ok
    }

    private static func send(_ args: inout Arguments, _ options: StoreOptions) throws -> ExitStatus {
        let consented = args.flag("--consented")
        let dryRun = args.flag("--dry-run")
        let reason = try args.value("--reason")
        var overrides: [(String, Int)] = []
        for (flag, field, range) in [("--consumption-status", "consumptionStatus", 0...3), ("--delivery-status", "deliveryStatus", 0...5),
                                     ("--platform", "platform", 0...2), ("--account-tenure", "accountTenure", 0...7),
                                     ("--play-time", "playTime", 0...7), ("--lifetime-purchased", "lifetimeDollarsPurchased", 0...7),
                                     ("--lifetime-refunded", "lifetimeDollarsRefunded", 0...7), ("--user-status", "userStatus", 0...4)] {
            if let value = try intOption(try args.value(flag), flag, range) { overrides.append((field, value)) }
        }
        let preference = try args.value("--refund-preference")
        let sample = try args.value("--sample-content")
        let percentText = try args.value("--consumption-percentage")
        let percentage = try percentText.map { text -> Int in
            guard let value = Double(text), value.isFinite, (0...100).contains(value) else {
                throw CommandFailure.usage("--consumption-percentage \(text.prefix(20)): give how much was consumed as a percent, 0–100 (25 or 12.5)")
            }
            return Int((value * 1000).rounded())
        }
        guard let number = try args.finish(maxPositionals: 1).first else { throw CommandFailure.usage("refunds send needs the request number N") }
        guard let requestId = Int64(number.drop { $0 == "#" }) else { throw CommandFailure.usage("refunds send \(number.prefix(20)): not a request number") }
        guard dryRun || reason != nil else { throw CommandFailure.usage("refunds send needs --reason TEXT (it is audited)") }
        let session = try AppleActionSession(options, command: "refunds send")
        defer { session.close() }
        var draft = try session.ledger.consumptionDraft(requestId)
        draft.information.customerConsented = consented
        for (field, value) in overrides { draft.information.setCodedField(field, to: value) }
        if let preference {
            let codes = ["undeclared": 0, "grant": 1, "decline": 2, "none": 3, "prorated": 4, "0": 0, "1": 1, "2": 2, "3": 3, "4": 4]
            guard let code = codes[preference.lowercased()], code != 4 || draft.information.version == 2 else {
                throw CommandFailure.usage("--refund-preference \(preference.prefix(20)): use grant, \(draft.information.version == 2 ? "prorated, " : "")decline, none or undeclared")
            }
            draft.information.refundPreference = code
        }
        if let percentage {
            guard draft.information.version == 2 else {
                throw CommandFailure.usage("--consumption-percentage is version 2's; the config asks for version 1 (appStore.consumptionVersion): use --consumption-status")
            }
            draft.information.consumptionPercentage = percentage
        }
        if let sample {
            guard ["yes", "no"].contains(sample) else { throw CommandFailure.usage("--sample-content \(sample.prefix(20)): use yes or no") }
            draft.information.sampleContentProvided = sample == "yes"
        }
        draft.lines.forEach { print(($0 == draft.lines.first ? "" : "  ") + $0) }
        print("  \(draft.request.timing(at: Date()))")
        do { try draft.information.validate() } catch let error as AppStoreError {
            throw CommandFailure.usage("\(error.reason)\(consented ? "" : ": give --consented once the customer agreed")")
        }
        if dryRun { print("dry run: nothing sent to Apple"); return .ok }
        let actions = session.actions, operatorName = options.operatorName, information = draft.information, text = reason ?? ""
        let sent = try session.run { try await actions.sendConsumption(requestId: requestId, information, reason: text, operatorName: operatorName) }
        print("sent to Apple: refund request #\(sent.requestId) is \(sent.status.rawValue)")
        return .ok
    }
}
