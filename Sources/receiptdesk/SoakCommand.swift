import Benchmarks
import Foundation

/// `receiptdesk soak [--seconds N] [--db PATH|URL] [--folder DIR] [--customers N]`: the whole
/// product under load at once, then the invariants checked (issue 7; what runs and what is
/// checked: `Benchmarks.SoakRun`). Exit 0 when every check holds, 1 when one fails.
enum SoakCommand {
    static let usage = "usage: receiptdesk soak [--seconds N] [--db PATH|postgres://…] [--folder DIR] [--customers N]"

    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        if args.flag("--help") { print(usage); return .ok }
        let secondsText = try args.value("--seconds")
        let target = try args.value("--db")
        let folderArgument = try args.value("--folder")
        let customersText = try args.value("--customers")
        _ = try args.finish(maxPositionals: 0)
        guard let seconds = Double(secondsText ?? "60"), seconds >= 5, seconds <= 86_400 else {
            throw CommandFailure.usage("--seconds \(secondsText ?? ""): not between 5 and 86400")
        }
        guard let customers = Int(customersText ?? "60"), (20...2_000).contains(customers) else {
            throw CommandFailure.usage("--customers \(customersText ?? ""): not between 20 and 2000")
        }
        let passed = try SoakRun.run(
            seconds: seconds, target: target, folder: folderArgument, customers: customers,
            trust: { try AppleConnection.trust($0, extraAnchors: [], extraIntermediates: []) },
            connect: { configuration, trust in
                let connection = try AppleConnection.open(configuration, baseTrust: trust)
                return SoakRun.Apple(service: connection.service, faults: connection.simulator?.faults, close: connection.close)
            })
        return passed ? .ok : .verificationFailed
    }
}
