import ConsoleUI
import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// Keeps a few random faults queued in the simulator: what Apple does on a bad day, and worse.
final class SoakFaultInjector: @unchecked Sendable {
    private let faults: SimulatorFaults
    private let lock = NSLock()
    private var count = 0
    var injected: Int { lock.withLock { count } }

    /// Mostly what a bad day brings; now and then a rate limit with a `Retry-After` that is short,
    /// negative or garbage, and rarely an absurd one (the client caps it: whoever draws it waits).
    static let menu: [SimulatorFault] = [
        .status(21005, isRetryable: true), .status(21100, isRetryable: true), .status(21199, isRetryable: nil), .status(21002, isRetryable: nil),
        .http(503), .http(500), .delay(0.3), .drop,
        .status(21005, isRetryable: true), .http(503), .delay(0.1), .drop,
        .status(21005, isRetryable: true), .http(503), .delay(0.1), .drop,
        .rateLimited(retryAfter: "1"), .rateLimited(retryAfter: "-30"), .rateLimited(retryAfter: "soon"),
    ]
    static let absurd = SimulatorFault.rateLimited(retryAfter: "99999999999")

    init(faults: SimulatorFaults) { self.faults = faults }

    func run(until deadline: Date) {
        var random = SplitMix64(seed: 0xFA17)
        while Date() < deadline {
            if faults.pending < 8 {
                let fault = Int.random(in: 0..<100, using: &random) == 0 ? Self.absurd
                    : Self.menu[Int.random(in: 0..<Self.menu.count, using: &random)]
                faults.inject(fault, times: Int.random(in: 1...3, using: &random))
                lock.withLock { count += 1 }
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}

/// Batch re-verification of 64 random receipts at concurrency 32, one batch after another.
final class SoakReverifyLoop: @unchecked Sendable {
    private let ledger: PurchaseLedger
    private let reverifier: Reverifier
    private let lock = NSLock()
    private var outcomes: [String: Int] = [:]
    private var batches = 0
    private var problem: String?

    init(ledger: PurchaseLedger, service: AppleService) {
        self.ledger = ledger
        reverifier = Reverifier(lock: LedgerLock(ledger), service: service, operatorName: "soak-reverify")
    }

    func run(until deadline: Date) {
        let finished = DispatchSemaphore(value: 0)
        let task = Task {
            while Date() < deadline, !Task.isCancelled {
                let ids: [Int64]
                do {
                    ids = try ledger.database.query("SELECT receipt_id FROM receipts ORDER BY random() LIMIT 64", []).compactMap { $0.int("receipt_id") }
                } catch {
                    lock.withLock { problem = "listing receipts: \(error)" }
                    break
                }
                let reports = await reverifier.reverify(ids, concurrency: 32)
                lock.withLock {
                    batches += 1
                    for report in reports { outcomes["\(report.outcome)", default: 0] += 1 }
                }
            }
            finished.signal()
        }
        // At the deadline the running batch is cancelled: what it wrote must still be whole.
        if finished.wait(timeout: .now() + max(0, deadline.timeIntervalSinceNow)) == .timedOut {
            task.cancel()
            finished.wait()
        }
    }

    var summary: String {
        lock.withLock { "\(batches) batches, " + outcomes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ") }
    }

    var check: SoakCheck {
        lock.withLock {
            let total = outcomes.values.reduce(0, +)
            return SoakCheck(name: "batch re-verification ran against the faulty simulator", passed: problem == nil && total > 0,
                             detail: problem ?? "\(total) receipts in \(batches) batches")
        }
    }
}

/// The console as a fourth operator: random keys (navigation, filters, folds, forms with random
/// text, confirmations, re-verifications, resizes, mouse) into a `ConsoleController` drawing on a
/// virtual screen; a quit starts a new console.
final class SoakConsoleDriver: @unchecked Sendable {
    private let environment: ConsoleEnvironment
    private let lock = NSLock()
    private var keys = 0
    private var restarts = 0

    init(ledger: PurchaseLedger, service: AppleService, label: String) {
        environment = ConsoleEnvironment(ledger: ledger, apple: service, operatorName: "soak-console", readOnly: false, databaseLabel: label)
    }

    static let words = ["pro", "coins", "soak", "2000000100000001", "env:sandbox", "status:conflict", "verdict:invalid", "王小明", "cust-0001",
                        "P3D", "2030-01-01", "reverify", "grant", "refresh", "", "\u{1b}[", "🙂", "ｗｉｄｅ"]

    func run(until deadline: Date) {
        var random = SplitMix64(seed: 0xC0FFEE)
        var size = ScreenSize(rows: 30, columns: 100)
        var screen = VirtualScreen(size: size)
        var controller = ConsoleController(environment: environment, size: size)
        while Date() < deadline {
            let roll = Int.random(in: 0..<100, using: &random)
            switch roll {
            case 0..<60:
                controller.handle(Self.randomKey(&random))
            case 60..<80:
                controller.type(Self.words.randomElement(using: &random) ?? "")
            case 80..<83:
                size = ScreenSize(rows: Int.random(in: 24...60, using: &random), columns: Int.random(in: 80...200, using: &random))
                screen = VirtualScreen(size: size)
            case 83..<86:
                controller.handle(.mouse(MouseEvent(Bool.random(using: &random) ? .click : .wheelDown,
                                                    row: Int.random(in: 0..<size.rows, using: &random),
                                                    column: Int.random(in: 0..<size.columns, using: &random))))
            default:
                Thread.sleep(forTimeInterval: 0.002)
            }
            controller.tick()
            controller.render(on: screen)
            lock.withLock { keys += 1 }
            if controller.isFinished {
                controller.shutdown()
                controller = ConsoleController(environment: environment, size: size)
                lock.withLock { restarts += 1 }
            }
        }
        controller.shutdown()
        controller.waitUntilIdle(timeout: 30)
    }

    static func randomKey(_ random: inout SplitMix64) -> KeyEvent {
        let keys: [KeyEvent] = [
            .down, .down, .down, .up, .pageDown, .pageUp, .home, .end, .tab, .backTab, .enter, .enter, .escape, .escape,
            .left, .right, .backspace, .delete, .function(5), .control("l"), .control("u"),
            .character("j"), .character("k"), .character("1"), .character("2"), .character("3"), .character("4"),
            .character("5"), .character("6"), .character("/"), .character("\\"), .character(":"), .character("*"),
            .character(" "), .character("h"), .character("l"), .character("r"), .character("g"), .character("x"),
            .character("R"), .character("i"), .character("o"), .character("y"), .character("n"), .character("?"),
            .character("q"), .character("G"),
        ]
        return keys[Int.random(in: 0..<keys.count, using: &random)]
    }

    var summary: String { lock.withLock { "\(keys) random inputs, \(restarts) restarts after quit" } }

    var check: SoakCheck {
        lock.withLock { SoakCheck(name: "the console took random keys throughout", passed: keys >= 20, detail: "\(keys) inputs") }
    }
}

/// The soak process's resident memory, sampled once a second: it must level off, not climb.
final class SoakMemory: @unchecked Sendable {
    private var samples: [Double] = []

    func sample() {
        if let megabytes = ProcessStats.residentMegabytes() { samples.append(megabytes) }
    }

    /// The largest resident size in the first and the second half of the run.
    private var halves: (first: Double, second: Double)? {
        guard samples.count >= 4 else { return nil }
        let middle = samples.count / 2
        return (samples[..<middle].max() ?? 0, samples[middle...].max() ?? 0)
    }

    var summary: String {
        guard let halves else { return "too few samples" }
        return String(format: "%d samples, peak %.0f MB in the first half, %.0f MB in the second", samples.count, halves.first, halves.second)
    }

    /// Bounded: the second half's peak at most 64 MB and 25% above the first half's.
    var check: SoakCheck {
        guard let halves else { return SoakCheck(name: "memory stayed bounded", passed: false, detail: "too few samples (run longer)") }
        let passed = halves.second <= halves.first * 1.25 + 64
        return SoakCheck(name: "memory stayed bounded", passed: passed, detail: summary)
    }
}
