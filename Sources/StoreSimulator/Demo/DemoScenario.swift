import Foundation
import ReceiptCore

/// Builds the demo's events through the simulator: paid, pending and failed orders; legacy iOS 6
/// and unified receipts with several purchases; StoreKit 2 transactions and notifications;
/// subscriptions that renewed, expired and were refunded; sandbox purchases made during App Review
/// against production; repeated callbacks; one transaction claimed by two accounts; customers
/// from the paid-app era; names in several scripts; then one customer per subscription state
/// (`subscriptionStates`, on top of `customers`) and a refund request waiting for consumption
/// information. Deterministic for a seed and a `now`.
public struct DemoScenario {
    let state: SimulatorState
    let now: Date
    private var random: SplitMix64
    var events: [DemoEvent] = []
    /// Order ids handed out so far: each is drawn again until it is new (six random digits
    /// collide once a few hundred orders exist).
    private var orderIds: Set<String> = []

    public init(state: SimulatorState, now: Date, seed: UInt64 = 42) {
        self.state = state
        self.now = now
        self.random = SplitMix64(seed: seed)
    }

    static let names = ["王小明", "李娜", "佐藤さくら", "김민준", "Ольга", "Zoë Müller", "José Álvarez", "Ἀθηνᾶ", "محمد", "Nguyễn Văn An"]
    static let day: TimeInterval = 86_400
    static let firstNames = ["Ada", "Grace", "Alan", "Barbara", "Donald", "Frances", "Margaret", "Dennis", "Hedy", "Radia", "Katherine", "Niklaus"]
    static let lastNames = ["Lovelace", "Hopper", "Turing", "Liskov", "Knuth", "Allen", "Hamilton", "Ritchie", "Lamarr", "Perlman", "Johnson", "Wirth", "Okafor"]

    /// Customer `index`'s name and email.
    static func contact(_ index: Int) -> (String, String) {
        let first = firstNames[index % firstNames.count]
        let last = lastNames[(index / firstNames.count + index) % lastNames.count]
        return ("\(first) \(last)", "\(first.lowercased()).\(last.lowercased()).\(index)@example.com")
    }

    /// The events for `customers` customers (at least 20).
    public mutating func build(customers: Int) throws -> [DemoEvent] {
        var all: [DemoEvent] = []
        try build(customers: customers) { all += $0 }
        return all
    }

    /// The same events, handed to `flush` a part at a time (every `partSize` customers, then the
    /// rest), in order: a large demo is imported as it is minted and never held whole (its
    /// receipts and notification bodies were most of its memory).
    public mutating func build(customers: Int, partSize: Int = 500, flush: ([DemoEvent]) throws -> Void) throws {
        let count = max(20, customers)
        events = []
        for index in 0..<count {
            let customer = index < Self.names.count ? Self.names[index] : String(format: "cust-%04d", index)
            switch index % 10 {
            case 0, 1: try subscriber(customer, renewals: random.int(1...5), refunded: index % 20 == 1)
            case 2: try consumableBuyer(customer, paid: true)
            case 3: try consumableBuyer(customer, paid: false)
            case 4: try legacyBuyer(customer)
            case 5: try storeKit2Subscriber(customer)
            case 6: try paidAppEraCustomer(customer)
            case 7: try repeatedCallbacks(customer)
            case 8: try seasonPassBuyer(customer)
            default: try subscriber(customer, renewals: 0, refunded: false, expired: true)
            }
            if (index + 1) % max(1, partSize) == 0 {
                try flush(events)
                events = []
            }
        }
        try appReview()
        try sharedAccount()
        try subscriptionStates()
        events.append(.grant(customer: Self.names[1], entitlement: "pro", until: now.addingTimeInterval(30 * Self.day),
                             reason: "goodwill: outage on 2026-03-02"))
        // Names and emails, so support can find a customer by what the ticket says.
        for index in 0..<count {
            let customer = index < Self.names.count ? Self.names[index] : String(format: "cust-%04d", index)
            let (name, email) = Self.contact(index)
            events.append(.contact(customer: customer, name: index < Self.names.count ? customer : name, email: email))
        }
        try flush(events)
        events = []
    }

    func date(daysAgo: Double) -> Date { now.addingTimeInterval(-daysAgo * Self.day) }

    mutating func importing(_ bytes: [UInt8], _ customer: String, order: String? = nil, username: String? = nil, _ source: String) {
        events.append(.importArtefact(bytes: bytes, customer: customer, orderId: order, applicationUsername: username, source: source))
    }

