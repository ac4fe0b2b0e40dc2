import Foundation

/// The demo's customers whose subscriptions end up in each state Apple reports, each told to the
/// merchant as App Store Server Notifications (`.notify`) after the first receipt was imported,
/// so the ledger matches every notification to an owner.
extension DemoScenario {
    /// One customer per state, plus a consumable whose refund request waits for consumption
    /// information (signed three hours before `now`, so its 12-hour deadline is ahead).
    mutating func subscriptionStates() throws {
        let cases: [(String, (inout DemoScenario, String, Date) throws -> Void)] = [
            ("active", { d, o, end in try d.note(d.state.renewAndNotify(originalTransactionId: o, purchaseDate: end, expiresDate: end.addingTimeInterval(30 * Self.day))) }),
            ("auto-renew-off", { d, o, end in
                try d.note(d.state.renewAndNotify(originalTransactionId: o, purchaseDate: end, expiresDate: end.addingTimeInterval(30 * Self.day)))
                try d.note(d.state.setAutoRenew(originalTransactionId: o, enabled: false, date: d.date(daysAgo: 1)))
            }),
            ("billing-retry", { d, o, end in try d.note(d.state.failRenewal(originalTransactionId: o, date: end)) }),
            ("grace-period", { d, o, end in
                try d.note(d.state.failRenewal(originalTransactionId: o, date: end, gracePeriodExpiresDate: end.addingTimeInterval(16 * Self.day)))
            }),
            ("expired-voluntary", { d, o, end in
                try d.note(d.state.setAutoRenew(originalTransactionId: o, enabled: false, date: end.addingTimeInterval(-10 * Self.day)))
                try d.note(d.state.expire(originalTransactionId: o, because: .voluntary, date: end))
            }),
            ("expired-billing-retry", { d, o, end in
                // The renewal at the period's end fails; a day of grace; Apple gives up half a day ago.
                try d.note(d.state.failRenewal(originalTransactionId: o, date: end, gracePeriodExpiresDate: end.addingTimeInterval(Self.day)))
                try d.note(d.state.expireGracePeriod(originalTransactionId: o, date: end.addingTimeInterval(Self.day)))
                try d.note(d.state.expire(originalTransactionId: o, because: .billingRetry, date: d.date(daysAgo: 0.5)))
            }),
            ("expired-price-increase", { d, o, end in
                try d.note(d.state.increasePrice(originalTransactionId: o, renewalPrice: 12_990, accepted: false, date: end.addingTimeInterval(-20 * Self.day)))
                try d.note(d.state.expire(originalTransactionId: o, because: .priceIncrease, date: end))
            }),
            ("product-not-for-sale", { d, o, end in try d.note(d.state.expire(originalTransactionId: o, because: .productNotForSale, date: end)) }),
            ("revoked", { d, o, end in try d.note(d.state.revokeFamilySharing(transactionId: o, date: d.date(daysAgo: 2))) }),
            ("refunded", { d, o, end in try d.note(d.state.refundAndNotify(transactionId: o, date: d.date(daysAgo: 2), reason: 1)) }),
            ("refund-declined", { d, o, end in try d.note(d.state.declineRefund(transactionId: o, date: d.date(daysAgo: 2))) }),
            ("refund-reversed", { d, o, end in
                try d.note(d.state.refundAndNotify(transactionId: o, date: d.date(daysAgo: 4)))
                try d.note(d.state.reverseRefund(transactionId: o, date: d.date(daysAgo: 1)))
            }),
            ("price-increase-pending", { d, o, end in
                try d.note(d.state.renewAndNotify(originalTransactionId: o, purchaseDate: end, expiresDate: end.addingTimeInterval(30 * Self.day)))
                try d.note(d.state.increasePrice(originalTransactionId: o, renewalPrice: 12_990, accepted: false, date: d.date(daysAgo: 1)))
            }),
            ("offer-redeemed", { d, o, end in
                try d.note(d.state.renewAndNotify(originalTransactionId: o, purchaseDate: end, expiresDate: end.addingTimeInterval(30 * Self.day)))
                try d.note(d.state.redeemOffer(originalTransactionId: o, offerType: 2, offerIdentifier: "WINBACK_3M", date: d.date(daysAgo: 1)))
            }),
            ("refund-prorated", { d, o, end in
                try d.note(d.state.renewAndNotify(originalTransactionId: o, purchaseDate: end, expiresDate: end.addingTimeInterval(30 * Self.day)))
                try d.note(d.state.refundProratedAndNotify(transactionId: try d.latest(o), date: d.date(daysAgo: 1), percentage: 40_000, reason: 1))
            }),
            ("upgraded", { d, o, end in
                try d.note(d.state.renewAndNotify(originalTransactionId: o, purchaseDate: end, expiresDate: end.addingTimeInterval(30 * Self.day)))
                try d.note(d.state.changeRenewalPreference(originalTransactionId: o, to: DemoCatalogue.yearly, upgrade: true, date: d.date(daysAgo: 1)))
            }),
            ("commitment", { d, o, end in
                try d.state.setCommitment(transactionId: o, billingPlanType: "MONTHLY",
                                          commitment: .init(billingPeriodNumber: 1, totalBillingPeriods: 12, commitmentPrice: 47_880,
                                                            commitmentExpiresDate: end.addingTimeInterval(330 * Self.day)))
                try d.note(d.state.renewAndNotify(originalTransactionId: o, purchaseDate: end, expiresDate: end.addingTimeInterval(30 * Self.day)))
            }),
            ("renewal-extended", { d, o, end in
                try d.note(d.state.renewAndNotify(originalTransactionId: o, purchaseDate: end, expiresDate: end.addingTimeInterval(30 * Self.day)))
                try d.note(d.state.extendRenewalDate(originalTransactionId: o, days: 14, reasonCode: 3, date: d.date(daysAgo: 1)))
            }),
        ]
        for (offset, (kind, act)) in cases.enumerated() {
            let customer = "cust-state-\(kind)"
            let start = date(daysAgo: 32 + Double(offset % 3))
            let original = try importedSubscription(customer, start: start)
            try act(&self, original, start.addingTimeInterval(30 * Self.day))
            contactForState(customer, index: 900 + offset)
        }
        try familyMember(index: 900 + cases.count + 1)
        let customer = "cust-state-refund-request"
        let bought = date(daysAgo: 5)
        let receipt = try state.mintUnifiedReceipt(environment: .production, purchases: [
            SimulatedPurchase(productId: DemoCatalogue.gems, type: .consumable, purchaseDate: bought, quantity: 2),
        ], account: customer, appVersion: "52", originalAppVersion: "50")
        importing(Array(receipt.base64.utf8), customer, "app receipt")
        if let id = receipt.transactions.first?.transactionId {
            try note(state.requestConsumption(transactionId: id, date: now.addingTimeInterval(-3 * 3600)))
        }
        contactForState(customer, index: 900 + cases.count)
    }

