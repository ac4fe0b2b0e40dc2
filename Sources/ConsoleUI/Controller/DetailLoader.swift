import Foundation
import PurchaseStore
import ReceiptCore

/// Reads what the detail pane shows for one target: a few indexed lookups, and for a receipt
/// its stored bytes decoded and verified by the core (the verdict at the artefact's own time).
enum DetailLoader {
    static func load(_ target: DetailTarget, ledger: PurchaseLedger, now: Date) -> DetailModel {
        let browser = Browser(ledger.database)
        do {
            switch target {
            case .customer(let id):
                guard try browser.customerExists(id) else { return .empty("customer \(id) not found") }
                return .customer(CustomerDetail(summary: try ledger.customerSummary(id),
                                                attempts: try browser.verificationAttempts(customer: id),
                                                revocations: try browser.revocations(customer: id),
                                                transfers: try ledger.transfers(of: id), arrivals: try ledger.arrivals(of: id),
                                                apple: try ledger.appleSide(of: id)))
            case .order(let id):
                guard let order = try ledger.order(id) else { return .empty("order \(id) not found") }
                return .order(OrderDetail(order: order, transaction: try order.transactionId.flatMap { try ledger.transaction($0) }))
            case .transaction(let id):
                guard let record = try ledger.transaction(id) else { return .empty("transaction \(id) not found") }
                var filter = BrowseFilter()
                filter.fields = [BrowseFilter.FieldMatch(field: .tx, value: id)]
                let conflicts = try browser.page(.conflicts, filter: filter, cursor: .first, limit: 20).rows.compactMap { row -> ConflictRecord? in
                    if case .conflict(_, let c) = row { return c } else { return nil }
                }
                return .transaction(TransactionDetail(record: record, order: try record.orderId.flatMap { try ledger.order($0) },
                                                      receipt: try browser.receipt(record.firstReceiptId)?.record, conflicts: conflicts,
                                                      arrivals: record.repeatArrivals > 0 ? try ledger.arrivals(ofTransaction: id) : []))
            case .receipt(let id):
                guard let stored = try browser.receipt(id) else { return .empty("receipt #\(id) not found") }
                return .receipt(decode(stored, ledger: ledger, now: now))
            case .conflict(let id):
                guard let conflict = try browser.conflict(id) else { return .empty("conflict #\(id) not found") }
                return .conflict(ConflictDetail(conflict: conflict, transaction: try ledger.transaction(conflict.transactionId),
                                                ownerEntitlements: try ledger.entitlements(conflict.ownerCustomerId, now: now),
                                                claimantEntitlements: try ledger.entitlements(conflict.claimantCustomerId, now: now)))
            case .audit(let seq):
                guard let entry = try browser.auditEntry(seq) else { return .empty("audit entry #\(seq) not found") }
                return .audit(entry)
            }
        } catch {
            return .empty("\(target.title): \(ConsoleFailure(error).message)")
        }
    }

    /// The stored bytes through the core: decoded, verified, as a tree.
    static func decode(_ stored: StoredReceipt, ledger: PurchaseLedger, now: Date) -> ReceiptDetail {
        if let erased = stored.erasedAt {
            return ReceiptDetail(stored: stored, environment: nil, verdict: nil, tree: nil, purchases: [],
                                 decodeError: "its bytes were erased with the customer's personal data on \(ConsoleFormat.date(erased)); the transactions it recorded stay")
        }
        do {
            let artefact = try ReceiptDecoder.decode(stored.raw)
            let summary = artefact.summary
            var verdict = ledger.verifier.verify(artefact)
            if stored.revocationAtImport?.outcome == "revoked", verdict.isValid {
                // Offline the chain still verifies; its revocation, learnt at import, stands.
                verdict = Verdict(.invalid, stored.record.verdictReason, chain: verdict.chain, validationTime: verdict.validationTime,
                                  extraAnchor: verdict.extraAnchor)
            }
            var detail = ReceiptDetail(stored: stored, environment: summary.environment, verdict: verdict,
                                       tree: artefact.tree(now: now), purchases: summary.purchases, decodeError: nil)
            for id in summary.purchases.prefix(200).compactMap(\.transactionId) {
                if let record = try? ledger.transaction(id) { detail.recorded[id] = record }  // unreadable: shown as never recorded
            }
            detail.reverifications = (try? ledger.reverifications(ofReceipt: stored.record.receiptId)) ?? []  // unreadable: none shown
            if summary.purchases.isEmpty, let customer = stored.record.customerId,
               let states = try? ledger.entitlements(customer, now: now) {  // unreadable: the general advice shows
                detail.paidEra = states.flatMap(\.sources).filter { $0.kind == .legacyPaid && $0.isActive }.map(\.reason)
            }
            return detail
        } catch {
            return ReceiptDetail(stored: stored, environment: nil, verdict: nil, tree: nil, purchases: [],
                                 decodeError: ConsoleFailure(error).message)
        }
    }
}
