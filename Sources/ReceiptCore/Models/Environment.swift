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

/// An environment together with the evidence for it: which field said so, and what it said.
public struct EnvironmentReading: Sendable, Equatable, CustomStringConvertible {
    /// The field that told the environment.
    public enum Source: String, Sendable {
        /// Unified receipt attribute 0 (receipt type).
        case receiptTypeField = "receipt type (field 0)"
        /// Legacy receipt envelope key `environment` (absent means production).
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

    public init(_ environment: Environment, source: Source, rawValue: String?) {
        self.environment = environment
        self.source = source
        self.rawValue = rawValue
    }

    /// No evidence either way.
    public static let unknown = EnvironmentReading(.unknown, source: .none, rawValue: nil)

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
    public static func named(_ raw: String?, source: Source) -> EnvironmentReading {
        guard let raw else { return EnvironmentReading(.unknown, source: source, rawValue: nil) }
        let environment = Environment.allCases.first { $0.rawValue.caseInsensitiveCompare(raw) == .orderedSame } ?? .unknown
        return EnvironmentReading(environment, source: source, rawValue: raw)
    }

    /// Reads an app's receipt URL: one whose last path component is `sandboxReceipt` is sandbox.
    public static func receiptURL(_ url: String) -> EnvironmentReading {
        let last = url.split(separator: "/").last.map(String.init) ?? url
        return EnvironmentReading(last == "sandboxReceipt" ? .sandbox : .production, source: .receiptURL, rawValue: url)
    }

    public var description: String {
        if let rawValue { return "\(environment.badge) (\(source.rawValue): \(rawValue))" }
        return "\(environment.badge) (\(source.rawValue))"
    }
}

import Foundation
