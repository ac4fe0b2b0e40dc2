import Foundation
import ReceiptCore

/// What the App Store Server API needs to sign its tokens: the key id and issuer id from App Store
/// Connect, the app's bundle id, and the private key of the `.p8` file (read by the caller from a
/// file or the environment, never from the database). The description never shows the key.
public struct ServerAPICredentials: Sendable, CustomStringConvertible, CustomReflectable {
    /// The key's id in App Store Connect (the JWT `kid`).
    public let keyId: String
    /// The issuer id from App Store Connect's Keys page (the JWT `iss`).
    public let issuerId: String
    /// The app's bundle id (the JWT `bid`); every signed transaction must carry it.
    public let bundleId: String
    /// The `.p8` key (P-256).
    public let privateKey: PrivateKey

    /// Credentials; throws `.configuration` for an empty identifier or a key that is not EC (ES256
    /// needs a P-256 key).
    public init(keyId: String, issuerId: String, bundleId: String, privateKey: PrivateKey) throws {
        for (name, value) in [("key id", keyId), ("issuer id", issuerId), ("bundle id", bundleId)] {
            guard !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw AppStoreError(.configuration, "App Store Server API: the \(name) is empty")
            }
        }
        guard privateKey.isEC else {
            throw AppStoreError(.configuration, "App Store Server API: the private key is not an EC (P-256) key, so it cannot sign ES256 tokens")
        }
        self.keyId = keyId
        self.issuerId = issuerId
        self.bundleId = bundleId
        self.privateKey = privateKey
    }

    /// Credentials with the key given as the `.p8` file's PEM text.
    public init(keyId: String, issuerId: String, bundleId: String, privateKeyPEM: String) throws {
        let key: PrivateKey
        do {
            key = try PrivateKey.fromPEM(privateKeyPEM)
        } catch {
            throw AppStoreError(.configuration, "App Store Server API: the .p8 key could not be read (\(AttemptLoop.describe(error)))")
        }
        try self.init(keyId: keyId, issuerId: issuerId, bundleId: bundleId, privateKey: key)
    }

    public var description: String { "key \(keyId), issuer \(issuerId), bundle \(bundleId), private key ‹redacted›" }

    public var customMirror: Mirror {
        Mirror(self, children: ["keyId": keyId, "issuerId": issuerId, "bundleId": bundleId, "privateKey": "‹redacted›"])
    }
}