    /// A monthly subscription bought at `start` (price and currency as Apple signs them),
    /// imported for `customer` as an app receipt; its original transaction id.
    private mutating func importedSubscription(_ customer: String, start: Date) throws -> String {
        var purchase = SimulatedPurchase(productId: DemoCatalogue.monthly, type: .autoRenewable, purchaseDate: start,
                                         expiresDate: start.addingTimeInterval(30 * Self.day))
        purchase.price = 4_990
        purchase.currency = "USD"
        let receipt = try state.mintUnifiedReceipt(environment: .production, purchases: [purchase], account: customer,
                                                   appVersion: "52", originalAppVersion: "50", creationDate: start.addingTimeInterval(60))
        importing(Array(receipt.base64.utf8), customer, "app receipt")
        guard let original = receipt.transactions.first?.transactionId else {
            throw SimulatorError(.invalidRequest, "demo: the receipt for \(customer) holds no transaction")
        }
        return original
    }

    /// The latest transaction of the subscription `original`.
    private func latest(_ original: String) throws -> String {
        guard let latest = state.transactions.filter({ $0.originalTransactionId == original }).max(by: { $0.purchaseDate < $1.purchaseDate }) else {
            throw SimulatorError(.invalidRequest, "demo: subscription \(original) has no transaction")
        }
        return latest.transactionId
    }

    /// An organiser who shares a lifetime purchase with Family Sharing and the member whose copy
    /// (`FAMILY_SHARED`, the same original transaction) the app sent for her: two customers, one
    /// original, no conflict.
    private mutating func familyMember(index: Int) throws {
        let organiser = "cust-state-family-organiser", member = "cust-state-family-member"
        let bought = date(daysAgo: 40)
        var purchase = SimulatedPurchase(productId: DemoCatalogue.removeAds, type: .nonConsumable, purchaseDate: bought)
        purchase.price = 2_990
        purchase.currency = "USD"
        let receipt = try state.mintUnifiedReceipt(environment: .production, purchases: [purchase], account: organiser,
                                                   appVersion: "52", originalAppVersion: "50", creationDate: bought.addingTimeInterval(60))
        importing(Array(receipt.base64.utf8), organiser, "app receipt")
        guard let original = receipt.transactions.first?.transactionId else {
            throw SimulatorError(.invalidRequest, "demo: the receipt for \(organiser) holds no transaction")
        }
        let copy = try state.shareWithFamily(transactionId: original, account: member)
        let signed = try JWSBuilder(authority: state.authority).signedTransaction(copy.payload(signedDate: date(daysAgo: 39)))
        importing(Array(signed.utf8), member, "signed transaction")
        contactForState(organiser, index: index)
        contactForState(member, index: index + 1)
    }

    private mutating func note(_ minted: MintedNotification) {
        events.append(.notify(body: Array(minted.body.utf8)))
    }

    private mutating func contactForState(_ customer: String, index: Int) {
        let (name, email) = Self.contact(index)
        events.append(.contact(customer: customer, name: name, email: email))
    }
}
