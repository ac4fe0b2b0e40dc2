import Foundation
import PurchaseStore
import ReceiptCore

/// Builds the confirmation of a change: exactly what will be written, read from the database
/// as it is now (a restore is a dry run of the real operation). Durations become the exact end
/// date here, so what is applied is what was shown.
enum ChangePreview {
    static func confirmation(_ change: PendingChange, ledger: PurchaseLedger, operatorName: String, now: Date,
                             appleLabel: String = "Apple") throws -> Confirmation {
        switch change {
        case .apple(let request):
            return try ApplePreview.prepare(request, ledger: ledger, now: now).0
        case .reverify(let receipts, let customers, _):
            return try ReverifyPreview.confirmation(receipts: receipts, customers: customers, ledger: ledger, appleLabel: appleLabel)
        case .many(let changes):
            // One preview of every change: each checked as it would be alone (the first refusal names its customer).
            var fixed: [PendingChange] = []
            var lines: [StyledLine] = [[Span("\(changes.count) changes, one per tagged customer, applied together (all or none), each once:", .bold)], []]
            for change in changes {
                let each = try confirmation(change, ledger: ledger, operatorName: operatorName, now: now)
                fixed.append(each.change)
                lines += each.lines.prefix(2)
            }
            lines += [[], [Span("Writes: ", .muted), Span("\(changes.count) × what one writes, each with its own audit entry, in one transaction")]]
            return Confirmation(change: .many(fixed), title: "\(changes.first?.name.capitalized ?? "Change"): confirm for \(changes.count) customers",
                                lines: lines)
        case .grant(let customer, let entitlement, let end, let reason):
            let until: Date?
            switch end {
            case .forever: until = nil
            case .date(let date): until = date
            case .duration(let duration): until = duration.adding(to: now)
            }
            // The end exactly as the ledger will store it, or its refusal, before anything is shown.
            let storedUntil: Date?
            do { storedUntil = try PurchaseLedger.grantEnd(until, now: now) } catch let error as StoreError { throw ConsoleFailure(error.reason) }
            let known = Set(ledger.configuration.products.values.map(\.entitlement))
            if !known.isEmpty && !known.contains(entitlement) && ledger.configuration.paidToFree?.entitlement != entitlement {
                throw ConsoleFailure("entitlement \(entitlement) is not in the catalogue (\(known.sorted().joined(separator: ", ")))")
            }
            let summary = try ledger.customerSummary(customer)
            if let open = summary.grants.first(where: { $0.entitlement == entitlement && $0.revokedAt == nil && ($0.endsAt.map { $0 > now } ?? true) }) {
                throw ConsoleFailure("\(customer) already has grant #\(open.grantId) of \(entitlement) (\(open.endsAt.map { "until " + ConsoleFormat.dateTime($0) } ?? "forever"), by \(open.grantedBy)): revoke it first")
            }
            let current = summary.entitlements.first { $0.name == entitlement }
            let lines: [StyledLine] = [
                [Span("Grant ", .bold), Span(entitlement, CellStyle(.accent, bold: true)), Span(" to customer ", .bold), Span(customer, .bold)],
                [Span("  from now (\(ConsoleFormat.dateTime(now)) UTC) "),
                 Span(storedUntil.map { "until \(ConsoleFormat.dateTime($0)) UTC" } ?? "forever (no end)", CellStyle(bold: true))],
                [Span("  reason: ", .muted), Span("\"\(reason)\"")],
                [],
                [Span("Today: ", .muted), Span(current.map { $0.isActive ? "\(entitlement) is held: \($0.reason)" : "\(entitlement) is not held: \($0.reason)" }
                    ?? "\(customer) has never held \(entitlement)")],
                [Span("Writes: ", .muted), Span("one manual grant by \(operatorName); \(customer)'s entitlements recomputed; one audit entry \"grant\"")],
            ]
            return Confirmation(change: .grant(customer: customer, entitlement: entitlement, end: storedUntil.map { .date($0) } ?? .forever, reason: reason),
                                title: "Grant: confirm", lines: lines)
        case .revoke(let customer, let target, let reason):
            let summary = try ledger.customerSummary(customer)
            var lines: [StyledLine] = []
            switch target {
            case .grant(let id):
                guard let grant = summary.grants.first(where: { $0.grantId == id }) else { throw ConsoleFailure("grant #\(id) not found for \(customer)") }
                lines.append([Span("Revoke grant #\(id) ", .bold), Span(grant.entitlement, CellStyle(.accent, bold: true)),
                              Span(" of customer \(customer)", .bold)])
                lines.append([Span("  granted \(ConsoleFormat.dateTime(grant.startsAt)) by \(grant.grantedBy) " + (grant.endsAt.map { "until " + ConsoleFormat.dateTime($0) } ?? "forever"), .muted)])
            case .entitlement(let name):
                guard let state = summary.entitlements.first(where: { $0.name == name }), state.isActive else {
                    throw ConsoleFailure("\(customer) does not hold \(name): nothing to revoke")
                }
                let grants = summary.grants.filter { $0.entitlement == name && $0.revokedAt == nil }.map { "#\($0.grantId)" }
                let purchases = state.sources.filter { $0.isActive && $0.kind != .manual }.count
                lines.append([Span("Revoke ", .bold), Span(name, CellStyle(.accent, bold: true)), Span(" from customer \(customer), however it is held", .bold)])
                lines.append([Span("  open grants revoked: " + (grants.isEmpty ? "none" : grants.joined(separator: ", ")))])
                lines.append([Span("  purchase sources suppressed from now on: \(purchases)")])
            }
            lines += [[Span("  reason: ", .muted), Span("\"\(reason)\"")], [],
                      [Span("Writes: ", .muted), Span("the revocation by \(operatorName); \(customer)'s entitlements recomputed; one audit entry \"revoke\"")]]
            return Confirmation(change: change, title: "Revoke: confirm", lines: lines)
        case .restore(let customer, let from, let ids, let receipt, let reason, let consumables):
            let bytes = try receipt.map(ArtefactReader.bytes)
            let result = try ledger.restore(customer: customer, fromCustomer: from, transactionIds: ids, receipt: bytes, reason: reason,
                                            operatorName: operatorName, includeConsumables: consumables, dryRun: true)
            guard !result.movedTransactions.isEmpty || !result.importedTransactions.isEmpty else {
                let left = result.consumablesLeft.count
                throw ConsoleFailure("nothing to restore to \(customer): " + (left == 0 ? "no transaction would move"
                    : "only \(Plural.of(left, "consumable purchase")), which Apple does not restore (choose \"move too\" to move them anyway)"))
            }
            var lines: [StyledLine] = [[Span("Restore purchases to customer \(customer)", .bold)],
                                       [Span("  would move \(Plural.of(result.movedTransactions.count, "transaction")):")]]
            for move in result.movedTransactions.prefix(12) { lines.append([Span("    \(move.transactionId)  from \(move.fromCustomer)")]) }
            if result.movedTransactions.count > 12 { lines.append([Span("    … \(result.movedTransactions.count - 12) more", .muted)]) }
            if !result.importedTransactions.isEmpty {
                lines.append([Span("  would import \(Plural.of(result.importedTransactions.count, "transaction")) never seen before from the receipt")])
            }
            if !result.consumablesLeft.isEmpty {
                lines.append([Span("  leaves \(Plural.of(result.consumablesLeft.count, "consumable purchase")) with \(result.consumablesLeft.count == 1 ? "its" : "their") owner: Apple does not restore consumables, and moving one lets it be spent twice", .muted)])
            }
            var followUp: [StyledLine]?
            if result.consumablesMoved > 0 {
                lines.append([Span("  ⚠ includes \(Plural.of(result.consumablesMoved, "consumable purchase"))", CellStyle(.warning, bold: true))])
                followUp = [[Span("Move \(Plural.of(result.consumablesMoved, "consumable purchase")) to \(customer) as well?", CellStyle(.warning, bold: true))],
                            [Span("  Apple does not restore consumables. If the old account already spent them, they will be spent twice.")],
                            [], [Span("y moves them too · n cancels: nothing changes", .muted)]]
            }
            lines += [[Span("  reason: ", .muted), Span("\"\(reason)\"")], [],
                      [Span("Writes: ", .muted), Span("ownership moves; both customers' entitlements recomputed; audit entries \"restore\" and \"transfer-out\"")]]
            return Confirmation(change: .restore(customer: customer, fromCustomer: from, transactionIds: ids, receipt: bytes.map { .bytes($0) },
                                                 reason: reason, includeConsumables: consumables),
                                title: "Restore: preview", lines: lines, followUp: followUp)
        case .resolve(let id, let owner, let reason):
            guard let conflict = try Browser(ledger.database).conflict(id) else { throw ConsoleFailure("conflict #\(id) not found") }
            let moves = owner != conflict.ownerCustomerId
            let lines: [StyledLine] = [
                [Span("Resolve conflict #\(id): transaction \(conflict.transactionId) belongs to ", .bold), Span(owner, CellStyle(.accent, bold: true))],
                [Span(moves ? "  it moves from \(conflict.ownerCustomerId) to \(owner)" : "  it stays with \(owner); \(conflict.claimantCustomerId)'s claim is closed")],
                [Span("  reason: ", .muted), Span("\"\(reason)\"")], [],
                [Span("Writes: ", .muted), Span("the conflict resolved by \(operatorName); both customers' entitlements recomputed; one audit entry \"conflict-resolve\"")],
            ]
            return Confirmation(change: change, title: "Resolve: confirm", lines: lines)
        case .erase(let customer, let reason):
            return try SupportPreview.erase(customer, reason: reason, ledger: ledger, operatorName: operatorName)
        case .grantBatch(let query, let tagged, let entitlement, let end, let reason):
            return try SupportPreview.grantBatch(query: query, tagged: tagged, entitlement: entitlement, end: end, reason: reason, ledger: ledger, now: now)
        case .note(let customer, let text):
            guard try ledger.customerExists(customer) else { throw ConsoleFailure("no customer \(customer)") }
            let lines: [StyledLine] = [
                [Span("Add a note on customer ", .bold), Span(customer, CellStyle(.accent, bold: true))],
                [Span("  \"\(text)\"")],
                [Span("  shown to the whole team, in the customer view and the case file", .muted)],
                [],
                [Span("Writes: ", .muted), Span("one note by \(operatorName); one audit entry \"customer-note\" (its length and a keyed digest, not the text)")],
            ]
            return Confirmation(change: change, title: "Note: confirm", lines: lines)
        case .importArtefact(let customer, let input, let orderId, let create):
            // A typo must not make a new customer: an unknown id is refused with the closest
            // existing ones, unless the form says to create it.
            let exists = try ledger.customerExists(customer)
            if !exists && !create {
                let near = try Browser(ledger.database).closestCustomers(to: customer)
                throw ConsoleFailure("no customer \(customer)" + (near.isEmpty ? "" : ": did you mean \(near.joined(separator: ", "))?")
                                     + " To create \(customer), set New customer to yes")
            }
            let bytes = try ArtefactReader.bytes(input)
            let artefact = try ReceiptDecoder.decode(bytes)
            let verdict = ledger.verifier.verify(artefact)
            let summary = artefact.summary
            var lines: [StyledLine] = [[Span("Import a \(artefact.format.displayName) for customer \(customer)", .bold)],
                                       [Span("  "), ConsoleFormat.badge(summary.environment.environment), Span("  "),
                                        ConsoleFormat.verdict(verdict.status.rawValue), Span("  " + DisplayWidth.truncate(verdict.reason, to: 50), .muted)]]
            for purchase in summary.purchases.prefix(10) {
                let id = purchase.transactionId ?? "?"
                let owner = try ledger.transaction(id)?.customerId
                let note = owner == nil ? "new" : owner == customer ? "already recorded for \(customer)" : "owned by \(owner ?? "?"): opens a conflict"
                lines.append([Span("    \(id)  \(purchase.productId ?? "?")  "), Span(note, owner == nil ? CellStyle(.ok) : CellStyle(.warning))])
            }
            if summary.purchases.isEmpty {
                lines.append([Span("  ⚠ " + TreeWarning.emptyPurchaseList.message, CellStyle(.warning))])
            }
            if let orderId { lines.append([Span("  order: \(orderId)")]) }
            if !exists { lines.append([Span("  creates customer \(customer)", CellStyle(.warning, bold: true))]) }
            lines += [[], [Span("Writes: ", .muted), Span(verdict.isValid ? "the receipt once, new transactions, entitlements recomputed, one audit entry \"import\""
                                                                           : "the receipt, flagged \(verdict.status.rawValue): it grants nothing")]]
            return Confirmation(change: .importArtefact(customer: customer, input: .bytes(bytes), orderId: orderId, createCustomer: create),
                                title: "Import: preview", lines: lines)
        }
    }
}

