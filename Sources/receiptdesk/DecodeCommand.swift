import AppStoreAPI
import Foundation
import ReceiptCore

/// `receiptdesk decode [FILE|-] [--json] [--trust-anchor CERT]... [--device-id UUID] [--bundle-id ID]... [--app-apple-id N]
/// [--config FILE] [--revocation off|prefer|require] [--ocsp-url URL]`
enum DecodeCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let json = args.flag("--json")
        let anchorPaths = try args.values("--trust-anchor")
        let intermediatePaths = try args.values("--legacy-intermediate")
        let deviceText = try args.value("--device-id")
        let bundleIds = try args.values("--bundle-id")
        let appAppleIdText = try args.value("--app-apple-id")
        let configArgument = try args.value("--config")
        let revocationText = try args.value("--revocation")
        let ocspURLText = try args.value("--ocsp-url")
        let positionals = try args.finish(maxPositionals: 1)
        let path: String
        if let given = positionals.first {
            path = given
        } else if isatty(STDIN_FILENO) == 1 {
            print(CommandRunner.usage)
            return .usage
        } else {
            path = "-"
        }
        var device: UUID?
        if let deviceText {
            guard let parsed = UUID(uuidString: deviceText) else {
                throw CommandFailure.usage("--device-id \(deviceText) is not a UUID")
            }
            device = parsed
        }
        var appAppleId: Int64?
        if let appAppleIdText {
            guard let parsed = Int64(appAppleIdText), parsed > 0 else {
                throw CommandFailure.usage("--app-apple-id \(appAppleIdText) is not a positive whole number")
            }
            appAppleId = parsed
        }
        var verifier: ReceiptVerifier
        var revocation = RevocationPolicy.off
        if let configArgument {
            // The config's expectations and anchors (its simulator's test authority included).
            let (_, configuration) = try ConfigurationLoader.load(argument: configArgument, environment: [:])
            let trust = try AppleConnection.trust(configuration, extraAnchors: try TrustOptions.load(anchorPaths, "--trust-anchor"),
                                                  extraIntermediates: try TrustOptions.load(intermediatePaths, "--legacy-intermediate"))
            verifier = ReceiptVerifier(trust: trust, configuration: configuration, deviceIdentifier: device)
            revocation = configuration.appStore.revocation
            if !bundleIds.isEmpty { verifier.expectedBundleIds = Set(bundleIds) }
            if let appAppleId { verifier.expectedAppAppleId = appAppleId }
        } else {
            let trust = try TrustOptions.store(anchors: anchorPaths, legacyIntermediates: intermediatePaths)
            verifier = ReceiptVerifier(trust: trust, deviceIdentifier: device, expectedBundleIds: Set(bundleIds), expectedAppAppleId: appAppleId)
        }
        let bytes = try InputReader.read(path)
        let artefact: DecodedArtefact
        do {
            artefact = try ReceiptDecoder.decode(bytes)
        } catch {
            throw CommandFailure.badInput("\(path == "-" ? "standard input" : path): \(CommandFailure.from(error).message)")
        }
        let now = Date()
        revocation = try RevocationOptions.apply(mode: revocationText, url: ocspURLText, to: revocation)
        var verdict = verifier.verify(artefact)
        if revocation.mode != .off {
            // The one network step of decode, asked for explicitly: OCSP for the verified chain.
            let checker = RevocationChecker(policy: revocation, transport: URLSessionTransport(), trust: verifier.trust)
            let status = runCancellable { [verifier] in await checker.status(of: artefact, verifier: verifier, now: now) }
            verdict = verdict.applying(status, mode: revocation.mode)
        }
        if json {
            print(DecodeReport.json(artefact, verdict: verdict, now: now).serialized())
        } else {
            print(ReportText.render(artefact, verdict: verdict, now: now))
        }
        return verdict.status == .valid ? .ok : .verificationFailed
    }
}

/// `--revocation MODE` and `--ocsp-url URL` over the config's `appStore.revocation`.
enum RevocationOptions {
    static func apply(mode: String?, url: String?, to policy: RevocationPolicy) throws -> RevocationPolicy {
        var policy = policy
        if let mode {
            guard let parsed = RevocationPolicy.Mode(rawValue: mode) else {
                throw CommandFailure.usage("--revocation \(mode) is not one of off, prefer, require")
            }
            policy.mode = parsed
        }
        if let url {
            guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  parsed.host != nil else {
                throw CommandFailure.usage("--ocsp-url \(url) is not an http(s) URL")
            }
            policy.responderURL = parsed
        }
        return policy
    }
}

/// Builds the trust store from Apple's roots and any anchors named on the command line.
enum TrustOptions {
    static func store(anchors: [String], legacyIntermediates: [String]) throws -> TrustStore {
        let apple = try TrustStore.apple()
        guard !anchors.isEmpty || !legacyIntermediates.isEmpty else { return apple }
        return apple.adding(anchors: try load(anchors, "--trust-anchor"),
                            legacyIntermediates: try load(legacyIntermediates, "--legacy-intermediate"))
    }

    /// Reads certificates (PEM or DER) named on the command line.
    static func load(_ paths: [String], _ flag: String) throws -> [Certificate] {
        try paths.map { path in
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CommandFailure.usage("\(flag) \(path): cannot read the file")
            }
            do { return try Certificate(pemOrDER: Array(data)) } catch {
                throw CommandFailure.usage("\(flag) \(path): \(CommandFailure.from(error).message)")
            }
        }
    }
}

/// The human-readable form of a decoded artefact: headline facts, then the tree.
enum ReportText {
    static func render(_ artefact: DecodedArtefact, verdict: Verdict, now: Date) -> String {
        let summary = artefact.summary
        var lines = [
            "format:       \(summary.format.displayName)",
            "environment:  \(summary.environment)",
            "verdict:      \(verdict.status.rawValue.uppercased()): \(verdict.reason)",
        ]
        if !verdict.chain.isEmpty { lines.append("chain:        " + verdict.chain.joined(separator: " ← ")) }
        if let time = verdict.validationTime { lines.append("validated at: \(RFC3339.format(time))") }
        if let anchor = verdict.extraAnchor { lines.append("anchor:       \(anchor) (given with --trust-anchor, not Apple)") }
        if let revocation = verdict.revocation {
            let flag = revocation.isCheckedGood || revocation.state == .off ? "" : "⚠ "
            lines.append("revocation:   \(flag)\(revocation.summary.dropFirst("revocation: ".count))")
        }
        lines.append("")
        lines += TreeTextRenderer.lines(artefact.tree(now: now))
        return lines.joined(separator: "\n")
    }
}
