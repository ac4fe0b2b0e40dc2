import Foundation
import PurchaseStore
import ReceiptCore

/// The forms of the actions at Apple: what each asks, and the request a filled-in form makes.
/// The ledger checks each request again when its preview is built (Apple's rules for an
/// extension, the token's owner, the consumption fields), and refuses it in one line.
enum AppleForms {
    static let reasonHint = FormLogic.reasonHint
    static let daysHint = "1–90 days (Apple's limit; at most two extensions a year)"

    /// Apple's extension reason codes as choices ("1 customer satisfaction").
    static var reasonCodeOptions: [String] { AppleExtendReasons.all.map { "\($0.code) \($0.words)" } }

    /// The extend form for one of the customer's subscriptions (`subscriptions`: original id and
    /// what the choice says about it).
    static func extendForm(customer: String, subscriptions: [(original: String, label: String)]) -> FormState? {
        guard !subscriptions.isEmpty else { return nil }
        return FormState(kind: .extend(customer: customer, originals: subscriptions.map(\.original)), fields: [
            FormField(label: "Subscription", kind: .choice(subscriptions.map(\.label), 0), hint: "← → choose the subscription (original transaction)"),
            FormField(label: "Days", kind: .text(TextField()), hint: daysHint),
            FormField(label: "Reason code", kind: .choice(reasonCodeOptions, 1), hint: "← → Apple's reason code (sent to Apple)"),
            FormField(label: "Reason", kind: .text(TextField()), hint: reasonHint),
        ])
    }

    static func tokenForm(original: String) -> FormState {
        FormState(kind: .setToken(original: original), fields: [
            FormField(label: "Token", kind: .text(TextField()), hint: "the app account token (a UUID) of the customer's order"),
            FormField(label: "Reason", kind: .text(TextField()), hint: reasonHint),
        ])
    }

    static func lookUpForm(customer: String) -> FormState {
        FormState(kind: .lookUpOrder(customer: customer), fields: [
            FormField(label: "Apple order id", kind: .text(TextField()), hint: "from the customer's invoice email (like MK5TTTVWJH)"),
        ])
    }

    static func massExtendForm(products: [String]) -> FormState? {
        guard !products.isEmpty else { return nil }
        return FormState(kind: .massExtend, fields: [
            FormField(label: "Product", kind: .choice(products, 0), hint: "← → an auto-renewable product of the catalogue"),
            FormField(label: "Days", kind: .text(TextField()), hint: daysHint),
            FormField(label: "Reason code", kind: .choice(reasonCodeOptions, 3), hint: "← → Apple's reason code (sent to Apple)"),
            FormField(label: "Environment", kind: .choice(["production", "sandbox"], 0), hint: "← → where the subscribers are"),
            FormField(label: "Storefronts", kind: .text(TextField()), hint: "optional: USA DEU … (empty: all)"),
            FormField(label: "Reason", kind: .text(TextField()), hint: reasonHint),
        ])
    }

    /// The offer form for one of the customer's subscriptions: the product (and the purchase the
    /// offer is tied to) comes from the chosen subscription, whose choice names the win-back
    /// offers Apple says the customer may redeem; the offer id is the one set up in App Store Connect.
    static func offerForm(customer: String, choices: [OfferChoice]) -> FormState? {
        guard !choices.isEmpty else { return nil }
        return FormState(kind: .offer(customer: customer, choices: choices), fields: [
            FormField(label: "Subscription", kind: .choice(choices.map(\.label), 0), hint: "← → the subscription whose product is offered"),
            FormField(label: "Offer id", kind: .text(TextField()),
                      hint: "the offer's identifier in App Store Connect (promotional or win-back, like WINBACK50)"),
            FormField(label: "Reason", kind: .text(TextField()), hint: reasonHint),
        ])
    }

