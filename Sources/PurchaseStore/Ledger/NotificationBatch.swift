import Foundation
import ReceiptCore

/// A notification body decoded and verified, ready to apply (`PurchaseLedger.prepareNotification`).
public struct PreparedNotification: Sendable {
    let bytes: [UInt8]
    let artefact: DecodedArtefact
    let notification: ServerNotification
    let verdict: Verdict
    /// The notificationUUID it is applied once by.
    public let uuid: String
    let operatorName: String
    /// The body's SHA-256 (hex), what the receipts table keeps as `decoded_json`, and the
    /// artefact's summary: worked out when prepared, so the writer does not.
    let digest: String
    let decodedJSON: String
    let summary: ArtefactSummary
    /// The transactions it tells about.
    let transactionIds: [String]

    /// What applying it claims (see `WriteKey`): its notificationUUID, the receipt row of its
    /// body and the transactions it tells about. Taken before the notificationUUID is looked up,
    /// so a second writer applying the same notification at the same moment (another `serve`
    /// process, `notify`, a history fetch) waits for the first to commit, then finds it applied.
    var writeKeys: [WriteKey] {
        [.notification(uuid), .receipt(digest: digest)] + transactionIds.map { .transaction($0) }
    }
}

extension PurchaseLedger {
    /// Applies prepared notifications in one write transaction (one commit, one fsync), each
    /// inside a savepoint of its own, so one that fails is left out alone and the others apply.
    /// Should the transaction itself fail (a deadlock with another writer, a busy database, a
    /// failed commit), each is applied again in a transaction of its own. Outcomes in order;
    /// exactly as `applyNotification` of each, one after the other, would leave the ledger.
    public func applyNotifications(_ items: [PreparedNotification]) -> [Result<NotificationResult, Error>] {
        let alone = { (item: PreparedNotification) in Result { try self.database.writeTransaction { try self.applyPrepared(item) } } }
        guard items.count > 1 else { return items.map(alone) }
        let together: [Result<NotificationResult, Error>]
        do {
            together = try database.writeTransaction {
                // Every item's keys at once, in their one order, before the first savepoint (which
                // takes the writer lock, last in the lock order).
                try database.lockKeys(items.flatMap(\.writeKeys))
                return items.map { item in Result { try database.savepoint { try applyPrepared(item) } } }
            }
        } catch {
            return items.map(alone)
        }
        // An item that lost a lock race inside the shared transaction gets its own try.
        return zip(items, together).map { item, outcome in
            if case .failure(let error as StoreError) = outcome, error.code == .busy { return alone(item) }
            return outcome
        }
    }
}