/// Turns form input into artefact bytes: an existing file's content when the text is a path,
/// else the text itself (a pasted receipt, JWS or JSON).
enum ArtefactReader {
    static func bytes(_ input: ArtefactInput) throws -> [UInt8] {
        switch input {
        case .bytes(let bytes): return bytes
        case .text(let text):
            let path = (text as NSString).expandingTildeInPath
            // Receipts, JWS and JSON never start like a path, and are long; paths are short.
            let looksLikePath = (text.hasPrefix("/") || text.hasPrefix("~") || text.hasPrefix("./") || text.hasPrefix("../"))
                && text.count < 1024 && !text.contains(where: \.isWhitespace)
            guard looksLikePath else { return Array(text.utf8) }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw ConsoleFailure("\(text): no such file") }
            guard !isDirectory.boolValue else { throw ConsoleFailure("\(text) is a folder, not a file") }
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)  // size check only; read errors surface below
            if let size = attributes?[.size] as? Int, size > ReceiptDecoder.maxInputSize {
                throw ConsoleFailure("\(text) is over the \(ReceiptDecoder.maxInputSize / 1024 / 1024) MiB input limit")
            }
            guard let data = FileManager.default.contents(atPath: path) else { throw ConsoleFailure("\(text) cannot be read") }
            return Array(data)
        }
    }
}