    static func notificationsForm() -> FormState {
        FormState(kind: .notifications, fields: [
            FormField(label: "Do", kind: .choice(["fetch the notification history", "request a test notification"], 0),
                      hint: "← → fetch what Apple sent over a period, or ask Apple for a TEST notification"),
            FormField(label: "Since", kind: .text(TextField()), hint: "fetch: a date 2026-11-01 (Apple keeps 180 days)"),
            FormField(label: "Until", kind: .text(TextField()), hint: "fetch: a date, empty for now"),
            FormField(label: "Environment", kind: .choice(["production", "sandbox"], 0), hint: "← → which of Apple's environments"),
        ])
    }

    /// The coded fields the consumption form shows, in Apple's order, refund preference first.
    static let consumptionFields = ["refundPreference", "consumptionStatus", "deliveryStatus", "platform", "accountTenure", "playTime",
                                    "lifetimeDollarsPurchased", "lifetimeDollarsRefunded", "userStatus"]

    /// The consumption form, filled from the ledger's draft: each choice says its value's words
    /// and its hint where the value came from.
    static func consumptionForm(_ draft: ConsumptionDraft) -> FormState {
        var fields = [FormField(label: "Consent", kind: .choice(["no: not confirmed", "yes: the customer agreed to share it"],
                                                                draft.information.customerConsented ? 1 : 0),
                                hint: "Apple refuses the information without the customer's consent")]
        for name in consumptionFields {
            guard let field = draft.information.codedFields.first(where: { $0.name == name }) else { continue }
            let options = (0...field.maximum).map { value in
                "\(value) " + (setting(draft, name, value).information.codedFields.first { $0.name == name }?.meaning ?? "")
            }
            fields.append(FormField(label: name, kind: .choice(options, min(max(0, field.value), field.maximum)),
                                    hint: "← → " + (draft.sources[name] ?? "as given")))
        }
        fields.append(FormField(label: "Sample content", kind: .choice(["no", "yes"], draft.information.sampleContentProvided ? 1 : 0),
                                hint: "← → a free sample or trial came before the purchase"))
        fields.append(FormField(label: "Reason", kind: .text(TextField()), hint: reasonHint))
        return FormState(kind: .consumption(requestId: draft.request.requestId), fields: fields)
    }

    /// The draft with one coded field set.
    static func setting(_ draft: ConsumptionDraft, _ name: String, _ value: Int) -> ConsumptionDraft {
        var draft = draft
        draft.information.setCodedField(name, to: value)
        return draft
    }

    /// The draft with the operator's choices.
    static func applying(_ choices: ConsumptionChoices, to draft: ConsumptionDraft) -> ConsumptionDraft {
        var draft = draft
        draft.information.customerConsented = choices.consented
        draft.information.sampleContentProvided = choices.sampleContentProvided
        for (name, value) in choices.codes.sorted(by: { $0.key < $1.key }) { draft = setting(draft, name, value) }
        return draft
    }

