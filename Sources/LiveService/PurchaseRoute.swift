import Foundation
import PurchaseStore
import ReceiptCore

/// `POST /v1/purchases`: what the app's server sends right after StoreKit's callback.
///
///     {"customer": "ada", "orderId": "o-1", "applicationUsername": "…" | "appAccountToken": "…",
///      "receipt": "MIIT…" | "signedTransactions": ["eyJ…", …]}
///
/// Each artefact is imported exactly as `receiptdesk import` would (same core, same ledger
/// path, committed with whatever else arrived meanwhile); the answer is each artefact's result
/// as `import --json` prints it and what the customer is entitled to now.
extension ServeService {
    struct PurchaseRequest {
        let customer: String
        let orderId: String?
        let applicationUsername: String?
        let artefacts: [[UInt8]]
    }

    /// `client` is the token's name; `peer` who sent it ("203.0.113.9 via 127.0.0.1:40112" behind
    /// a trusted proxy), named in the audit entry's source beside the client.
    func purchase(_ request: ServeRequest, client: String, peer: String?) -> ServeResponse {
        let parsed: PurchaseRequest
        do {
            parsed = try Self.parsePurchase(request.body)
        } catch let refusal as ServeRefusal {
            metrics.count(outcome: "refused")
            return refusal.response
        } catch {
            metrics.count(outcome: "refused")
            return ServeErrors.response(error, where: "body")
        }
        let items = parsed.artefacts.map {
            PurchaseLedger.ImportItem(bytes: $0, customer: parsed.customer, orderId: parsed.orderId,
                                      applicationUsername: parsed.applicationUsername,
                                      source: peer.map { "serve \(client) from \($0)" } ?? "serve \(client)")
        }
        let outcomes = queue.importArtefacts(items, operatorName: "serve-\(client)")
        var results: [JSONValue] = []
        var firstFailure: (Int, Error)?
        for (index, outcome) in outcomes.enumerated() {
            switch outcome {
            case .success(let result):
                for report in result.transactions { metrics.count(outcome: Self.outcomeName(report.outcome)) }
                if !result.verdict.isValid { metrics.count(outcome: "refused") }
                results.append(.object([("artefact", .int(Int64(index)))] + LedgerJSON.importResult(result)))
            case .failure(let error):
                metrics.count(outcome: "refused")
                if firstFailure == nil { firstFailure = (index, error) }
                let (status, code) = ServeErrors.status(error)
                results.append(.object([("artefact", .int(Int64(index))), ("error", .object([
                    ("status", .int(Int64(status))), ("code", .string(code)), ("message", .string(ServeErrors.message(error))),
                ]))]))
            }
        }
        let held = (try? reader.run { try $0.entitlements(parsed.customer, now: Date()) }) ?? []
        let body = JSONValue.object([("customer", .string(parsed.customer)), ("results", .array(results)),
                                     ("entitlements", .array(held.map(LedgerJSON.entitlement)))])
        guard let (index, error) = firstFailure else { return .json(200, body) }
        let (status, _) = ServeErrors.status(error)
        // Every artefact failed alike (the database is busy): the client sends it all again.
        return .json(status, body, headers: status == 503 ? [("Retry-After", "1")] : []).withErrorNote(index)
    }

    static func outcomeName(_ outcome: ImportResult.TransactionOutcome) -> String {
        switch outcome {
        case .recorded: return "new"
        case .duplicate: return "duplicate"
        case .conflict: return "conflict"
        }
    }

    /// The request body, checked member by member.
    static func parsePurchase(_ body: [UInt8]) throws -> PurchaseRequest {
        guard !body.isEmpty else { throw ServeRefusal(400, "emptyBody", "the body is empty: send a JSON object", where: "body") }
        let object: JSONObject
        do {
            object = try JSONObject(parsing: body, what: "request body")
        } catch {
            throw ServeRefusal(400, "malformedJSON", ServeErrors.message(error), where: "body")
        }
        let known: Set<String> = ["customer", "orderId", "applicationUsername", "appAccountToken", "receipt", "signedTransactions"]
        if let unknown = object.values.keys.filter({ !known.contains($0) }).sorted().first {
            throw ServeRefusal(400, "unknownMember", "unknown member \(unknown) (known: \(known.sorted().joined(separator: ", ")))", where: "body.\(unknown)")
        }
        func text(_ key: String) throws -> String? {
            do { return try object.string(key) } catch { throw ServeRefusal(400, "badMember", ServeErrors.message(error), where: "body.\(key)") }
        }
        guard let customer = try text("customer"), !customer.isEmpty else {
            throw ServeRefusal(400, "missingMember", "customer is required (the merchant's id for the buyer)", where: "body.customer")
        }
        let username = try text("applicationUsername"), token = try text("appAccountToken")
        if let username, let token, username.lowercased() != token.lowercased() {
            throw ServeRefusal(400, "badMember", "applicationUsername and appAccountToken differ: send the one the app set", where: "body.appAccountToken")
        }
        var artefacts: [[UInt8]] = []
        if let receipt = try text("receipt") {
            guard !receipt.isEmpty else { throw ServeRefusal(400, "badMember", "receipt is empty", where: "body.receipt") }
            artefacts.append(Array(receipt.utf8))
        }
        if object.has("signedTransactions") {
            let signed: [String]
            do { signed = try object.strings("signedTransactions", limit: maxArtefacts) } catch {
                throw ServeRefusal(400, "badMember", ServeErrors.message(error), where: "body.signedTransactions")
            }
            artefacts += signed.map { Array($0.utf8) }
        }
        guard !artefacts.isEmpty else {
            throw ServeRefusal(400, "missingMember", "send a receipt (base64) or signedTransactions (compact JWS)", where: "body")
        }
        guard artefacts.count <= maxArtefacts else {
            throw ServeRefusal(413, "tooManyArtefacts", "at most \(maxArtefacts) artefacts in one request", where: "body.signedTransactions")
        }
        return PurchaseRequest(customer: customer, orderId: try text("orderId"), applicationUsername: username ?? token, artefacts: artefacts)
    }
}

extension ServeResponse {
    /// The same response, its `X-Receiptdesk-Failed-Artefact` header naming the first artefact
    /// that failed (the body says why for each).
    func withErrorNote(_ index: Int) -> ServeResponse {
        var copy = self
        copy.headers.append(("X-Receiptdesk-Failed-Artefact", String(index)))
        return copy
    }
}
