import Foundation
import PurchaseStore
import ReceiptCore

/// How the ledger's and the core's errors answer over HTTP: a status a client can act on
/// (4xx: change the request; 503: send it again later) and the one-line reason.
enum ServeErrors {
    static func message(_ error: Error) -> String {
        switch error {
        case let refusal as ServeRefusal: return refusal.message
        case let store as StoreError: return store.reason
        case let receipt as ReceiptError: return receipt.description
        default: return String(describing: error)
        }
    }

    static func status(_ error: Error) -> (Int, String) {
        if let store = error as? StoreError {
            switch store.code {
            case .invalidInput, .constraint: return (400, "invalidInput")
            case .notVerified: return (422, "notVerified")
            case .notFound: return (404, "notFound")
            case .alreadyExists, .invalidRequest: return (409, "conflict")
            case .busy, .cannotOpen: return (503, "unavailable")
            case .schemaTooNew, .corrupt, .sql, .auditBroken: return (500, "ledgerError")
            }
        }
        if error is ReceiptError { return (400, "undecodable") }
        return (500, "internal")
    }

    static func response(_ error: Error, where location: String?) -> ServeResponse {
        let (status, code) = status(error)
        return .error(status, code, message(error), where: location, headers: status == 503 ? [("Retry-After", "1")] : [])
    }
}
