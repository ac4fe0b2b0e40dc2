import Foundation
import ReceiptCore

/// What the simulated App Store knows, shared by every request thread (all access under one
/// lock): the transactions it issued, renewals, refunds and expiries it was told about, Apple
/// order ids, the notifications it sent, and the app's settings (bundle id, app Apple id, the
/// shared secret, the App Store Server API key that signs Bearer tokens). A state opened from a
/// directory that other processes use too changes through `change { }` (SimulatorStateChanges).
///
///     let state = SimulatorState(authority: try .shared(), bundleId: "com.example.game")
///     let receipt = try state.mintUnifiedReceipt(environment: .sandbox, purchases: [
///         SimulatedPurchase(productId: "pro.monthly", type: .autoRenewable, purchaseDate: start, expiresDate: end)])
///     let renewal = try state.renew(originalTransactionId: receipt.transactions[0].transactionId,
///                                   purchaseDate: end, expiresDate: end.addingTimeInterval(30 * 86_400))
///     try state.refund(transactionId: renewal.transactionId, date: end.addingTimeInterval(86_400), reason: 1)
///
/// Nothing here reads the clock: every date is given.
public final class SimulatorState: @unchecked Sendable {
    // Every mutable member is guarded by `lock`.

    /// The authority whose chains sign everything the simulator mints and whose roots decide
    /// which receipts verifyReceipt accepts.
    public let authority: TestCertificateAuthority
    private let lock = NSLock()
    /// Serialises saves, so a save never overwrites a newer snapshot with an older one.
    private let saveLock = NSLock()
    private var records: SimulatorRecords
    private var secret: String?
    private var apiKey: ServerAPIKey?
    private var notifyURL: URL?
    private var notifyTimeout: Double = 5
    private var massPolls = 2
    private var autosaveURL: URL?
    /// Serialises `change` within this process; recursive, so a change may run inside another.
    let changeLock = NSRecursiveLock()
    /// How many `change` calls the thread holding `changeLock` is inside (guarded by it).
    var changeDepth = 0
    /// The version of `autosaveFile` the records were last read from or saved as (guarded by
    /// `changeLock`); nil: not known, so the next change reads the file first.
    var seenVersion: SimulatorStateVersion?
    /// Closed while the records load in the background (`loadInBackground`).
    let recordsGate = RecordsGate()
    /// Why the background load failed, if it did (the next read or change reads the file again).
    private var loadFailure: Error?
    var backgroundLoadFailure: Error? {
        get { lock.lock(); defer { lock.unlock() }; return loadFailure }
        set { lock.lock(); defer { lock.unlock() }; loadFailure = newValue }
    }

    /// An empty store for an app.
    public init(authority: TestCertificateAuthority, bundleId: String = "com.example.receiptdesk",
                appAppleId: Int64 = 1_234_567_890) {
        self.authority = authority
        self.records = SimulatorRecords(bundleId: bundleId, appAppleId: appAppleId)
    }

    /// Runs `body` on the records under the lock.
    func withRecords<T>(_ body: (inout SimulatorRecords) throws -> T) rethrows -> T {
        recordsGate.wait()
        lock.lock()
        defer { lock.unlock() }
        return try body(&records)
    }

    /// A copy of everything known right now (cheap: copy-on-write).
    public func snapshot() -> SimulatorRecords { withRecords { $0 } }

    /// The app's bundle id.
    public var bundleId: String { withRecords { $0.bundleId } }
    /// The app's Apple id.
    public var appAppleId: Int64 { withRecords { $0.appAppleId } }

    /// The app's shared secret; when set, verifyReceipt answers 21004 to a request whose
    /// `password` is missing or different. Never saved.
    public var sharedSecret: String? {
        get { lock.lock(); defer { lock.unlock() }; return secret }
        set { lock.lock(); defer { lock.unlock() }; secret = newValue }
    }

    /// The App Store Server API key that Bearer tokens must be signed with; nil refuses every
    /// Server API request with 401. Never saved.
    public var serverAPIKey: ServerAPIKey? {
        get { lock.lock(); defer { lock.unlock() }; return apiKey }
        set { lock.lock(); defer { lock.unlock() }; apiKey = newValue }
    }

    /// Where minted notifications are POSTed as `{"signedPayload":"…"}` (nil: nowhere, the
    /// default). Set it with `setNotificationURL(_:)`, which accepts only http:// to loopback.
    /// Never saved.
    public var notificationURL: URL? {
        lock.lock(); defer { lock.unlock() }; return notifyURL
    }

