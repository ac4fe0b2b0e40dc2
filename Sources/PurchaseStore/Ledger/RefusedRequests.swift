import Foundation
import ReceiptCore

extension PurchaseLedger {
    /// Keeps, for the audit, a request the live service refused for what it carried (a forged or
    /// foreign notification, a purchase with a bad token): the route, the body's SHA-256 and
    /// size, and why; never the body or a token. One write transaction of its own.
    public func recordRefusedRequest(route: String, body: [UInt8], reason: String, peer: String?, operatorName: String) throws {
        try Validate.operatorName(operatorName)
        let now = clock()
        let digest = DigestAlgorithm.sha256.hash(body).hexString
        try database.writeTransaction {
            try audit(now, operatorName, "serve-refused", "request:sha256:\(digest)", .object([
                ("route", .string(route)), ("bytes", .int(Int64(body.count))), ("reason", .string(String(reason.prefix(500)))),
                ("peer", .string(peer)),
            ]))
        }
    }
}
