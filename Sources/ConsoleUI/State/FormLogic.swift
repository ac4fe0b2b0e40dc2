import Foundation
import PurchaseStore
import ReceiptCore

/// The forms of the changing actions: what each asks, how keys edit it, and the checks before a
/// change is previewed (the ledger checks again when it applies it).
enum FormLogic {
    static let untilHint = "empty: forever · a date 2026-12-31 · a duration P30D, P1M, P1Y"
    static let reasonHint = "required: why (it goes in the audit log)"

    /// Opens the form of `command` for the selected customer or conflict.
    static func open(_ state: inout ConsoleState, _ command: Command) -> [ConsoleEffect] {
        let customer = state.selectedCustomer
        func needCustomer() -> Bool {
            guard customer == nil else { return true }
            state.message = StatusMessage(text: "\(command.rawValue): select a customer (or something of theirs) first", kind: .error)
            return false
        }
        switch command {
        case .grant:
            let tagged = state.taggedCustomers
            guard !tagged.isEmpty || needCustomer(), let customer = tagged.first ?? customer else { return [] }
            let entitlement: FormField.Kind = state.catalogueEntitlements.isEmpty
                ? .text(TextField()) : .choice(state.catalogueEntitlements, 0)
            state.mode = .form(FormState(kind: tagged.count > 1 ? .grantMany(customers: tagged) : .grant(customer: customer), fields: [
                FormField(label: "Entitlement", kind: entitlement,
                          hint: state.catalogueEntitlements.isEmpty ? "the catalogue is empty: type a name" : "← → choose from the catalogue"),
                FormField(label: "Until", kind: .text(TextField()), hint: untilHint),
                FormField(label: "Reason", kind: .text(TextField()), hint: reasonHint),
            ]))
        case .revoke:
            let tagged = state.taggedCustomers
            if tagged.count > 1 {
                // One entitlement, named here, revoked from each tagged customer once.
                let entitlement: FormField.Kind = state.catalogueEntitlements.isEmpty
                    ? .text(TextField()) : .choice(state.catalogueEntitlements, 0)
                state.mode = .form(FormState(kind: .revokeMany(customers: tagged), fields: [
                    FormField(label: "Entitlement", kind: entitlement,
                              hint: (state.catalogueEntitlements.isEmpty ? "the catalogue is empty: type a name" : "← → choose from the catalogue")
                                  + "; each tagged customer must hold it"),
                    FormField(label: "Reason", kind: .text(TextField()), hint: reasonHint),
                ]))
                return []
            }
            guard !tagged.isEmpty || needCustomer() else { return [] }
            return [.prepareForm(.revoke, customer: tagged.first ?? customer)]
        case .restore:
            guard needCustomer(), let customer else { return [] }
            state.mode = .form(FormState(kind: .restore(customer: customer), fields: [
                FormField(label: "From customer", kind: .text(TextField()), hint: "the old account whose purchases move here"),
                FormField(label: "Transactions", kind: .text(TextField()), hint: "optional: only these ids (space separated)"),
                FormField(label: "Or receipt", kind: .text(TextField()), hint: "instead: paste a receipt, or a file path"),
                FormField(label: "Consumables", kind: .choice(["stay with their owner (Apple does not restore them)", "move too (asks again)"], 0),
                          hint: "← → moving a consumable lets it be spent twice"),
                FormField(label: "Reason", kind: .text(TextField()), hint: reasonHint),
            ]))
        case .resolve:
            guard case .conflict(let detail) = state.detail.model, state.detail.target == .conflict(detail.conflict.conflictId) else {
                state.message = StatusMessage(text: "resolve: select a conflict on the Conflicts tab first", kind: .error)
                return []
            }
            let c = detail.conflict
            guard c.status == "open" else {
                state.message = StatusMessage(text: "conflict #\(c.conflictId) is already resolved (owner \(c.resolvedOwner ?? "?"))", kind: .error)
                return []
            }
            state.mode = .form(FormState(kind: .resolve(conflictId: c.conflictId, owner: c.ownerCustomerId, claimant: c.claimantCustomerId), fields: [
                FormField(label: "Owner", kind: .choice(["\(c.ownerCustomerId) (keeps it)", "\(c.claimantCustomerId) (claimant)"], 0),
                          hint: "← → choose who owns transaction \(c.transactionId)"),
                FormField(label: "Reason", kind: .text(TextField()), hint: reasonHint),
            ]))
        case .importArtefact:
            state.mode = .form(FormState(kind: .importArtefact, fields: [
                FormField(label: "Customer", kind: .text(TextField(customer ?? "")), hint: "who presented it"),
                FormField(label: "Artefact", kind: .text(TextField()), hint: "paste base64 / JWS / JSON, or a file path"),
                FormField(label: "Order", kind: .text(TextField()), hint: "optional: the merchant order id"),
                FormField(label: "New customer", kind: .choice(["no: an existing customer", "yes: create them"], 0),
                          hint: "← → an unknown customer id is refused unless this says create"),
            ]))
        case .erase:
            guard needCustomer(), let customer else { return [] }
            state.mode = .form(FormState(kind: .erase(customer: customer), fields: [
                FormField(label: "Reason", kind: .text(TextField()), hint: "required: the customer's request and its ticket (it goes in the audit log)"),
            ]))
        case .grantBatch:
            return GoodwillForm.open(&state)
        case .note:
            guard needCustomer(), let customer else { return [] }
            state.mode = .form(FormState(kind: .note(customer: customer), fields: [
                FormField(label: "Note", kind: .text(TextField()),
                          hint: "one line for the whole team (\"called 12 May, promised a refund if Apple declines\"), at most 2000 bytes"),
            ]))
        default: break
        }
        return []
    }

