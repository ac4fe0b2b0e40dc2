import Foundation
import ReceiptCore

/// The app download behind an account's purchases: Apple gives each download of the app by one
/// Apple account an `appTransactionId`, the same across reinstalls and devices, carried by the
/// app transaction and by every in-app transaction since 2025. The simulator derives it from the
/// bundle id, environment and account, so it needs no stored state and is stable across restarts.
extension SimulatorRecords {
    /// The app transaction id of `account`'s download in `environment`: 18 digits, as Apple's
    /// ("704897469903383919").
    public static func appTransactionId(bundleId: String, account: String, environment: SimulatorEnvironment) -> String {
        let digest = DigestAlgorithm.sha256.hash(Array("\(bundleId)|\(environment.rawValue)|\(account)".utf8))
        let number = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 100_000_000_000_000_000
        let digits = String(number)
        return "7" + String(repeating: "0", count: 17 - digits.count) + digits
    }

    /// The account whose download has app transaction id `id` in `environment`, if it bought anything there.
    func account(appTransactionId id: String, in environment: SimulatorEnvironment) -> String? {
        Set(transactions.values.filter { $0.environment == environment }.map(\.account)).sorted().first {
            Self.appTransactionId(bundleId: bundleId, account: $0, environment: environment) == id
        }
    }

    /// The account behind any of a transaction id, an original transaction id or an app
    /// transaction id (Apple's `anyTransactionId`) in `environment`.
    func account(anyTransactionId id: String, in environment: SimulatorEnvironment) -> String? {
        transaction(id, in: environment)?.account ?? account(appTransactionId: id, in: environment)
    }

    /// The app transaction Apple would sign for `account` in `environment` at `signedDate`; nil
    /// when the account bought nothing there (the simulator knows no download without a purchase).
    public func appTransaction(account: String, environment: SimulatorEnvironment, signedDate: Date) -> AppTransactionPayload? {
        let own = Self.sorted(transactions.values.filter { $0.account == account && $0.environment == environment })
        guard let first = own.first else { return nil }
        var payload = AppTransactionPayload(bundleId: bundleId, applicationVersion: "1.0", originalApplicationVersion: "1.0",
                                            receiptCreationDate: signedDate, originalPurchaseDate: first.originalPurchaseDate,
                                            receiptType: environment.rawValue)
        payload.appAppleId = environment == .production ? appAppleId : nil
        payload.signedDate = signedDate
        payload.appTransactionId = Self.appTransactionId(bundleId: bundleId, account: account, environment: environment)
        payload.originalPlatform = "iOS"
        return payload
    }
}
