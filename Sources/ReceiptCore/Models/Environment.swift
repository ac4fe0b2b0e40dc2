import Foundation

/// Where a purchase happened, as far as the artefact or Apple says.
public enum Environment: String, Sendable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
    case xcode = "Xcode"
    case localTesting = "LocalTesting"
    case unknown = "Unknown"

    /// The badge the console and the CLI show.
    public var badge: String {
        switch self {
        case .production: return "PRODUCTION"
        case .sandbox: return "SANDBOX"
        case .xcode: return "XCODE"
        case .localTesting: return "LOCAL"
        case .unknown: return "UNKNOWN"
        }
    }
}

/// An environment together with the evidence for it: which field said so, what it said, whether
/// that field is covered by the artefact's signature, and any unsigned claim shown beside it.
public struct EnvironmentReading: Sendable, Equatable, CustomStringConvertible {
    /// The field that told the environment.
    public enum Source: String, Sendable {
        /// Unified receipt attribute 0 (receipt type).
        case receiptTypeField = "receipt type (field 0)"
        /// Legacy receipt purchase-info `app-item-id` / `version-external-identifier`: non-zero
        /// for App Store purchases, absent or 0 in the sandbox. Inside the signed purchase-info.
        case legacyPurchaseInfo = "legacy purchase-info `app-item-id`"
        /// Legacy receipt envelope key `environment` (absent means production). Outside the
        /// signed purchase-info: a claim only.
        case legacyEnvironmentKey = "legacy `environment` key"
        /// JWS payload `environment` (for notifications: `data.environment`).
        case jwsEnvironment = "JWS `environment`"
        /// Apple's verifyReceipt answer (`environment`).
        case appleAnswer = "Apple's answer"
        /// The app's receipt URL (`…/sandboxReceipt`).
        case receiptURL = "receipt URL"
        /// No field said anything.
        case none = "no evidence"
    }

    public let environment: Environment
    public let source: Source
    /// The value as written ("ProductionSandbox", "Sandbox", absent).
    public let rawValue: String?
    /// Whether the field sits inside the part of the artefact its signature covers (and the
    /// artefact carries a signature at all). Whether the signature verified is the verdict's job.
    public let isSigned: Bool
    /// An unsigned claim written beside the signed evidence (the legacy envelope's `environment`
    /// key), shown but never believed over the evidence.
    public let claim: EnvironmentClaim?

    public init(_ environment: Environment, source: Source, rawValue: String?, isSigned: Bool? = nil,
                claim: EnvironmentClaim? = nil) {
        self.environment = environment
        self.source = source
        self.rawValue = rawValue
        self.isSigned = isSigned ?? source.isInsideSignature
        self.claim = claim
    }

    /// No evidence either way.
    public static let unknown = EnvironmentReading(.unknown, source: .none, rawValue: nil)

    /// Whether an unsigned claim names another environment than the signed evidence. The reading's
    /// `environment` is then sandbox: a purchase is production only when nothing says otherwise.
    public var isMismatch: Bool { claim?.disagrees ?? false }

    /// This reading with its field marked as not covered by any signature (a payload given
    /// already decoded, a receipt without a signature).
    public func unsignedCopy() -> EnvironmentReading {
        EnvironmentReading(environment, source: source, rawValue: rawValue, isSigned: false, claim: claim)
    }

    /// Reads unified receipt field 0: 'Production', 'ProductionSandbox', 'Sandbox', 'Xcode'.
    public static func receiptType(_ raw: String?) -> EnvironmentReading {
        guard let raw else { return .unknown }
        let environment: Environment
        switch raw {
        case "Production": environment = .production
        case "ProductionSandbox", "Sandbox": environment = .sandbox
        case "Xcode": environment = .xcode
        case "LocalTesting": environment = .localTesting
        default: environment = .unknown
        }
        return EnvironmentReading(environment, source: .receiptTypeField, rawValue: raw)
    }

    /// Reads an `environment` value as JWS payloads and Apple's answers write it.
    public static func named(_ raw: String?, source: Source, isSigned: Bool? = nil) -> EnvironmentReading {
        EnvironmentReading(Environment.named(raw), source: source, rawValue: raw, isSigned: isSigned)
    }

    /// Reads an app's receipt URL: one whose last path component is `sandboxReceipt` is sandbox.
    public static func receiptURL(_ url: String) -> EnvironmentReading {
        let last = url.split(separator: "/").last.map(String.init) ?? url
        return EnvironmentReading(last == "sandboxReceipt" ? .sandbox : .production, source: .receiptURL, rawValue: url)
    }

    /// "signed" or "unsigned", as the tree and the JSON say it.
    public var signedWord: String { isSigned ? "signed" : "unsigned" }

    public var description: String {
        var text = "\(environment.badge) (\(source.rawValue)"
        if let rawValue { text += ": \(rawValue)" }
        text += ", \(signedWord))"
        if let claim {
            text += claim.disagrees ? " MISMATCH: " : "; "
            text += "\(claim.source.rawValue) " + (claim.rawValue.map { "says \($0)" } ?? "absent")
                + " (claims \(claim.environment.rawValue), unsigned)"
        }
        return text
    }
}

/// What an unsigned field claims about the environment, kept beside the signed evidence.
public struct EnvironmentClaim: Sendable, Equatable {
    /// The environment the claim means (an absent legacy `environment` key means production).
    public let environment: Environment
    /// The field that makes the claim.
    public let source: EnvironmentReading.Source
    /// The value as written; nil when the key is absent.
    public let rawValue: String?
    /// Whether the claim names another environment than the signed evidence.
    public let disagrees: Bool

    public init(environment: Environment, source: EnvironmentReading.Source, rawValue: String?, disagrees: Bool) {
        self.environment = environment
        self.source = source
        self.rawValue = rawValue
        self.disagrees = disagrees
    }
}

extension Environment {
    /// The environment a written name means, case-insensitively; nil or anything else is unknown.
    public static func named(_ raw: String?) -> Environment {
        guard let raw else { return .unknown }
        // As written (nearly always) first: no two names differ by case alone, so this finds
        // the same one without Foundation's comparison.
        if let exact = Environment(rawValue: raw) { return exact }
        return allCases.first { $0.rawValue.caseInsensitiveCompare(raw) == .orderedSame } ?? .unknown
    }
}

extension EnvironmentReading.Source {
    /// Whether a field of this kind sits inside what the artefact's signature covers.
    public var isInsideSignature: Bool {
        switch self {
        case .receiptTypeField, .legacyPurchaseInfo, .jwsEnvironment: return true
        case .legacyEnvironmentKey, .appleAnswer, .receiptURL, .none: return false
        }
    }
}
