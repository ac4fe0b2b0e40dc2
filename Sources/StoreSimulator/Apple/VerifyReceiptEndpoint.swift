import Foundation
import ReceiptCore

/// `POST /production/verifyReceipt` and `POST /sandbox/verifyReceipt`, answering as Apple's
/// (deprecated) endpoint does. Request:
///
///     {"receipt-data":"MIIT…","password":"<shared secret>","exclude-old-transactions":true}
///
/// Checks, in order: the body is a JSON object (else 21000; any method but POST also gets
/// 21000), `receipt-data` is base64 of a unified or iOS 6 receipt (else 21002), the receipt is
/// signed by the simulator's own authority (else 21003), it belongs to this endpoint's
/// environment (a sandbox receipt on production → 21007, the reverse → 21008), `password`
/// matches the shared secret when one is set (else 21004). Then status 0:
///
///     {"status":0,"environment":"Sandbox","receipt":{…,"in_app":[…]},
///      "latest_receipt_info":[…newest first…],"latest_receipt":"MIIT…",
///      "pending_renewal_info":[…],"is-retryable":false}
///
/// `latest_receipt_info` holds every transaction the simulator knows for the receipt's original
/// transactions (renewals, refunds with `cancellation_date` and `cancellation_reason`), plus any
/// in the receipt it never issued; with `exclude-old-transactions` only the newest transaction
/// of each subscription is kept. Unlike Apple it is sent for every receipt, not only those with
/// subscriptions, so refunds of one-time purchases show too.
struct VerifyReceiptEndpoint {
    let state: SimulatorState
    /// The trust store over the simulator's authority (built once: it caches verified chains).
    let trust: TrustStore
    let environment: SimulatorEnvironment
    let now: Date

    func answer(_ request: HTTPServerRequest) -> HTTPServerResponse {
        .json(200, body(request))
    }

    /// A failure answer: `{"status":N,"environment":"…","is-retryable":false}`.
    func status(_ code: Int64) -> JSONValue {
        .object([("status", .int(code)), ("environment", .string(environment.rawValue)), ("is-retryable", .bool(false))])
    }

    private enum Decoded {
        case unified(AppReceipt)
        case legacy(LegacyReceipt)
    }

    func body(_ request: HTTPServerRequest) -> JSONValue {
        guard request.method == "POST" else { return status(21000) }
        let object: JSONObject
        do {
            object = try JSONObject(parsing: request.body, what: "verifyReceipt request")
        } catch {
            return status(21000)
        }
        let receiptData: String
        let decoded: Decoded
        do {
            guard let text = try object.string("receipt-data"), !text.isEmpty else { return status(21002) }
            let bytes = try Base64.decode(text, "receipt-data")
            switch bytes.first {
            case 0x30: decoded = .unified(try AppReceipt(derEncoded: bytes))
            case UInt8(ascii: "{"): decoded = .legacy(try LegacyReceipt(plistBytes: bytes))
            default: return status(21002)
            }
            receiptData = text
        } catch {
            return status(21002)
        }
        let verifier = ReceiptVerifier(trust: trust)
        let artefact: DecodedArtefact
        let receiptEnvironment: Environment
        switch decoded {
        case .unified(let receipt):
            artefact = .unified(receipt)
            receiptEnvironment = receipt.environment.environment
        case .legacy(let receipt):
            artefact = .legacy(receipt)
            receiptEnvironment = receipt.environment.environment
        }
        guard verifier.verify(artefact).isValid else { return status(21003) }
        switch (receiptEnvironment, environment) {
        case (.sandbox, .production): return status(21007)
        case (.production, .sandbox): return status(21008)
        case (.production, .production), (.sandbox, .sandbox): break
        default: return status(21003)  // Xcode or unknown receipts: Apple cannot vouch for them
        }
        if let secret = state.sharedSecret {
            let password: String?
            do { password = try object.string("password") } catch { return status(21004) }
            guard let password, Self.constantTimeEqual(password, secret) else { return status(21004) }
        }
        let exclude: Bool
        do { exclude = try object.bool("exclude-old-transactions") ?? false } catch { return status(21000) }
        return success(decoded, receiptData: receiptData, excludeOld: exclude)
    }

    private func success(_ decoded: Decoded, receiptData: String, excludeOld: Bool) -> JSONValue {
        let records = state.snapshot()
        let receiptJSON: JSONValue
        let inReceipt: [(purchase: Purchase, isSubscription: Bool)]
        switch decoded {
        case .unified(let receipt):
            receiptJSON = VerifyReceiptJSON.receipt(receipt, requestDate: now)
            inReceipt = receipt.inApp.map { ($0.purchase, $0.productTypeCode == 3 || $0.expiresDate != nil) }
        case .legacy(let receipt):
            receiptJSON = VerifyReceiptJSON.receipt(receipt)
            inReceipt = [(receipt.purchase, receipt.expiresDate != nil)]
        }
        let originals = Set(inReceipt.compactMap { $0.purchase.originalTransactionId ?? $0.purchase.transactionId })
        let known = records.transactions(originals: originals, in: environment)
        let knownIds = Set(known.map(\.transactionId))
        var entries: [(date: Date, original: String, isSubscription: Bool, json: JSONValue)] = known.map { transaction in
            (transaction.purchaseDate, transaction.originalTransactionId, transaction.productType == .autoRenewable,
             VerifyReceiptJSON.entry(transaction))
        }
        for (purchase, isSubscription) in inReceipt where !knownIds.contains(purchase.transactionId ?? "") {
            let original = purchase.originalTransactionId ?? purchase.transactionId ?? ""
            entries.append((purchase.purchaseDate ?? .distantPast, original, isSubscription, VerifyReceiptJSON.entry(purchase)))
        }
        entries.sort { $0.date > $1.date }
        if excludeOld {
            var seen = Set<String>()
            entries = entries.filter { !$0.isSubscription || seen.insert($0.original).inserted }
        }
        var subscriptionOriginals: [String] = []
        for entry in entries where entry.isSubscription && !subscriptionOriginals.contains(entry.original) {
            subscriptionOriginals.append(entry.original)
        }
        var members: [(String, JSONValue)] = [
            ("status", .int(0)),
            ("environment", .string(environment.rawValue)),
            ("receipt", receiptJSON),
            ("latest_receipt_info", .array(entries.map(\.json))),
        ]
        if case .unified = decoded { members.append(("latest_receipt", .string(receiptData))) }
        let pending = subscriptionOriginals.compactMap { VerifyReceiptJSON.pendingRenewal(original: $0, records: records) }
        if !pending.isEmpty { members.append(("pending_renewal_info", .array(pending))) }
        members.append(("is-retryable", .bool(false)))
        return .object(members)
    }

    /// Compares without stopping at the first difference.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<min(x.count, y.count) { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}
