import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk reverify RECEIPT_ID | --customer ID | --all [--concurrency N]`: asks Apple (or the
/// simulator standing in for it) about stored receipts, applies what Apple knows, and shows where
/// the local decode and Apple's answer differ. Ctrl-C stops launching new requests; what finished
/// is kept, and running it again applies nothing twice.
enum ReverifyCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let options = try StoreOptions.take(&args)
        let customer = try args.value("--customer")
        let all = args.flag("--all")
        let concurrencyText = try args.value("--concurrency")
        let positionals = try args.finish(maxPositionals: 1)
        let concurrency = try concurrencyText.map { text -> Int in
            guard let value = Int(text), (1...64).contains(value) else { throw CommandFailure.usage("--concurrency \(text) is not between 1 and 64") }
            return value
        } ?? 4
        guard [positionals.first != nil, customer != nil, all].filter({ $0 }).count == 1 else {
            throw CommandFailure.usage("reverify needs exactly one of RECEIPT_ID, --customer ID or --all")
        }
        let ledger = try options.openLedger()
        let ids: [Int64]
        if let first = positionals.first {
            guard let id = Int64(first.trimmingCharacters(in: CharacterSet(charactersIn: "#"))) else {
                throw CommandFailure.usage("\(first) is not a receipt number")
            }
            ids = [id]
        } else {
            ids = try ledger.receiptIds(customer: customer)
        }
        let connection = try AppleConnection.open(options.configuration, baseTrust: options.trust)
        defer { connection.close() }
        let reverifier = Reverifier(lock: LedgerLock(ledger), service: connection.service, operatorName: options.operatorName)
        let bar = ProgressBar(enabled: !options.json && isatty(STDERR_FILENO) == 1 && ids.count > 1, label: connection.service.label)
        let reports = runCancellable { await reverifier.reverify(ids, concurrency: concurrency) { progress, _ in bar.update(progress) } }
        bar.finish()
        if options.json {
            print(JSONValue.array(reports.map(json)).serialized())
        } else {
            for report in reports.sorted(by: { $0.receiptId < $1.receiptId }) { print(text(report)) }
            let counts = Dictionary(grouping: reports, by: \.outcome).mapValues(\.count)
            print("\(reports.count) of \(ids.count) re-verified: " + ReverifyReport.Outcome.allCases.compactMap { outcome in
                counts[outcome].map { "\($0) \(outcome.rawValue)" }
            }.joined(separator: ", ") + (reports.count < ids.count ? " (interrupted: run it again to finish; nothing is applied twice)" : ""))
        }
        if reports.count < ids.count || reports.contains(where: { $0.outcome == .failed && $0.isTemporary }) { return .temporaryFailure }
        if reports.contains(where: { $0.outcome == .failed }) { return .unavailable }
        return reports.contains(where: { $0.outcome == .rejected || $0.outcome == .contradicted }) ? .verificationFailed : .ok
    }

    static func text(_ r: ReverifyReport) -> String {
        var lines = ["receipt #\(r.receiptId)\(r.customerId.map { " (customer \($0))" } ?? ""): \(r.outcome.rawValue): \(r.summary)"]
        lines += (r.comparison?.lines ?? []).map { "  ≠ " + $0 }
        lines += r.changes.map { "  applied: \($0.kind.rawValue) \($0.transactionId): \($0.detail)" }
        if r.attempts.count > 1 { lines += r.attempts.map { "  attempt \($0)" } }
        return lines.joined(separator: "\n")
    }

    static func json(_ r: ReverifyReport) -> JSONValue {
        .object([("receiptId", .int(r.receiptId)), ("customerId", .string(r.customerId)), ("outcome", .string(r.outcome.rawValue)),
                 ("summary", .string(r.summary)), ("appleEnvironment", .string(r.appleEnvironment?.rawValue)),
                 ("contradiction", .string(r.contradiction)),
                 ("differences", .array((r.comparison?.lines ?? []).map { .string($0) })),
                 ("changes", .array(r.changes.map { .object([("kind", .string($0.kind.rawValue)), ("transactionId", .string($0.transactionId)),
                                                             ("detail", .string($0.detail))]) })),
                 ("attempts", .array(r.attempts.map { .string($0.description) }))])
    }
}

/// Runs async work from the synchronous command, cancelling it on SIGINT / SIGTERM.
func runCancellable<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let box = ResultBox<T>()
    let semaphore = DispatchSemaphore(value: 0)
    let task = Task {
        box.value = await work()
        semaphore.signal()
    }
    let sources = [SIGINT, SIGTERM].map { signalNumber -> DispatchSourceSignal in
        signal(signalNumber, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
        source.setEventHandler { task.cancel() }
        source.resume()
        return source
    }
    semaphore.wait()
    sources.forEach { $0.cancel() }
    // The task signalled after storing its value.
    guard let value = box.value else { preconditionFailure("async work finished without a value") }
    return value
}

final class ResultBox<T>: @unchecked Sendable {
    // Written once by the task before the semaphore is signalled, read after the wait.
    var value: T?
}

/// A one-line progress bar on standard error, redrawn in place.
final class ProgressBar: @unchecked Sendable {
    private let enabled: Bool
    private let label: String
    private let lock = NSLock()

    init(enabled: Bool, label: String) {
        self.enabled = enabled
        self.label = label
    }

    func update(_ p: ReverifyProgress) {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        let width = 30
        let filled = p.total == 0 ? width : width * p.done / p.total
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let line = "\r\(bar) \(p.done)/\(p.total)  in flight \(p.inFlight)/\(p.window)  \(label)"
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
