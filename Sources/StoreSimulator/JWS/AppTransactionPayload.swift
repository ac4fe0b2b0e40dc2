import Foundation
import ReceiptCore

/// The payload of a signed app transaction (`AppTransaction`); dates are UNIX milliseconds.
/// Sample:
///
///     {"receiptType":"Sandbox","appAppleId":1234,"bundleId":"com.example","applicationVersion":"42",
///      "receiptCreationDate":1697680122257,"originalPurchaseDate":1697680000000,
///      "originalApplicationVersion":"17","signedDate":1697680122257,"appTransactionId":"704897469903383919"}
///
/// Each stored property is written as the JSON member of the same name (dates as UNIX
/// milliseconds); nil properties are left out.
public struct AppTransactionPayload: Sendable {
    /// "Production", "Sandbox", "Xcode".
    public var receiptType: String = "Sandbox"
    public var appAppleId: Int64?
    public var bundleId: String
    public var applicationVersion: String
    public var versionExternalIdentifier: Int64?
    public var receiptCreationDate: Date
    public var originalPurchaseDate: Date
    public var originalApplicationVersion: String
    public var deviceVerification: String?
    public var deviceVerificationNonce: String?
    public var preorderDate: Date?
    public var signedDate: Date?
    public var appTransactionId: String?
    /// "iOS", "macOS", "tvOS", "visionOS".
    public var originalPlatform: String?
    /// Members written last, as given.
    public var extraMembers: [(String, JSONValue)] = []

    /// An app transaction from its required members.
    public init(bundleId: String, applicationVersion: String, originalApplicationVersion: String,
                receiptCreationDate: Date, originalPurchaseDate: Date, receiptType: String = "Sandbox") {
        self.bundleId = bundleId
        self.applicationVersion = applicationVersion
        self.originalApplicationVersion = originalApplicationVersion
        self.receiptCreationDate = receiptCreationDate
        self.originalPurchaseDate = originalPurchaseDate
        self.receiptType = receiptType
    }

    /// The payload JSON.
    public var json: JSONValue {
        var m = JSONMembers()
        m.add("receiptType", receiptType)
        m.add("appAppleId", appAppleId)
        m.add("bundleId", bundleId)
        m.add("applicationVersion", applicationVersion)
        m.add("versionExternalIdentifier", versionExternalIdentifier)
        m.add("receiptCreationDate", milliseconds: receiptCreationDate)
        m.add("originalPurchaseDate", milliseconds: originalPurchaseDate)
        m.add("originalApplicationVersion", originalApplicationVersion)
        m.add("deviceVerification", deviceVerification)
        m.add("deviceVerificationNonce", deviceVerificationNonce)
        m.add("preorderDate", milliseconds: preorderDate)
        m.add("signedDate", milliseconds: signedDate)
        m.add("appTransactionId", appTransactionId)
        m.add("originalPlatform", originalPlatform)
        m.append(contentsOf: extraMembers)
        return m.object
    }
}
