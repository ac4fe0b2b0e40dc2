import Foundation
import PurchaseStore
import ReceiptCore

/// `POST /v1/apple/notifications`: the URL registered with Apple for App Store Server
/// Notifications V2 (`{"signedPayload": "…"}`). Verified, then applied once per notificationUUID
/// and answered 200 only once the change is committed: any other answer makes Apple send it
/// again, so nothing is lost, and a repeat changes nothing. A body that is not Apple's (forged,
/// another app's, not a notification) is refused with 4xx and kept for the audit by its digest.
extension ServeService {
    func notification(_ request: ServeRequest, peer: String?) -> ServeResponse {
        let prepared: PreparedNotification
        do {
            guard !request.body.isEmpty else { throw ServeRefusal(400, "emptyBody", "the body is empty: Apple sends {\"signedPayload\": …}", where: "body") }
            // At most as many verify at once as there are cores: more only take the CPU the
            // writer (and a PostgreSQL server beside it) needs to commit what is verified.
            verifying.wait()
            defer { verifying.signal() }
            prepared = try writerLedger.prepareNotification(request.body, operatorName: "apple")
        } catch {
            metrics.count(outcome: "refused")
            let response = (error as? ServeRefusal)?.response ?? ServeErrors.response(error, where: "body.signedPayload")
            if !request.body.isEmpty {  // what it carried is kept by its digest; an empty body carried nothing
                refusals.record(route: "/v1/apple/notifications", body: request.body, reason: ServeErrors.message(error), peer: peer)
            }
            return response
        }
        switch queue.applyNotification(prepared) {
        case .success(let result):
            metrics.count(outcome: result.applied ? (result.changes.isEmpty ? "recorded" : "applied") : "duplicate")
            return .json(200, .object([("notificationUUID", .string(result.notificationUUID)), ("type", .string(result.notificationType)),
                                       ("subtype", .string(result.subtype)), ("applied", .bool(result.applied)),
                                       ("customerId", .string(result.customerId)), ("outcome", .string(result.outcome))]))
        case .failure(let error):
            metrics.count(outcome: "failed")
            return ServeErrors.response(error, where: nil)
        }
    }
}

/// Keeps refused requests for the audit, at most one a second (a flood of forgeries must not
/// flood the audit log: the rest are counted in `/metrics` only).
final class RefusalRecorder: @unchecked Sendable {
    private let reader: LockedLedger
    private let lock = NSLock()
    private var last: UInt64 = 0

    init(reader: LockedLedger) { self.reader = reader }

    func record(route: String, body: [UInt8], reason: String, peer: String?) {
        let now = DispatchTime.now().uptimeNanoseconds
        lock.lock()
        let due = last == 0 || now - last >= 1_000_000_000
        if due { last = now }
        lock.unlock()
        guard due else { return }
        _ = try? reader.run { try $0.recordRefusedRequest(route: route, body: body, reason: reason, peer: peer, operatorName: "serve") }
    }
}
