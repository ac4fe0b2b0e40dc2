import Foundation

/// Everything the simulator knows, as a value: issued transactions (renewals and refunds
/// included), Apple order ids, subscription renewal states and the notifications it sent. The
/// endpoints answer from a snapshot of it; `SimulatorState` saves it as JSON:
///
///     {"version":1,"bundleId":"com.example.receiptdesk","appAppleId":1234567890,
///      "transactions":{"2000000100000001":{…IssuedTransaction…}},
///      "orders":{"MK5TTTVWJ1":["2000000100000001"]},
///      "subscriptions":{"2000000100000001":{"autoRenewStatus":true,"autoRenewProductId":"pro.monthly"}},
///      "notifications":[{"notificationUUID":"…","notificationType":"DID_RENEW","environment":"Sandbox",
///                        "transactionId":"2000000100000002","signedDate":1700000000000}],
///      "nextTransactionNumber":2000000100000003,"nextOrderNumber":2,"nextAccountNumber":2,
///      "nextWebOrderNumber":2}
public struct SimulatorRecords: Codable, Sendable {
    /// The format of the saved file.
    public static let formatVersion = 1

    /// The saved file's format version.
    public var version = SimulatorRecords.formatVersion
    /// The app's bundle id (transactions and tokens must name it).
    public var bundleId: String
    /// The app's Apple id (`appAppleId` in answers and notifications).
    public var appAppleId: Int64
    /// Every transaction, by transaction id. A new one is added with `issue(_:)` (which keeps
    /// the originals' index); existing ones may be changed in place.
    public var transactions: [String: IssuedTransaction] = [:]
    /// `transactions` by original transaction id (not saved: worked out again when needed).
    private var originalsIndex = OriginalsIndex()
    /// Apple customer order id → transaction ids, in order.
    public var orders: [String: [String]] = [:]
    /// Original transaction id → what happens at the next renewal.
    public var subscriptions: [String: SubscriptionRenewal] = [:]
    /// Notifications sent, oldest first; only the latest `keptNotificationBodies` keep their
    /// signed body (`record(_:)`).
    public var notifications: [NotificationRecord] = []
    /// How many of the latest notifications keep their signed body (what Get Notification
    /// History and the test notification's status answer with). Each body is about 13 kB (three
    /// signatures, each with its certificate chain): kept for every notification ever sent, they
    /// were most of a large demo's state file and memory. Apple's own history reaches back a
    /// bounded time (180 days) too. Older notifications keep everything else.
    public static let keptNotificationBodies = 2_000
    /// The next generated transaction id.
    public var nextTransactionNumber: Int64 = 2_000_000_100_000_001
    /// The next generated order number (written as a 10-character order id).
    public var nextOrderNumber: Int64 = 1
    /// The next generated account number.
    public var nextAccountNumber: Int64 = 1
    /// The next generated web order line item id.
    public var nextWebOrderNumber: Int64 = 1
    /// Renewal-date extensions granted, oldest first.
    public var extensions: [SubscriptionExtension] = []
    /// Mass extension requests, by request identifier.
    public var massExtensions: [String: MassExtensionRequest] = [:]
    /// Consumption information received, oldest first.
    public var consumption: [ConsumptionRecord] = []
    /// Transaction id → when Apple asked for consumption information (CONSUMPTION_REQUEST) and
    /// none has been sent since.
    public var pendingConsumptionRequests: [String: Date] = [:]
    /// Test notification token → the TEST notification's UUID.
    public var testNotifications: [String: String] = [:]
    /// Transaction id → that the merchant finished it (Finish Transaction), and when.
    public var finishedTransactions: [String: TransactionFinish] = [:]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case version, bundleId, appAppleId, transactions, orders, subscriptions, notifications, nextTransactionNumber
        case nextOrderNumber, nextAccountNumber, nextWebOrderNumber, extensions, massExtensions, consumption
        case pendingConsumptionRequests, testNotifications, finishedTransactions
    }

    /// Decodes saved records; members added after the first files were written may be missing
    /// (an older state.json loads with them empty).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = try c.decode(Int.self, forKey: .version)
        bundleId = try c.decode(String.self, forKey: .bundleId)
        appAppleId = try c.decode(Int64.self, forKey: .appAppleId)
        transactions = try c.decode([String: IssuedTransaction].self, forKey: .transactions)
        orders = try c.decode([String: [String]].self, forKey: .orders)
        subscriptions = try c.decode([String: SubscriptionRenewal].self, forKey: .subscriptions)
        notifications = try c.decode([NotificationRecord].self, forKey: .notifications)
        nextTransactionNumber = try c.decode(Int64.self, forKey: .nextTransactionNumber)
        nextOrderNumber = try c.decode(Int64.self, forKey: .nextOrderNumber)
        nextAccountNumber = try c.decode(Int64.self, forKey: .nextAccountNumber)
        nextWebOrderNumber = try c.decode(Int64.self, forKey: .nextWebOrderNumber)
        extensions = try c.decodeIfPresent([SubscriptionExtension].self, forKey: .extensions) ?? []
        massExtensions = try c.decodeIfPresent([String: MassExtensionRequest].self, forKey: .massExtensions) ?? [:]
        consumption = try c.decodeIfPresent([ConsumptionRecord].self, forKey: .consumption) ?? []
        pendingConsumptionRequests = try c.decodeIfPresent([String: Date].self, forKey: .pendingConsumptionRequests) ?? [:]
        testNotifications = try c.decodeIfPresent([String: String].self, forKey: .testNotifications) ?? [:]
        finishedTransactions = try c.decodeIfPresent([String: TransactionFinish].self, forKey: .finishedTransactions) ?? [:]
        // A file written before bodies were bounded: only the latest keep theirs from now on.
        for index in notifications.indices.dropLast(Self.keptNotificationBodies) where notifications[index].signedPayload != nil {
            notifications[index].signedPayload = nil
        }
    }

    /// Records a sent notification; the one that falls out of the latest
    /// `keptNotificationBodies` drops its signed body.
    public mutating func record(_ notification: NotificationRecord) {
        notifications.append(notification)
        let fallen = notifications.count - 1 - Self.keptNotificationBodies
        if fallen >= 0 { notifications[fallen].signedPayload = nil }
    }

    /// Empty records for an app.
    public init(bundleId: String, appAppleId: Int64) {
        self.bundleId = bundleId
        self.appAppleId = appAppleId
    }

    /// Adds (or replaces) a transaction, keeping the index of originals current.
    public mutating func issue(_ transaction: IssuedTransaction) {
        guard transactions.updateValue(transaction, forKey: transaction.transactionId) == nil else { return }
        if !isKnownUniquelyReferenced(&originalsIndex) { originalsIndex = originalsIndex.copy() }
        originalsIndex.add(transaction)
    }

    /// The transaction `id` as `environment` knows it (nil when unknown there).
    public func transaction(_ id: String, in environment: SimulatorEnvironment) -> IssuedTransaction? {
        guard let transaction = transactions[id], transaction.environment == environment else { return nil }
        return transaction
    }

    /// Every transaction of the given originals in `environment`, oldest first.
    public func transactions(originals: Set<String>, in environment: SimulatorEnvironment) -> [IssuedTransaction] {
        SimulatorRecords.sorted(originals.flatMap(transactions(ofOriginal:)).filter { $0.environment == environment })
    }

    /// Every transaction of an original, in no particular order.
    private func transactions(ofOriginal original: String) -> [IssuedTransaction] {
        (originalsIndex.ids(in: transactions)[original] ?? []).compactMap { transactions[$0] }
    }

    /// Every transaction of the account that made transaction `id`, oldest first; nil when
    /// `environment` does not know `id`.
    /// `id` is any of a transaction id, an original transaction id or the account's app
    /// transaction id (Apple's `anyTransactionId`, API 1.20).
    public func accountHistory(of id: String, in environment: SimulatorEnvironment) -> [IssuedTransaction]? {
        guard let account = account(anyTransactionId: id, in: environment) else { return nil }
        return SimulatorRecords.sorted(transactions.values.filter { $0.account == account && $0.environment == environment })
    }

    /// The transactions filed under Apple order id `orderId` in `environment`, oldest first.
    public func transactions(orderId: String, in environment: SimulatorEnvironment) -> [IssuedTransaction] {
        let ids = orders[orderId] ?? []
        return SimulatorRecords.sorted(ids.compactMap { transaction($0, in: environment) })
    }

    /// The newest transaction of an original (the one a subscription's state is read from).
    public func latestTransaction(original: String) -> IssuedTransaction? {
        SimulatorRecords.sorted(transactions(ofOriginal: original)).last
    }

    /// Oldest purchase first; ties broken by transaction id (numerically when both are numbers).
    static func sorted(_ list: [IssuedTransaction]) -> [IssuedTransaction] {
        list.sorted { a, b in
            if a.purchaseDate != b.purchaseDate { return a.purchaseDate < b.purchaseDate }
            if a.transactionId.count != b.transactionId.count { return a.transactionId.count < b.transactionId.count }
            return a.transactionId < b.transactionId
        }
    }
}
