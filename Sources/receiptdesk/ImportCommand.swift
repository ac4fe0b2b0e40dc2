import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk import FILE... --customer ID [--customer-name NAME] [--customer-email EMAIL] [--order ORDER]
/// [--application-username VALUE] [--source S]`
/// Each file is its own ledger operation: a failure in one leaves the others applied. The name
/// and email are set on the customer once an import has created (or found) them. With
/// `appStore.finishOnDelivery` on, the consumables newly credited to an order are then finished at
/// Apple (`FinishOnDelivery`). The text output ends with what the imports newly granted (`ImportGrants`);
/// `--json` prints `{"customerId", "files": [each file's result], "granted": [...]}`.
enum ImportCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let options = try StoreOptions.take(&args)
        guard let customer = try args.value("--customer") else { throw CommandFailure.usage("import needs --customer ID") }
        let order = try args.value("--order")
        let username = try args.value("--application-username")
        let source = try args.value("--source") ?? "import"
        let contact = CustomerContact(displayName: try args.value("--customer-name"), email: try args.value("--customer-email"))
        do { try contact.validate() } catch { throw CommandFailure.from(error) }
        let files = try args.finish(maxPositionals: 1_000_000)
        guard !files.isEmpty else { throw CommandFailure.usage("import needs at least one FILE (or - for standard input)") }
        let ledger = try options.openLedger(mayCreate: true, checking: [(customer, "customer id"), (order, "order id")], checkingRevocation: true)
        // What the customer held before, to say what the imports newly granted.
        let before = try ledger.entitlements(customer, now: Date())
        var imported = 0
        var failures = 0
        var busy = false
        var notValid = false
        var results: [(index: Int, value: JSONValue)] = []
        var credits: [FinishOnDelivery.Credit] = []
        func report(_ index: Int, _ file: String, _ outcome: Result<ImportResult, Error>) throws {
            switch outcome {
            case .success(let result):
                imported += 1
                if !result.verdict.isValid { notValid = true }
                if options.configuration.appStore.finishOnDelivery {
                    credits += FinishOnDelivery.credits(index, file, result, configuration: options.configuration)
                }
                if options.json { results.append((index, json(file, result))) } else { print(text(file, result)) }
            case .failure(let error):
                failures += 1
                let failure = CommandFailure.from(error)
                if failure.status == .temporaryFailure { busy = true }
                if options.json {
                    results.append((index, .object([("file", .string(file)), ("error", .string(failure.message))])))
                } else {
                    printError("receiptdesk import: \(file): \(failure.message)")
                }
                if failure.status == .unavailable || failure.status == .usage { throw failure }
            }
        }
        // Files go in batches: one write transaction per batch, so a crash leaves each file
        // applied or absent and a re-run completes the rest. Files are read on worker threads,
        // ahead of the writer.
        ledger.importItemWritten = TestHold.fromEnvironment()
        try ledger.importStream(count: files.count, batchSize: 100, operatorName: options.operatorName, item: { index in
            let file = files[index]
            let label = (file as NSString).lastPathComponent
            return PurchaseLedger.ImportItem(bytes: try InputReader.read(file), customer: customer, orderId: order,
                                             applicationUsername: username, source: source == "import" ? "import \(label)" : source)
        }, report: { index, outcome in try report(index, files[index], outcome) })
        if !contact.isEmpty, try ledger.customerExists(customer) {
            try ledger.setContact(customer, contact, operatorName: options.operatorName)
        }
        let finishes = try FinishOnDelivery.run(credits, ledger: ledger, options: options)
        var finishFailure: CommandFailure?
        for (credit, result) in zip(credits, finishes) {
            if case .failed(let failure) = result {
                finishFailure = finishFailure ?? failure
                printError("receiptdesk import: " + FinishOnDelivery.line(credit, result))
            } else if !options.json {
                print(FinishOnDelivery.line(credit, result))
            }
        }
        let grants = imported > 0 ? ImportGrants.granted(before: before, after: try ledger.entitlements(customer, now: Date())) : []
        if !options.json, imported > 0 { print(ImportGrants.line(customer: customer, grants)) }
        if options.json {
            let files = JSONValue.array(results.map { index, value in
                let finished = zip(credits, finishes).filter { $0.0.index == index }.map { FinishOnDelivery.json($0.0, $0.1) }
                guard !finished.isEmpty, case .object(let members) = value else { return value }
                return .object(members + [("finishOnDelivery", .array(finished))])
            })
            print(JSONValue.object([("customerId", .string(customer)), ("files", files),
                                    ("granted", ImportGrants.json(customer: customer, grants))]).serialized())
        }
        if busy { return .temporaryFailure }
        if failures > 0 { return .badInput }
        if notValid { return .verificationFailed }
        return finishFailure?.status ?? .ok
    }

    static func text(_ file: String, _ result: ImportResult) -> String {
        var recorded = 0, bound = 0, duplicates = 0, conflicts: [String] = []
        for report in result.transactions {
            switch report.outcome {
            case .recorded(_, let order):
                recorded += 1
                if order != nil { bound += 1 }
            case .duplicate: duplicates += 1
            case .conflict(let owner, let id): conflicts.append("\(report.transactionId) owned by \(owner) (conflict #\(id))")
            }
        }
        var line = "\(file): \(result.format.rawValue), \(result.environment.badge), \(result.verdict.status.rawValue)"
        line += result.changedDatabase ? " — receipt #\(result.receiptId ?? 0)" : " — nothing new"
        line += ": \(recorded) recorded (\(bound) bound to an order), \(Plural.of(duplicates, "duplicate")), \(Plural.of(conflicts.count, "conflict"))"
        if let revocation = result.verdict.revocation {
            line += "\n  " + (revocation.isCheckedGood ? "" : "⚠ ") + revocation.summary
        }
        for conflict in conflicts { line += "\n  conflict: " + conflict }
        for note in result.notes { line += "\n  note: " + note }
        return line
    }

    static func json(_ file: String, _ result: ImportResult) -> JSONValue {
        .object([("file", .string(file))] + LedgerJSON.importResult(result))
    }
}