    /// The revoke form, once the customer's entitlements and grants are known.
    static func revokeForm(customer: String, entitlements: [EntitlementState], grants: [GrantRecord]) -> FormState? {
        var options: [RevokeOption] = []
        var labels: [String] = []
        for grant in grants where grant.revokedAt == nil {
            options.append(.grant(grant.grantId))
            labels.append("grant #\(grant.grantId): \(grant.entitlement) \(grant.endsAt.map { "until " + ConsoleFormat.date($0) } ?? "forever")")
        }
        for state in entitlements where state.isActive {
            options.append(.entitlement(state.name))
            labels.append("\(state.name): however it is held (\(Plural.of(state.sources.filter(\.isActive).count, "source")))")
        }
        guard !options.isEmpty else { return nil }
        return FormState(kind: .revoke(customer: customer, options: options), fields: [
            FormField(label: "Revoke", kind: .choice(labels, 0), hint: "← → choose a grant or an entitlement"),
            FormField(label: "Reason", kind: .text(TextField()), hint: reasonHint),
        ])
    }

    /// Keys in a form (`ModeKeys`, remappable; by default): Tab / ↓ / ↑ move between fields, ← →
    /// choose, Enter goes on (submits on the last field), Esc closes it with nothing changed.
    static func handleKey(_ state: inout ConsoleState, _ form: FormState, _ key: KeyEvent) -> [ConsoleEffect] {
        var form = form
        form.error = nil
        let last = form.fields.count - 1
        let asked = form.discardAsked
        form.discardAsked = false
        // In a text field a printable character is text whatever it is bound to; choosing an option applies to a choice field.
        let focused = form.fields.indices.contains(form.focus) ? form.fields[form.focus].kind : nil
        var action = ModeKeys.action(for: key, in: .form, table: state.modeBindings)
        if case .text? = focused, case .character = key { action = nil }
        if case .text? = focused, action == .choosePrevious || action == .chooseNext { action = nil }
        switch action {
        case .cancel? where !asked && form.longestText >= FormState.longText:
            // A long paste is not thrown away by one key: say what cancelling would lose, and ask.
            form.discardAsked = true
            form.error = "\(ModeKeys.key(.cancel, in: .form, table: state.modeBindings)) again throws away this form and its \(form.longestText)-character text; any other key keeps it"
        case .cancel?:
            state.mode = .browse
            state.message = StatusMessage(text: "\(form.kind.title): cancelled, nothing changed", kind: .info)
            return []
        case .nextField?: form.focus = min(last, form.focus + 1)
        case .previousField?: form.focus = max(0, form.focus - 1)
        case .submit?:
            if form.focus < last {
                form.focus += 1
            } else {
                switch submit(form, now: state.now) {
                case .success(let change):
                    state.mode = .form(form)
                    return [.preview(change)]
                case .failure(let failure):
                    form.error = failure.message
                }
            }
        case .choosePrevious?, .chooseNext?:
            if case .choice(let options, let index)? = focused {
                let step = action == .choosePrevious ? options.count - 1 : 1
                form.fields[form.focus].kind = .choice(options, (index + step) % max(1, options.count))
            }
        default:
            guard form.fields.indices.contains(form.focus) else { break }
            switch form.fields[form.focus].kind {
            case .choice: break
            case .text(var field):
                let edit: KeyEvent
                if case .paste(let text) = key {
                    edit = .paste(Self.cleanPaste(text, into: form.fields[form.focus].label))
                } else {
                    edit = key
                }
                if field.edit(edit) { form.fields[form.focus].kind = .text(field) }
            }
        }
        state.mode = .form(form)
        return []
    }

