import Foundation

/// How receiptdesk talks to Apple: the `appStore` section of the config.
///
/// ```json
/// "appStore": {
///   "api": "verifyReceipt",
///   "verifyReceipt": {"productionURL": "https://buy.itunes.apple.com/verifyReceipt",
///                     "sandboxURL": "https://sandbox.itunes.apple.com/verifyReceipt"},
///   "serverAPI": {"productionURL": "https://api.storekit.apple.com", "sandboxURL": "https://api.storekit-sandbox.apple.com",
///                 "keyId": "2X9R4HXF34", "issuerId": "57246542-96fe-1a63-e053-0824d011072a",
///                 "privateKeyFile": "/etc/receiptdesk/SubscriptionKey_2X9R4HXF34.p8"},
///   "sharedSecretFile": "/etc/receiptdesk/shared-secret", "sharedSecretEnv": "RECEIPTDESK_SHARED_SECRET",
///   "timeoutSeconds": 15, "maxAttempts": 4,
///   "trustAnchorFiles": ["simulator/root-rsa.der"],
///   "simulator": {"stateDirectory": "simulator"},
///   "revocation": "off",
///   "finishOnDelivery": false
/// }
/// ```
/// Secrets (the shared secret, the .p8 key) are named by file or environment variable only.
/// Relative paths are relative to the config file. Plain `http` is accepted for loopback only.
public struct AppStoreSettings: Sendable, Equatable {
    /// Which Apple service re-verification asks.
    public enum API: String, Sendable { case verifyReceipt, serverAPI }

    public var api: API = .verifyReceipt
    public var verifyReceiptProductionURL = URL(string: "https://buy.itunes.apple.com/verifyReceipt")
    public var verifyReceiptSandboxURL = URL(string: "https://sandbox.itunes.apple.com/verifyReceipt")
    public var serverAPIProductionURL = URL(string: "https://api.storekit.apple.com")
    public var serverAPISandboxURL = URL(string: "https://api.storekit-sandbox.apple.com")
    public var keyId: String?
    public var issuerId: String?
    public var privateKeyFile: String?
    public var privateKeyEnv: String?
    public var sharedSecretFile: String?
    public var sharedSecretEnv: String?
    /// Per-request timeout, 1–120 s.
    public var timeoutSeconds: Double = 15
    /// Attempts per request including the first, 1–10.
    public var maxAttempts: Int = 4
    /// Which Send Consumption Information is used: 2 (the default; Apple deprecated version 1
    /// on 2025-12-10) or 1, for a merchant whose account still needs it.
    public var consumptionVersion = 2
    /// Whether `import` tells Apple (Finish Transaction) about each consumable it newly credits
    /// to a merchant order, once the ledger has delivered it: off by default, for a merchant whose
    /// server, not the app, finishes transactions. Needs `serverAPI`.
    public var finishOnDelivery = false
    /// Extra roots trusted for what "Apple" returns (the simulator's test CA), named in verdicts.
    public var trustAnchorFiles: [String] = []
    /// When set, Apple is the built-in simulator, whose CA and state live in this directory.
    public var simulatorStateDirectory: String?
    /// Where the built-in simulator posts the notifications it sends (http on loopback), the way
    /// Apple posts to the app's App Store Server Notifications URL; nil sends none.
    public var simulatorNotificationURL: URL?
    /// Whether the chain of what is verified with the network allowed is checked for revocation
    /// (OCSP): off by default.
    public var revocation = RevocationPolicy()

    public init() {}

    /// Whether Apple is the built-in simulator (the console says so).
    public var isSimulator: Bool { simulatorStateDirectory != nil }
}
