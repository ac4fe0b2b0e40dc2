import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore

/// The ledger and Apple together, for the commands that act at Apple (App Store Server API).
final class AppleActionSession {
    let options: StoreOptions
    let ledger: PurchaseLedger
    let connection: AppleConnection
    let actions: AppleActions

    /// Opens the ledger (for writing) and Apple as the config names it; refuses without the
    /// App Store Server API configured.
    init(_ options: StoreOptions, command: String, checking ids: [(String?, String)] = []) throws {
        self.options = options
        ledger = try options.openLedger(mayCreate: false, checking: ids)
        connection = try AppleConnection.open(options.configuration, baseTrust: options.trust)
        guard let client = connection.service.serverAPI else {
            connection.close()
            throw CommandFailure.usage("\(command) needs the App Store Server API: configure appStore.serverAPI (keyId, issuerId, privateKeyFile)")
        }
        actions = AppleActions(ledger: LedgerLock(ledger), client: client)
    }

    func close() { connection.close() }

    /// Who "Apple" is, for the first line of output ("DEMO: Apple is the built-in simulator").
    var label: String { connection.service.label }

    /// Runs async work against Apple, mapping its failures to exit codes.
    func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        try runThrowing(work)
    }
}

/// `--environment production|sandbox`, default production.
func storeEnvironment(_ text: String?) throws -> Environment {
    switch text?.lowercased() {
    case nil, "production": return .production
    case "sandbox": return .sandbox
    case let other?: throw CommandFailure.usage("--environment \(other): use production or sandbox")
    }
}

/// A whole number option within a range.
func intOption(_ text: String?, _ name: String, _ range: ClosedRange<Int>) throws -> Int? {
    guard let text else { return nil }
    guard let value = Int(text), range.contains(value) else {
        throw CommandFailure.usage("\(name) \(text.prefix(20)): not a whole number \(range.lowerBound)–\(range.upperBound)")
    }
    return value
}

/// "2026-11-01" or a full RFC 3339 time.
func dateOption(_ text: String?, _ name: String) throws -> Date? {
    guard let text else { return nil }
    if let date = RFC3339.parse(text) { return date }
    if let date = RFC3339.parse(text + "T00:00:00Z") { return date }
    throw CommandFailure.usage("\(name) \(text.prefix(40)): not a date (2026-11-01 or 2026-11-01T12:00:00Z)")
}