    /// The request of a filled-in Apple form; nil for the other forms.
    static func submit(_ form: FormState, now: Date) -> Result<PendingChange, ConsoleFailure>? {
        let reason = form.value("Reason")
        func needReason() -> ConsoleFailure? {
            reason.isEmpty ? ConsoleFailure("a reason is required: say why (it goes in the audit log); nothing changed") : nil
        }
        func days() -> Result<Int, ConsoleFailure> {
            let text = form.value("Days")
            guard let days = Int(text) else {
                return .failure(ConsoleFailure(text.isEmpty ? "say by how many days (1–90)" : "days '\(text.prefix(20))' is not a whole number"))
            }
            return .success(days)
        }
        func reasonCode() -> Int {
            let options = AppleExtendReasons.all
            let index = form.choiceIndex("Reason code")
            return options.indices.contains(index) ? options[index].code : 0
        }
        func environment() -> Environment { form.choiceIndex("Environment") == 1 ? .sandbox : .production }
        switch form.kind {
        case .extend(let customer, let originals):
            if let missing = needReason() { return .failure(missing) }
            let index = form.choiceIndex("Subscription")
            guard originals.indices.contains(index) else { return .failure(ConsoleFailure("choose a subscription")) }
            return days().map { .apple(.extend(customer: customer, original: originals[index], days: $0, reasonCode: reasonCode(), reason: reason)) }
        case .setToken(let original):
            if let missing = needReason() { return .failure(missing) }
            let token = form.value("Token")
            guard !token.isEmpty else { return .failure(ConsoleFailure("give the app account token (a UUID)")) }
            return .success(.apple(.setToken(original: original, token: token, reason: reason)))
        case .lookUpOrder(let customer):
            let order = form.value("Apple order id")
            guard !order.isEmpty else { return .failure(ConsoleFailure("give the Apple order id from the customer's invoice email")) }
            return .success(.apple(.lookUpOrder(customer: customer, orderId: order)))
        case .consumption(let requestId):
            if let missing = needReason() { return .failure(missing) }
            var codes: [String: Int] = [:]
            for name in consumptionFields where form.fields.contains(where: { $0.label == name }) { codes[name] = form.choiceIndex(name) }
            let choices = ConsumptionChoices(consented: form.choiceIndex("Consent") == 1,
                                             sampleContentProvided: form.choiceIndex("Sample content") == 1, codes: codes)
            return .success(.apple(.consumption(requestId: requestId, choices: choices, reason: reason)))
        case .massExtend:
            if let missing = needReason() { return .failure(missing) }
            let product = form.value("Product")
            let storefronts = form.value("Storefronts").uppercased().split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
            return days().map { .apple(.massExtend(productId: product, days: $0, reasonCode: reasonCode(), environment: environment(),
                                                   storefronts: storefronts, reason: reason)) }
        case .offer(let customer, let choices):
            if let missing = needReason() { return .failure(missing) }
            let index = form.choiceIndex("Subscription")
            guard choices.indices.contains(index) else { return .failure(ConsoleFailure("choose a subscription")) }
            let offer = form.value("Offer id")
            guard !offer.isEmpty else { return .failure(ConsoleFailure("give the offer id (as set up in App Store Connect, like WINBACK50)")) }
            let choice = choices[index]
            return .success(.apple(.offer(customer: customer, productId: choice.productId, offerId: offer,
                                          transactionId: choice.originalTransactionId, reason: reason)))
        case .notifications:
            if form.choiceIndex("Do") == 1 { return .success(.apple(.testNotification(environment: environment()))) }
            guard let since = date(form.value("Since")) else {
                return .failure(ConsoleFailure(form.value("Since").isEmpty ? "say since when (a date like 2026-11-01)"
                                                                              : "since '\(form.value("Since").prefix(30))' is not a date (2026-11-01)"))
            }
            let untilText = form.value("Until")
            let until: Date
            if untilText.isEmpty {
                until = now
            } else if let parsed = date(untilText) {
                until = parsed
            } else {
                return .failure(ConsoleFailure("until '\(untilText.prefix(30))' is not a date (2026-11-01)"))
            }
            guard since < until else { return .failure(ConsoleFailure("since \(form.value("Since")) is not before until")) }
            return .success(.apple(.fetchNotifications(start: since, end: until, environment: environment())))
        default:
            return nil
        }
    }

    /// "2026-11-01" (midnight UTC) or a full RFC 3339 time.
    static func date(_ text: String) -> Date? {
        guard !text.isEmpty else { return nil }
        return RFC3339.parse(text) ?? RFC3339.parse(text + "T00:00:00Z")
    }
}

/// One subscription an offer can be signed for: its product, the purchase (original transaction)
/// the signature ties the offer to, and what the choice says (with the win-back offers Apple says
/// the customer may redeem).
struct OfferChoice: Equatable, Sendable {
    let productId: String
    let originalTransactionId: String
    let label: String
}