    /// Sets (or with nil clears) the notification URL; throws `SimulatorError` (`.notLoopback`
    /// or `.invalidRequest`) for anything but `http://` to 127.0.0.0/8, ::1 or localhost.
    public func setNotificationURL(_ url: URL?) throws {
        if let url { _ = try NotificationDelivery.target(url) }
        lock.lock(); defer { lock.unlock() }
        notifyURL = url
    }

    /// Seconds a notification POST may take (connect, send, and the answer's status line);
    /// 0.05…60, default 5.
    public var notificationTimeout: Double {
        get { lock.lock(); defer { lock.unlock() }; return notifyTimeout }
        set { lock.lock(); defer { lock.unlock() }; notifyTimeout = newValue.isNaN ? 5 : min(max(newValue, 0.05), 60) }
    }

    /// A mass extension request completes on this status request (1…1000, default 2); earlier
    /// status requests report it in progress with counts growing. Never saved.
    public var massExtensionStatusPolls: Int {
        get { lock.lock(); defer { lock.unlock() }; return massPolls }
        set { lock.lock(); defer { lock.unlock() }; massPolls = min(max(newValue, 1), 1000) }
    }

    /// The file `change` reads the latest records from and saves them to, under the lock of its
    /// directory (`SimulatorStateFileLock`): every change a Server API request makes (extend,
    /// mass extend, consumption, test notification, app account token) goes through it.
    /// `SimulatorStateDirectory.open` sets it to its state.json. Set by hand, the next change
    /// first loads what the file holds, when there is one. nil: nothing is saved by itself.
    public var autosaveFile: URL? {
        get { lock.lock(); defer { lock.unlock() }; return autosaveURL }
        set {
            changeLock.lock()
            defer { changeLock.unlock() }
            seenVersion = nil
            lock.lock()
            defer { lock.unlock() }
            autosaveURL = newValue
        }
    }

    /// A transaction by id, in whichever environment it was issued.
    public func transaction(_ id: String) -> IssuedTransaction? { withRecords { $0.transactions[id] } }

    /// Every transaction, oldest first.
    public var transactions: [IssuedTransaction] { SimulatorRecords.sorted(withRecords { Array($0.transactions.values) }) }

    /// Every notification minted, oldest first.
    public var notifications: [NotificationRecord] { withRecords { $0.notifications } }

    /// A new Apple account name ("account-7"), for purchases that should share a history.
    public func newAccount() -> String { withRecords { $0.newAccount() } }

    /// Records a purchase as issued in `environment` by `account` (nil: the original's account,
    /// else a new one) and returns it. An id already issued is returned as it is known (a
    /// repeated callback); in the other environment it is refused.
    @discardableResult
    public func register(_ purchase: SimulatedPurchase, environment: SimulatorEnvironment, account: String? = nil) throws -> IssuedTransaction {
        try withRecords { try $0.register(purchase, environment: environment, account: account) }
    }

    /// Tells the simulator a subscription renewed: a new transaction of the original's newest
    /// product, in its environment and account, filed under a new order id. The offer the
    /// renewal info names (`redeemOffer`) prices this new period and is then used up.
    @discardableResult
    public func renew(originalTransactionId: String, newTransactionId: String? = nil, purchaseDate: Date,
                      expiresDate: Date) throws -> IssuedTransaction {
        try withRecords { records in
            guard let latest = records.latestTransaction(original: originalTransactionId), latest.productType == .autoRenewable else {
                throw SimulatorError(.invalidRequest, "renew: \(originalTransactionId) is not an auto-renewable subscription the simulator issued")
            }
            let product = records.subscriptions[originalTransactionId]?.autoRenewProductId ?? latest.productId
            var purchase = SimulatedPurchase(productId: product, type: .autoRenewable, purchaseDate: purchaseDate,
                                             expiresDate: expiresDate, transactionId: newTransactionId,
                                             originalTransactionId: originalTransactionId, appAccountToken: latest.appAccountToken)
            purchase.subscriptionGroupIdentifier = latest.subscriptionGroupIdentifier
            purchase.price = records.subscriptions[originalTransactionId]?.renewalPrice ?? latest.price
            purchase.currency = latest.currency
            // The renewal info's offer is for this renewal: the new period carries it (its own
            // transaction's offer), and it is used up; a period without one is priced as listed.
            if let renewal = records.subscriptions[originalTransactionId], let offerType = renewal.offerType {
                purchase.offerType = offerType
                purchase.offerIdentifier = renewal.offerIdentifier
                purchase.offerDiscountType = renewal.offerDiscountType
                records.subscriptions[originalTransactionId]?.offerType = nil
                records.subscriptions[originalTransactionId]?.offerIdentifier = nil
                records.subscriptions[originalTransactionId]?.offerPeriod = nil
                records.subscriptions[originalTransactionId]?.offerDiscountType = nil
            }
            var renewed = try records.register(purchase, environment: latest.environment, account: latest.account, reason: "RENEWAL")
            // A 12-month commitment plan's renewal pays its next period, under the same plan.
            if let commitment = latest.commitment, commitment.billingPeriodNumber < commitment.totalBillingPeriods {
                renewed.billingPlanType = latest.billingPlanType
                renewed.commitment = IssuedTransaction.Commitment(
                    billingPeriodNumber: commitment.billingPeriodNumber + 1, totalBillingPeriods: commitment.totalBillingPeriods,
                    commitmentPrice: commitment.commitmentPrice, commitmentExpiresDate: commitment.commitmentExpiresDate)
                records.transactions[renewed.transactionId] = renewed
            }
            // A price increase is settled once the renewal at the new price happened.
            records.subscriptions[originalTransactionId]?.priceIncreaseStatus = nil
            records.subscriptions[originalTransactionId]?.renewalPrice = nil
            return renewed
        }
    }

