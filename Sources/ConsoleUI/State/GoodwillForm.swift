import Foundation
import PurchaseStore
import ReceiptCore

/// The goodwill form (B): for the tagged customers when rows are tagged (Space), else for every
/// customer the filter finds, either a grant here (one audited batch) or an extension of each
/// one's subscriptions at Apple (`planRenewalExtensionBatch`, then `extendBatch` off the screen's
/// thread). One preview either way: who gets what, who is left out and why.
enum GoodwillForm {
    /// The "Do" choice's options, in order.
    static let actions = ["grant locally (an entitlement here)", "extend at Apple (each subscription's renewal date)"]

    /// Opens the form for the tagged customers, or the filter's; refuses with neither.
    static func open(_ state: inout ConsoleState) -> [ConsoleEffect] {
        let tagged = state.taggedCustomers
        guard !tagged.isEmpty || !state.filter.isEmpty else {
            state.message = StatusMessage(text: "grant-batch: filter the customers first (/), or tag them (Space): the goodwill goes to every customer the filter finds, or to the tagged ones", kind: .error)
            return []
        }
        let entitlement: FormField.Kind = state.catalogueEntitlements.isEmpty ? .text(TextField()) : .choice(state.catalogueEntitlements, 0)
        state.mode = .form(FormState(kind: .grantBatch(query: state.filter.text, tagged: tagged), fields: [
            FormField(label: "Do", kind: .choice(actions, 0), hint: "← → grant here, or extend at Apple (Apple emails each customer; it cannot be undone)"),
            FormField(label: "Entitlement", kind: entitlement,
                      hint: "grant: " + (state.catalogueEntitlements.isEmpty ? "the catalogue is empty: type a name" : "← → choose from the catalogue")),
            FormField(label: "Until", kind: .text(TextField()), hint: "grant: " + FormLogic.untilHint),
            FormField(label: "Days", kind: .text(TextField()), hint: "at Apple: " + AppleForms.daysHint),
            FormField(label: "Reason code", kind: .choice(AppleForms.reasonCodeOptions, 3), hint: "at Apple: ← → Apple's reason code (sent to Apple)"),
            FormField(label: "Reason", kind: .text(TextField()), hint: FormLogic.reasonHint),
        ]))
        return []
    }

    /// The change a filled-in goodwill form asks for (the reason was checked before).
    static func submit(_ form: FormState, query: String, tagged: [String], reason: String, now: Date) -> Result<PendingChange, ConsoleFailure> {
        guard form.choiceIndex("Do") == 1 else {
            let entitlement = form.value("Entitlement")
            guard !entitlement.isEmpty else { return .failure(ConsoleFailure("choose an entitlement")) }
            return FormLogic.parseEnd(form.value("Until"), now: now).map {
                .grantBatch(query: query, customers: tagged.isEmpty ? nil : tagged, entitlement: entitlement, end: $0, reason: reason)
            }
        }
        let text = form.value("Days")
        guard let days = Int(text) else {
            return .failure(ConsoleFailure(text.isEmpty ? "say by how many days Apple extends each (1–90)" : "days '\(text.prefix(20))' is not a whole number"))
        }
        let options = AppleExtendReasons.all
        let index = form.choiceIndex("Reason code")
        let code = options.indices.contains(index) ? options[index].code : 0
        return .success(.apple(.extendBatch(query: query, customers: tagged, days: days, reasonCode: code, reason: reason)))
    }
}