    /// A paste as the field keeps it. Into a field for an artefact, base64 and JWS (as logs and
    /// emails wrap them) lose every space and line break, which are never part of them; JSON
    /// keeps its text. Elsewhere line breaks become spaces: a field holds one line.
    static func cleanPaste(_ text: String, into label: String) -> String {
        let artefactFields: Set<String> = ["Artefact", "Or receipt"]
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if artefactFields.contains(label), !trimmed.hasPrefix("{"), !trimmed.hasPrefix("/") {
            return String(trimmed.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) }.map(Character.init))
        }
        if artefactFields.contains(label) { return trimmed }
        return String(text.map { $0.isNewline ? " " : $0 })
    }

    /// The change a filled-in form asks for, or why it cannot be asked.
    static func submit(_ form: FormState, now: Date) -> Result<PendingChange, ConsoleFailure> {
        if let apple = AppleForms.submit(form, now: now) { return apple }
        let reason = form.value("Reason")
        let needsReason: Bool
        switch form.kind {
        case .importArtefact, .note: needsReason = false
        default: needsReason = true
        }
        if needsReason && reason.isEmpty {
            return .failure(ConsoleFailure("a reason is required: say why (it goes in the audit log); nothing changed"))
        }
        switch form.kind {
        case .grant(let customer):
            let entitlement = form.value("Entitlement")
            guard !entitlement.isEmpty else { return .failure(ConsoleFailure("choose an entitlement")) }
            switch parseEnd(form.value("Until"), now: now) {
            case .success(let end): return .success(.grant(customer: customer, entitlement: entitlement, end: end, reason: reason))
            case .failure(let failure): return .failure(failure)
            }
        case .grantMany(let customers):
            let entitlement = form.value("Entitlement")
            guard !entitlement.isEmpty else { return .failure(ConsoleFailure("choose an entitlement")) }
            switch parseEnd(form.value("Until"), now: now) {
            case .success(let end):
                return .success(.many(customers.map { .grant(customer: $0, entitlement: entitlement, end: end, reason: reason) }))
            case .failure(let failure): return .failure(failure)
            }
        case .revokeMany(let customers):
            let entitlement = form.value("Entitlement")
            guard !entitlement.isEmpty else { return .failure(ConsoleFailure("choose an entitlement")) }
            return .success(.many(customers.map { .revoke(customer: $0, target: .entitlement(entitlement), reason: reason) }))
        case .revoke(let customer, let options):
            let index = form.choiceIndex("Revoke")
            guard options.indices.contains(index) else { return .failure(ConsoleFailure("nothing to revoke")) }
            return .success(.revoke(customer: customer, target: options[index], reason: reason))
        case .restore(let customer):
            let from = form.value("From customer")
            let receipt = form.value("Or receipt")
            guard from.isEmpty != receipt.isEmpty else {
                return .failure(ConsoleFailure("give either the customer to restore from or a receipt, not both"))
            }
            let ids = form.value("Transactions").split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
            return .success(.restore(customer: customer, fromCustomer: from.isEmpty ? nil : from, transactionIds: ids,
                                     receipt: receipt.isEmpty ? nil : .text(receipt), reason: reason,
                                     includeConsumables: form.choiceIndex("Consumables") == 1))
        case .resolve(let conflictId, let owner, let claimant):
            return .success(.resolve(conflictId: conflictId, owner: form.choiceIndex("Owner") == 0 ? owner : claimant, reason: reason))
        case .importArtefact:
            let customer = form.value("Customer")
            let artefact = form.value("Artefact")
            guard !customer.isEmpty else { return .failure(ConsoleFailure("say which customer presented it")) }
            guard !artefact.isEmpty else { return .failure(ConsoleFailure("paste the artefact or give a file path")) }
            let order = form.value("Order")
            return .success(.importArtefact(customer: customer, input: .text(artefact), orderId: order.isEmpty ? nil : order,
                                            createCustomer: form.choiceIndex("New customer") == 1))
        case .erase(let customer):
            return .success(.erase(customer: customer, reason: reason))
        case .grantBatch(let query, let tagged):
            return GoodwillForm.submit(form, query: query, tagged: tagged, reason: reason, now: now)
        case .note(let customer):
            let text = form.value("Note")
            guard !text.isEmpty else { return .failure(ConsoleFailure("the note is empty: say what happened; nothing changed")) }
            guard text.utf8.count <= PurchaseLedger.noteMaxBytes else {
                return .failure(ConsoleFailure("the note is \(text.utf8.count) bytes, over the \(PurchaseLedger.noteMaxBytes) a note may hold"))
            }
            return .success(.note(customer: customer, text: text))
        case .extend, .setToken, .lookUpOrder, .consumption, .massExtend, .notifications, .offer:
            return .failure(ConsoleFailure("\(form.kind.title): not a form of this console"))  // AppleForms answered above
        }
    }

    /// "" (forever), a date (2026-12-31 or RFC 3339, in the future) or an ISO 8601 duration.
    static func parseEnd(_ text: String, now: Date) -> Result<GrantEnd, ConsoleFailure> {
        if text.isEmpty || text.lowercased() == "forever" { return .success(.forever) }
        if let duration = ISODuration(text.uppercased()), !duration.isZero { return .success(.duration(duration)) }
        if let date = RFC3339.parse(text) ?? RFC3339.parse(text + "T00:00:00Z") {
            guard date > now else { return .failure(ConsoleFailure("until \(text) is not in the future")) }
            return .success(.date(date))
        }
        return .failure(ConsoleFailure("until '\(text)' is neither a date (2026-12-31) nor a duration (P30D)"))
    }
}
