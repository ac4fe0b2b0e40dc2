/// Anything receiptdesk can decode, typed. Every consumer (CLI, console, ledger) switches on this.
public enum DecodedArtefact: Sendable {
    case unified(AppReceipt)
    case legacy(LegacyReceipt)
    case transaction(SignedTransaction)
    case renewalInfo(RenewalInfo)
    case appTransaction(AppTransaction)
    case notification(ServerNotification)
    case verifyReceiptResponse(VerifyReceiptResponse)

    /// The format name used in `decode --json` and in the database.
    public var format: ArtefactFormat {
        switch self {
        case .unified: return .unified
        case .legacy: return .legacy
        case .transaction: return .jwsTransaction
        case .renewalInfo: return .jwsRenewalInfo
        case .appTransaction: return .jwsAppTransaction
        case .notification: return .notification
        case .verifyReceiptResponse: return .verifyReceiptResponse
        }
    }
}

/// The formats, by the names scripts see.
public enum ArtefactFormat: String, Sendable, CaseIterable {
    case unified
    case legacy
    case jwsTransaction = "jws-transaction"
    case jwsRenewalInfo = "jws-renewal-info"
    case jwsAppTransaction = "jws-app-transaction"
    case notification
    case verifyReceiptResponse = "verify-receipt-response"

    /// A human name for headings ("unified (iOS 7+)").
    public var displayName: String {
        switch self {
        case .unified: return "unified receipt (iOS 7+)"
        case .legacy: return "legacy transaction receipt (iOS 6)"
        case .jwsTransaction: return "StoreKit 2 signed transaction"
        case .jwsRenewalInfo: return "StoreKit 2 signed renewal info"
        case .jwsAppTransaction: return "StoreKit 2 signed app transaction"
        case .notification: return "App Store Server Notification V2"
        case .verifyReceiptResponse: return "verifyReceipt response"
        }
    }
}
