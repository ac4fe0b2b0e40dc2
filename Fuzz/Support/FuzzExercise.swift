import Foundation
import ReceiptCore
import StoreSimulator

/// What every decoder target does with a value that decoded: everything the CLI and the console
/// would do with it (summary, tree, text, JSON report, verification against Apple's roots and the
/// test CA), so a decoded-but-inconsistent value cannot crash a later stage either.
enum FuzzExercise {
    static let now = Date(timeIntervalSince1970: 1_748_779_200)  // 2025-06-01T12:00:00Z

    /// Apple's bundled roots plus the StoreSimulator's test CA, so generated seeds verify all the way.
    static let verifier: ReceiptVerifier? = {
        // Setup, not input: without a trust store the targets still decode, they only skip verification.
        guard let apple = try? TrustStore.apple() else { return nil }
        guard let authority = try? TestCertificateAuthority.shared() else { return ReceiptVerifier(trust: apple) }
        let trust = apple.adding(anchors: [authority.root, authority.ecRoot], legacyIntermediates: [authority.iTunesIntermediate])
        return ReceiptVerifier(trust: trust, expectedBundleIds: ["com.example.app"])
    }()

    static func artefact(_ artefact: DecodedArtefact) {
        let summary = artefact.summary
        _ = summary.purchases.count
        let tree = artefact.tree(now: now)
        _ = TreeTextRenderer.lines(tree)
        let verdict = verifier?.verify(artefact) ?? Verdict(.unverifiable, "no trust store")
        _ = DecodeReport.json(artefact, verdict: verdict, now: now)
    }
}
