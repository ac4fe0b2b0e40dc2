import Foundation

/// Reads the `appStore` section of the config (see `AppStoreSettings`), strictly.
struct AppStoreSettingsParser {
    let source: String

    static let keys = ["api", "verifyReceipt", "serverAPI", "sharedSecretFile", "sharedSecretEnv", "timeoutSeconds",
                       "maxAttempts", "trustAnchorFiles", "simulator", "consumptionVersion", "revocation", "finishOnDelivery"]
    static let revocationKeys = ["mode", "responderURL", "timeoutSeconds"]
    static let verifyReceiptKeys = ["productionURL", "sandboxURL"]
    static let serverAPIKeys = ["productionURL", "sandboxURL", "keyId", "issuerId", "privateKeyFile", "privateKeyEnv"]
    static let simulatorKeys = ["stateDirectory", "notificationURL"]

    func parse(_ value: ConfigValue?) throws -> AppStoreSettings {
        var settings = AppStoreSettings()
        guard let value else { return settings }
        try ConfigSecrets.scan(value)
        let section = try value.object()
        try section.checkKeys(known: Self.keys)
        if let api = section["api"] {
            let text = try api.string()
            guard let parsed = AppStoreSettings.API(rawValue: text) else {
                throw api.error("\(ConfigText.quoted(text)) is not one of verifyReceipt, serverAPI")
            }
            settings.api = parsed
        }
        if let verify = section["verifyReceipt"] {
            let fields = try verify.object()
            try fields.checkKeys(known: Self.verifyReceiptKeys)
            if let url = fields["productionURL"] { settings.verifyReceiptProductionURL = try self.url(url) }
            if let url = fields["sandboxURL"] { settings.verifyReceiptSandboxURL = try self.url(url) }
        }
        if let api = section["serverAPI"] {
            let fields = try api.object()
            try fields.checkKeys(known: Self.serverAPIKeys)
            if let url = fields["productionURL"] { settings.serverAPIProductionURL = try self.url(url) }
            if let url = fields["sandboxURL"] { settings.serverAPISandboxURL = try self.url(url) }
            settings.keyId = try fields["keyId"]?.name(what: "a key id")
            settings.issuerId = try fields["issuerId"]?.name(what: "an issuer id")
            settings.privateKeyFile = try fields["privateKeyFile"].map(path)
            settings.privateKeyEnv = try fields["privateKeyEnv"]?.name(what: "an environment variable name")
        }
        if settings.api == .serverAPI {
            guard settings.keyId != nil, settings.issuerId != nil, settings.privateKeyFile != nil || settings.privateKeyEnv != nil else {
                throw value.error("api serverAPI needs serverAPI.keyId, serverAPI.issuerId and serverAPI.privateKeyFile (or privateKeyEnv)")
            }
        }
        settings.sharedSecretFile = try section["sharedSecretFile"].map(path)
        settings.sharedSecretEnv = try section["sharedSecretEnv"]?.name(what: "an environment variable name")
        if let timeout = section["timeoutSeconds"] {
            settings.timeoutSeconds = Double(try timeout.integer(in: 1...120))
        }
        if let attempts = section["maxAttempts"] { settings.maxAttempts = Int(try attempts.integer(in: 1...10)) }
        if let version = section["consumptionVersion"] { settings.consumptionVersion = Int(try version.integer(in: 1...2)) }
        if let finish = section["finishOnDelivery"] {
            settings.finishOnDelivery = try finish.bool()
            guard !settings.finishOnDelivery || (settings.keyId != nil && settings.issuerId != nil
                                                  && (settings.privateKeyFile != nil || settings.privateKeyEnv != nil)) else {
                throw finish.error("finishOnDelivery asks Apple (Finish Transaction): it needs serverAPI.keyId, serverAPI.issuerId and serverAPI.privateKeyFile (or privateKeyEnv)")
            }
        }
        if let anchors = section["trustAnchorFiles"] {
            settings.trustAnchorFiles = try anchors.array().map(path)
        }
        if let simulator = section["simulator"] {
            let fields = try simulator.object()
            try fields.checkKeys(known: Self.simulatorKeys)
            guard let directory = fields["stateDirectory"] else {
                throw simulator.error("needs stateDirectory (where the simulator keeps its CA and what it issued)")
            }
            settings.simulatorStateDirectory = try path(directory)
            if let target = fields["notificationURL"] {
                let parsed = try url(target)
                guard parsed?.scheme?.lowercased() == "http" else {
                    throw target.error("the simulator posts notifications over plain http to a loopback address only")
                }
                settings.simulatorNotificationURL = parsed
            }
        }
        if let revocation = section["revocation"] { settings.revocation = try self.revocation(revocation) }
        return settings
    }

    /// `"off"`, `"prefer"`, `"require"`, or `{"mode": …, "responderURL": "http://…", "timeoutSeconds": 5}`.
    private func revocation(_ value: ConfigValue) throws -> RevocationPolicy {
        func mode(_ value: ConfigValue) throws -> RevocationPolicy.Mode {
            let text = try value.string()
            guard let mode = RevocationPolicy.Mode(rawValue: text) else {
                throw value.error("\(ConfigText.quoted(text)) is not one of off, prefer, require")
            }
            return mode
        }
        if value.raw is String { return RevocationPolicy(mode: try mode(value)) }
        let fields = try value.object()
        try fields.checkKeys(known: Self.revocationKeys)
        var policy = RevocationPolicy()
        if let value = fields["mode"] { policy.mode = try mode(value) }
        if let value = fields["responderURL"] {
            // OCSP answers are signed, so plain http is fine anywhere (Apple's responder is http).
            let text = try value.string()
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  url.host != nil else {
                throw value.error("\(ConfigText.quoted(text)) is not an http(s) URL")
            }
            policy.responderURL = url
        }
        if let value = fields["timeoutSeconds"] { policy.timeoutSeconds = Double(try value.integer(in: 1...30)) }
        return policy
    }

    /// An https URL, or an http one on loopback (the simulator): nothing else may carry a secret.
    private func url(_ value: ConfigValue) throws -> URL? {
        let text = try value.string()
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else {
            throw value.error("\(ConfigText.quoted(text)) is not a URL")
        }
        guard !LoopbackHost.isIPv6Literal(host) else {
            throw value.error("\(ConfigText.quoted(text)) \(LoopbackHost.ipv6Refusal)")
        }
        guard scheme == "https" || (scheme == "http" && LoopbackHost.contains(host)) else {
            throw value.error("\(ConfigText.quoted(text)) must be https (plain http only to a loopback address: 127.0.0.0/8 or localhost)")
        }
        return url
    }

    /// A file path; relative ones are taken from the config file's folder.
    private func path(_ value: ConfigValue) throws -> String {
        let text = try value.string()
        guard !text.isEmpty else { throw value.error("a path must not be empty") }
        if text.hasPrefix("/") { return text }
        let folder = (source as NSString).deletingLastPathComponent
        return folder.isEmpty ? text : folder + "/" + text
    }
}