    /// A monthly subscriber: one receipt with the first purchase (and any earlier renewals), then
    /// renewals Apple knows of that the stored receipt does not.
    private mutating func subscriber(_ customer: String, renewals: Int, refunded: Bool, expired: Bool = false) throws {
        let start = date(daysAgo: Double(30 * (renewals + 1)) + Double(random.int(1...20)))
        let product = random.int(0...3) == 0 ? DemoCatalogue.yearly : DemoCatalogue.monthly
        let period = product == DemoCatalogue.yearly ? 365 * Self.day : 30 * Self.day
        let receipt = try state.mintUnifiedReceipt(environment: .production, purchases: [
            SimulatedPurchase(productId: product, type: .autoRenewable, purchaseDate: start, expiresDate: start.addingTimeInterval(period)),
            SimulatedPurchase(productId: DemoCatalogue.coins, type: .consumable, purchaseDate: start.addingTimeInterval(3600)),
        ], account: customer, appVersion: "52", originalAppVersion: "45", creationDate: start.addingTimeInterval(7200))
        importing(Array(receipt.base64.utf8), customer, "app receipt")
        guard let original = receipt.transactions.first?.transactionId else { return }
        var periodStart = start.addingTimeInterval(period)
        for _ in 0..<renewals where periodStart < now {
            let renewed = try state.renew(originalTransactionId: original, purchaseDate: periodStart, expiresDate: periodStart.addingTimeInterval(period))
            // Half the renewals reach the merchant as notifications; the rest only Apple knows.
            if random.int(0...1) == 0 {
                let note = try state.mintNotification(type: "DID_RENEW", transactionId: renewed.transactionId, signedDate: periodStart)
                events.append(.notify(body: Array(note.body.utf8)))
            }
            periodStart = periodStart.addingTimeInterval(period)
        }
        if refunded {
            let refund = try state.refund(transactionId: original, date: start.addingTimeInterval(5 * Self.day))
            let note = try state.mintNotification(type: "REFUND", transactionId: refund.transactionId, signedDate: start.addingTimeInterval(5 * Self.day))
            events.append(.notify(body: Array(note.body.utf8)))
        }
        if expired { try state.expire(originalTransactionId: original, intent: 1) }
    }

    /// Coins bought through a merchant order named by applicationUsername; or an order that is still
    /// pending, plus one that failed.
    private mutating func consumableBuyer(_ customer: String, paid: Bool) throws {
        let orderId = newOrderId()
        let product = random.int(0...1) == 0 ? DemoCatalogue.coins : DemoCatalogue.gems
        let placed = date(daysAgo: Double(random.int(2...200)))
        events.append(.createOrder(orderId: orderId, customer: customer, productId: product, accountToken: nil))
        guard paid else {
            let failed = newOrderId()
            events.append(.createOrder(orderId: failed, customer: customer, productId: product, accountToken: nil))
            events.append(.failOrder(orderId: failed, reason: "SKErrorPaymentCancelled"))
            return
        }
        let receipt = try state.mintUnifiedReceipt(environment: .production, purchases: [
            SimulatedPurchase(productId: product, type: .consumable, purchaseDate: placed.addingTimeInterval(120), quantity: Int64(random.int(1...3))),
        ], account: customer, appVersion: "52", originalAppVersion: "48")
        importing(Array(receipt.base64.utf8), customer, username: orderId, "purchase callback")
    }

    /// A merchant order id not used before in this demo.
    private mutating func newOrderId() -> String {
        while true {
            let id = "ORD-\(random.int(100_000...999_999))"
            if orderIds.insert(id).inserted { return id }
        }
    }

    /// An iOS 6 era purchase: legacy transaction receipt for removing ads, its signature blob of
    /// version 2 (2012, iTunes Store CA) or version 3 (2014, WWDR CA) as Apple's were.
    private mutating func legacyBuyer(_ customer: String) throws {
        let month = random.int(1...12)
        let version: UInt8 = month % 2 == 0 ? 3 : 2
        let bought = CivilTime(year: version == 3 ? 2014 : 2012, month: month, day: random.int(1...28), hour: 15).date
        let receipt = try state.mintLegacyReceipt(environment: .production,
                                                  purchase: SimulatedPurchase(productId: DemoCatalogue.removeAds, type: .nonConsumable, purchaseDate: bought),
                                                  account: customer, bundleVersion: "3.1", blobVersion: version)
        importing(Array(receipt.base64.utf8), customer, "iOS 6 transactionReceipt")
    }

