import Foundation

/// The facts every consumer asks of an artefact, whatever its format.
public struct ArtefactSummary: Sendable {
    public var format: ArtefactFormat
    public var environment: EnvironmentReading
    public var bundleId: String?
    public var appVersion: String?
    public var originalAppVersion: String?
    public var creationDate: Date?
    /// When the app itself was first bought or downloaded (unified field 18, app transaction).
    public var originalPurchaseDate: Date?
    public var notificationType: String?
    public var subtype: String?
    public var notificationUUID: String?
    public var purchases: [Purchase] = []
    public var renewal: RenewalInfo?
    /// The app download the artefact belongs to (`appTransactionId` of a StoreKit 2 transaction,
    /// renewal info, app transaction, or of the one a notification carries).
    public var appTransactionId: String?

    init(format: ArtefactFormat, environment: EnvironmentReading) {
        self.format = format
        self.environment = environment
    }
}

extension DecodedArtefact {
    /// The summary of this artefact.
    public var summary: ArtefactSummary {
        switch self {
        case .unified(let r):
            var s = ArtefactSummary(format: .unified, environment: r.environment)
            s.bundleId = r.bundleId
            s.appVersion = r.appVersion
            s.originalAppVersion = r.originalAppVersion
            s.creationDate = r.creationDate
            s.originalPurchaseDate = r.originalPurchaseDate
            s.purchases = r.inApp.map(\.purchase)
            return s
        case .legacy(let r):
            var s = ArtefactSummary(format: .legacy, environment: r.environment)
            s.bundleId = r.bundleId
            s.appVersion = r.bundleVersion
            s.purchases = [r.purchase]
            return s
        case .transaction(let t):
            var s = ArtefactSummary(format: .jwsTransaction, environment: t.environment)
            s.bundleId = t.bundleId
            s.creationDate = t.signedDate
            s.purchases = [t.purchase]
            s.appTransactionId = t.appTransactionId
            return s
        case .renewalInfo(let r):
            var s = ArtefactSummary(format: .jwsRenewalInfo, environment: r.environment)
            s.creationDate = r.signedDate
            s.renewal = r
            s.appTransactionId = r.appTransactionId
            return s
        case .appTransaction(let a):
            var s = ArtefactSummary(format: .jwsAppTransaction, environment: a.environment)
            s.bundleId = a.bundleId
            s.appVersion = a.applicationVersion
            s.originalAppVersion = a.originalApplicationVersion
            s.originalPurchaseDate = a.originalPurchaseDate
            s.creationDate = a.validationDate
            s.appTransactionId = a.appTransactionId
            return s
        case .notification(let n):
            var s = ArtefactSummary(format: .notification, environment: n.environment)
            s.bundleId = n.bundleId
            s.appVersion = n.bundleVersion
            s.creationDate = n.signedDate
            s.notificationType = n.notificationType
            s.subtype = n.subtype
            s.notificationUUID = n.notificationUUID
            s.purchases = n.transaction.map { [$0.purchase] } ?? []
            s.renewal = n.renewalInfo
            s.appTransactionId = n.transaction?.appTransactionId ?? n.renewalInfo?.appTransactionId ?? n.appData?.appTransaction?.appTransactionId
            return s
        case .verifyReceiptResponse(let v):
            var s = ArtefactSummary(format: .verifyReceiptResponse, environment: v.environment)
            s.bundleId = v.bundleId
            s.appVersion = v.appVersion
            s.originalAppVersion = v.originalAppVersion
            s.creationDate = v.creationDate
            s.purchases = v.latestReceiptInfo.isEmpty ? v.inApp : v.latestReceiptInfo
            return s
        }
    }
}
