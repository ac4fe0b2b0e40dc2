import Foundation
import PurchaseStore
import AppStoreAPI
import ReceiptCore
import StoreSimulator

/// Builds the Apple side of re-verification from the config: Apple's real endpoints, endpoints the
/// config names, or the built-in simulator (started here, on loopback) when `appStore.simulator`
/// is set. Secrets are read from their files or environment variables, never printed.
final class AppleConnection {
    let service: AppleService
    /// The simulator standing in for Apple, when it is one; stopped by `close()`.
    let simulator: AppStoreSimulator?
    let trust: TrustStore

    private init(service: AppleService, simulator: AppStoreSimulator?, trust: TrustStore) {
        self.service = service
        self.simulator = simulator
        self.trust = trust
    }

    func close() { simulator?.stop() }

    /// Starts the simulator's records loading, put off by `open(simulatorLoadsInBackground:)`
    /// until the console has drawn its first screen (a request before that starts it too).
    func startDeferredLoad() { simulator?.state.beginDeferredLoad() }

    /// `baseTrust` must already trust what the config names (see `StoreOptions.trust`).
    /// With `simulatorLoadsInBackground` the built-in simulator answers once its saved records
    /// are read, and this returns before (the console's first screen does not wait for them);
    /// the read begins at `startDeferredLoad()` or the first request, whichever comes first.
    static func open(_ configuration: StoreConfiguration, baseTrust: TrustStore,
                     environment: [String: String] = ProcessInfo.processInfo.environment,
                     simulatorLoadsInBackground: Bool = false) throws -> AppleConnection {
        let settings = configuration.appStore
        let secret = try readSecret(file: settings.sharedSecretFile, variable: settings.sharedSecretEnv, what: "shared secret")
        let keyPEM = try readSecret(file: settings.privateKeyFile, variable: settings.privateKeyEnv, what: "App Store Server API key")
        let trust = baseTrust
        // Each endpoint the config names replaces Apple's; the others stay Apple's.
        let apple = AppStoreEndpoints.apple
        var endpoints = AppStoreEndpoints(
            verifyReceiptProduction: settings.verifyReceiptProductionURL ?? apple.verifyReceiptProduction,
            verifyReceiptSandbox: settings.verifyReceiptSandboxURL ?? apple.verifyReceiptSandbox,
            serverAPIProduction: settings.serverAPIProductionURL ?? apple.serverAPIProduction,
            serverAPISandbox: settings.serverAPISandboxURL ?? apple.serverAPISandbox)
        var privateKey: PrivateKey?
        if let keyPEM { privateKey = try PrivateKey.fromPEM(keyPEM) }
        var simulator: AppStoreSimulator?
        var label = endpoints == .apple ? "Apple" : "Apple at \(endpoints.verifyReceiptProduction.host ?? "a configured host")"
        if let directory = settings.simulatorStateDirectory {
            let state = try SimulatorStateDirectory.open(URL(fileURLWithPath: directory),
                                                         bundleId: configuration.bundleIds.first ?? "com.example.receiptdesk",
                                                         appAppleId: configuration.appAppleId ?? 1_234_567_890,
                                                         loadingInBackground: simulatorLoadsInBackground,
                                                         deferringLoad: simulatorLoadsInBackground)
            state.sharedSecret = secret
            if let privateKey, let keyId = settings.keyId, let issuerId = settings.issuerId {
                state.serverAPIKey = ServerAPIKey(publicKey: try privateKey.publicKey(), keyId: keyId, issuerId: issuerId)
            }
            if let target = settings.simulatorNotificationURL { try state.setNotificationURL(target) }
            let started = try AppStoreSimulator(state: state)
            try started.start()
            simulator = started
            endpoints = .rooted(at: started.baseURL)
            label = "DEMO: Apple is the built-in simulator"
        }
        let retry = RetryPolicy(maxAttempts: settings.maxAttempts)
        let timeout = RequestTimeout.clamped(seconds: settings.timeoutSeconds)
        let transport = URLSessionTransport()
        let verifyClient = try VerifyReceiptClient(endpoints: endpoints, transport: transport, sharedSecret: secret,
                                                   retry: retry, timeout: timeout)
        var apiClient: AppStoreServerAPIClient?
        if let privateKey, let keyId = settings.keyId, let issuerId = settings.issuerId {
            guard let bundleId = configuration.bundleIds.first else {
                throw CommandFailure.usage("config: the App Store Server API needs the app's bundleIds")
            }
            let credentials = try ServerAPICredentials(keyId: keyId, issuerId: issuerId, bundleId: bundleId, privateKey: privateKey)
            apiClient = try AppStoreServerAPIClient(endpoints: endpoints, transport: transport, credentials: credentials,
                                                    verifier: ReceiptVerifier(trust: trust, configuration: configuration),
                                                    retry: retry, timeout: timeout, clock: { Date() })
        }
        let service = AppleService(api: settings.api, verifyReceipt: verifyClient, serverAPI: apiClient, label: label)
        return AppleConnection(service: service, simulator: simulator, trust: trust)
    }

    /// Apple's roots, plus the config's `trustAnchorFiles` and, when Apple is the simulator, its
    /// test authority (roots and the legacy intermediate), plus anchors given on the command line.
    static func trust(_ configuration: StoreConfiguration, extraAnchors: [Certificate], extraIntermediates: [Certificate]) throws -> TrustStore {
        let settings = configuration.appStore
        var anchors = extraAnchors
        var intermediates = extraIntermediates
        for path in settings.trustAnchorFiles {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CommandFailure.usage("config appStore.trustAnchorFiles: cannot read \(path)")
            }
            anchors.append(try Certificate(pemOrDER: Array(data)))
        }
        if let directory = settings.simulatorStateDirectory {
            let folder = URL(fileURLWithPath: directory).appendingPathComponent(SimulatorStateDirectory.authorityFolder)
            if FileManager.default.fileExists(atPath: folder.path) {
                let authority = try TestCertificateAuthority.load(from: folder)
                anchors += [authority.root, authority.ecRoot]
                intermediates += [authority.iTunesIntermediate, authority.wwdrIntermediate]
            }
        }
        let apple = try TrustStore.apple()
        return anchors.isEmpty && intermediates.isEmpty ? apple : apple.adding(anchors: anchors, legacyIntermediates: intermediates)
    }

    /// A secret from a file (trimmed) or an environment variable; nil when neither is configured.
    static func readSecret(file: String?, variable: String?, what: String,
                           environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        if let variable, let value = environment[variable], !value.isEmpty { return value }
        guard let file else {
            if let variable { throw CommandFailure.usage("the \(what) is configured in $\(variable), which is not set") }
            return nil
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw CommandFailure.usage("cannot read the \(what) from \(file)")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw CommandFailure.usage("the \(what) file \(file) is empty") }
        return text
    }
}