    /// Tells the simulator Apple refunded (or revoked) a transaction on `date`; `reason` 0 for
    /// another reason, 1 for an issue with the purchase; `type` and `percentage` as Apple's
    /// `revocationType` / `revocationPercentage` (nil: left out, as before API 1.19).
    @discardableResult
    public func refund(transactionId: String, date: Date, reason: Int64 = 0, type: String? = nil,
                       percentage: Int64? = nil) throws -> IssuedTransaction {
        try withRecords { records in
            guard var transaction = records.transactions[transactionId] else {
                throw SimulatorError(.invalidRequest, "refund: transaction \(transactionId) was not issued by the simulator")
            }
            transaction.revocation = IssuedTransaction.Revocation(date: SimulatorRecords.wholeMilliseconds(date), reason: reason,
                                                                  type: type, percentage: percentage)
            records.transactions[transactionId] = transaction
            return transaction
        }
    }

    /// Tells the simulator a subscription will not renew: auto-renew off with `intent` (1 the
    /// customer cancelled, 2 billing error, …) and, when `date` is given and earlier, the newest
    /// period cut short to end then.
    public func expire(originalTransactionId: String, date: Date? = nil, intent: Int64 = 1) throws {
        try withRecords { records in
            guard var latest = records.latestTransaction(original: originalTransactionId), latest.productType == .autoRenewable else {
                throw SimulatorError(.invalidRequest, "expire: \(originalTransactionId) is not an auto-renewable subscription the simulator issued")
            }
            var renewal = records.subscriptions[originalTransactionId] ?? SubscriptionRenewal(autoRenewProductId: latest.productId)
            renewal.autoRenewStatus = false
            renewal.expirationIntent = intent
            records.subscriptions[originalTransactionId] = renewal
            if let date, latest.expiresDate.map({ $0 > date }) ?? true {
                latest.expiresDate = SimulatorRecords.wholeMilliseconds(date)
                records.transactions[latest.transactionId] = latest
            }
        }
    }

    /// Files existing transactions under an Apple order id as well (one order, several items).
    public func fileOrder(_ orderId: String, transactionIds: [String]) {
        withRecords { records in
            for id in transactionIds where !(records.orders[orderId] ?? []).contains(id) {
                records.orders[orderId, default: []].append(id)
            }
        }
    }

    /// Saves the records (not the shared secret, not the API key) as JSON to `file`, atomically.
    /// Written a member at a time (`SimulatorRecordsFile`), not pretty-printed.
    public func save(to file: URL) throws {
        saveLock.lock()
        defer { saveLock.unlock() }
        do {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try SimulatorRecordsFile.write(snapshot(), to: file)
        } catch {
            throw SimulatorError(.persistence, "cannot save simulator state to \(file.path): \(error.localizedDescription)")
        }
    }

    /// Replaces the records with those saved in `file` (the shared secret and API key stay as set).
    public func load(from file: URL) throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        let loaded: SimulatorRecords
        do {
            loaded = try decoder.decode(SimulatorRecords.self, from: Data(contentsOf: file))
        } catch {
            throw SimulatorError(.persistence, "cannot read simulator state from \(file.path): \(error.localizedDescription)")
        }
        guard loaded.version == SimulatorRecords.formatVersion else {
            throw SimulatorError(.persistence, "simulator state \(file.path) has format version \(loaded.version); this build reads version \(SimulatorRecords.formatVersion)")
        }
        // Not through `withRecords`: this may be the background load the gate waits for.
        lock.lock()
        records = loaded
        lock.unlock()
    }
}