    /// A StoreKit 2 subscriber whose transaction carries the merchant's appAccountToken naming its order.
    private mutating func storeKit2Subscriber(_ customer: String) throws {
        let token = UUID().uuidString.lowercased()
        let orderId = newOrderId()
        let bought = date(daysAgo: Double(random.int(1...25)))
        events.append(.createOrder(orderId: orderId, customer: customer, productId: DemoCatalogue.monthly, accountToken: token))
        let minted = try state.mintSignedTransaction(environment: .production, purchase: SimulatedPurchase(
            productId: DemoCatalogue.monthly, type: .autoRenewable, purchaseDate: bought.addingTimeInterval(60),
            expiresDate: bought.addingTimeInterval(30 * Self.day), appAccountToken: token), account: customer, signedDate: bought.addingTimeInterval(61))
        importing(Array(minted.jws.utf8), customer, "StoreKit 2 Transaction.updates")
    }

    /// A customer who bought the app when it was paid (original build 38 < 40): keeps pro.
    private mutating func paidAppEraCustomer(_ customer: String) throws {
        let receipt = try state.mintUnifiedReceipt(environment: .production, purchases: [], account: customer,
                                                   appVersion: "52", originalAppVersion: "38",
                                                   creationDate: date(daysAgo: 10 + Double(random.int(0...100_000)) / 10_000))
        importing(Array(receipt.base64.utf8), customer, "app receipt (paid-app era)")
    }

    /// StoreKit repeats the callback until finishTransaction succeeds: the same receipt three
    /// times, then a refreshed receipt with the same transaction.
    private mutating func repeatedCallbacks(_ customer: String) throws {
        let bought = date(daysAgo: Double(random.int(1...90)))
        let purchase = SimulatedPurchase(productId: DemoCatalogue.gems, type: .consumable, purchaseDate: bought)
        let receipt = try state.mintUnifiedReceipt(environment: .production, purchases: [purchase], account: customer,
                                                   appVersion: "52", originalAppVersion: "50")
        for _ in 0..<3 { importing(Array(receipt.base64.utf8), customer, "repeated callback") }
    }

    private mutating func seasonPassBuyer(_ customer: String) throws {
        let bought = date(daysAgo: Double(random.int(1...60)))
        let receipt = try state.mintUnifiedReceipt(environment: .production, purchases: [
            SimulatedPurchase(productId: DemoCatalogue.seasonPass, type: .nonRenewing, purchaseDate: bought),
            SimulatedPurchase(productId: DemoCatalogue.removeAds, type: .nonConsumable, purchaseDate: bought.addingTimeInterval(600)),
        ], account: customer, appVersion: "52", originalAppVersion: "51")
        importing(Array(receipt.base64.utf8), customer, "app receipt")
    }

    /// App Review buys in the sandbox against the production build.
    private mutating func appReview() throws {
        let reviewer = "app-review-1"
        events.append(.addTester(customer: reviewer))
        let receipt = try state.mintUnifiedReceipt(environment: .sandbox, purchases: [
            SimulatedPurchase(productId: DemoCatalogue.monthly, type: .autoRenewable, purchaseDate: date(daysAgo: 3),
                              expiresDate: date(daysAgo: 3).addingTimeInterval(300)),
        ], account: reviewer, appVersion: "52", originalAppVersion: "1.0")
        importing(Array(receipt.base64.utf8), reviewer, "App Review (sandbox receipt on production)")
        let stranger = "cust-sandbox-leak"
        let leaked = try state.mintUnifiedReceipt(environment: .sandbox, purchases: [
            SimulatedPurchase(productId: DemoCatalogue.removeAds, type: .nonConsumable, purchaseDate: date(daysAgo: 2)),
        ], account: stranger, appVersion: "52", originalAppVersion: "1.0")
        importing(Array(leaked.base64.utf8), stranger, "sandbox receipt from a non-tester")
    }

    /// One Apple account used on two of the merchant's accounts: the second claim opens a conflict.
    private mutating func sharedAccount() throws {
        let receipt = try state.mintUnifiedReceipt(environment: .production, purchases: [
            SimulatedPurchase(productId: DemoCatalogue.removeAds, type: .nonConsumable, purchaseDate: date(daysAgo: 40)),
        ], account: "family", appVersion: "52", originalAppVersion: "49")
        importing(Array(receipt.base64.utf8), "cust-family-parent", "app receipt")
        importing(Array(receipt.base64.utf8), "cust-family-kid", "app receipt (same Apple ID)")
    }
}
