import Foundation

/// Checks what a decoded artefact claims: signature, chain to a trust anchor at the artefact's own
/// time, Apple's chain policy, and the expectations given (bundle id, device). Never throws for an
/// untrusted artefact: the answer is always a `Verdict`.
public struct ReceiptVerifier: Sendable {
    public let trust: TrustStore
    /// The device identifier (16 bytes of the identifierForVendor UUID) to check the receipt hash
    /// against, when known.
    public var deviceIdentifier: UUID?
    /// Bundle ids the artefact must belong to; empty accepts any.
    public var expectedBundleIds: Set<String>
    /// The app's Apple id: a Production artefact that names its app (a notification, an app
    /// transaction, a unified receipt's field 1, a legacy receipt's `app-item-id`) must name this
    /// one, as Apple's own verifier checks. nil checks nothing.
    public var expectedAppAppleId: Int64?

    public init(trust: TrustStore, deviceIdentifier: UUID? = nil, expectedBundleIds: Set<String> = [],
                expectedAppAppleId: Int64? = nil) {
        self.trust = trust
        self.deviceIdentifier = deviceIdentifier
        self.expectedBundleIds = expectedBundleIds
        self.expectedAppAppleId = expectedAppAppleId
    }

    /// A verifier expecting the configuration's bundle ids and app Apple id.
    public init(trust: TrustStore, configuration: StoreConfiguration, deviceIdentifier: UUID? = nil) {
        self.init(trust: trust, deviceIdentifier: deviceIdentifier, expectedBundleIds: Set(configuration.bundleIds),
                  expectedAppAppleId: configuration.appAppleId)
    }

    /// The verdict on any artefact.
    public func verify(_ artefact: DecodedArtefact) -> Verdict {
        switch artefact {
        case .unified(let receipt):
            let appId = receipt.appItemId.flatMap { $0 == 0 ? nil : $0 }
            return checkAppAppleId(verify(receipt), appId, receipt.environment.environment, field: "field 1 (App Store id)")
        case .legacy(let receipt):
            let verdict = checkBundle(receipt.verify(trust: trust), receipt.bundleId)
            return checkAppAppleId(verdict, receipt.appItemId.flatMap { Int64($0) }, receipt.environment.environment,
                                   field: "purchase-info `app-item-id`")
        case .transaction(let transaction):
            return verifyJWS(transaction.jws, environment: transaction.environment, signedDate: transaction.signedDate,
                             bundleId: transaction.bundleId, what: "transaction")
        case .renewalInfo(let info):
            return verifyJWS(info.jws, environment: info.environment, signedDate: info.signedDate, bundleId: nil, what: "renewal info")
        case .appTransaction(let app):
            // Apple validates an app transaction without signedDate at its receiptCreationDate.
            let verdict = verifyJWS(app.jws, environment: app.environment, signedDate: app.validationDate,
                                    bundleId: app.bundleId, what: "app transaction")
            return checkAppAppleId(verdict, app.appAppleId, app.environment.environment, field: "`appAppleId`")
        case .notification(let notification):
            return checkAppAppleId(verify(notification), notification.appAppleId, notification.environment.environment,
                                   field: "`data.appAppleId`")
        case .verifyReceiptResponse(let response):
            return Verdict(.unsigned, "Apple's verifyReceipt answer (status \(response.status): \(VerifyReceiptStatus.meaning(response.status))) carries no signature of its own; re-verify the receipt itself")
        }
    }

    /// The verdict on a unified receipt.
    public func verify(_ receipt: AppReceipt) -> Verdict {
        let container = receipt.container
        guard let signer = container.signers.first else {
            return Verdict(.invalid, "unified receipt has no signer")
        }
        if receipt.environment.environment == .xcode || isStoreKitTesting(container) {
            return localTestingVerdict(receipt, signer)
        }
        guard let digest = signer.digest else {
            return Verdict(.invalid, "digest algorithm \(signer.digestAlgorithmOID) is neither SHA-1 nor SHA-256")
        }
        guard let leafIndex = SignerCertificate.index(of: signer, in: container.certificates) else {
            return Verdict(.invalid, "the signer's certificate is not among the receipt's \(container.certificates.count) certificates")
        }
        guard let creationDate = receipt.creationDate else {
            return Verdict(.invalid, "no receipt creation date (field 12) to validate the chain at")
        }
        let chain: VerifiedChain
        switch ChainVerifier.verify(certificates: container.certificates, leafIndex: leafIndex, at: creationDate,
                                    policy: .appStore, store: trust) {
        case .failure(let failure):
            return Verdict(.invalid, failure.reason, chain: failure.names, validationTime: creationDate)
        case .success(let verified): chain = verified
        }
        let extra = chain.anchor.isBundledApple ? nil : chain.anchor.certificate.commonName
        func invalid(_ reason: String) -> Verdict {
            Verdict(.invalid, reason, chain: chain.names, validationTime: creationDate, extraAnchor: extra)
        }
        if let attributes = signer.signedAttributes {
            guard signer.messageDigest == digest.hash(container.content) else {
                return invalid("the signed message digest does not match the content: the receipt was changed after signing")
            }
            guard chain.leafVerifier.verify(signature: signer.signature, message: attributes, digest: digest) else {
                return invalid("signature over the signed attributes does not verify with \(chain.names[0])")
            }
        } else if !chain.leafVerifier.verify(signature: signer.signature, message: container.content, digest: digest) {
            return invalid("signature does not match the content: the receipt was changed after signing, or signed by another key")
        }
        // What did verify is said first: the receipt is genuine, it is just not for this app/device.
        func genuine() -> String { Self.genuine("signature (\(digest.rawValue), RSA) and chain", extra) }
        if let mismatch = bundleMismatch(receipt.bundleId) { return invalid("\(genuine()); \(mismatch)") }
        if let deviceIdentifier {
            guard receipt.matchesDevice(deviceIdentifier.bytes) else {
                return invalid("\(genuine()); device hash (field 5) does not match device \(deviceIdentifier.uuidString)")
            }
        }
        let anchorNote = extra.map { ", trusted through the extra anchor \"\($0)\"" } ?? ""
        let deviceNote = deviceIdentifier.map { ", device hash matches \($0.uuidString)" } ?? ""
        return Verdict(.valid, "signature (\(digest.rawValue), RSA) and chain valid at \(RFC3339.format(creationDate))\(anchorNote)\(deviceNote)",
                       chain: chain.names, validationTime: creationDate, extraAnchor: extra)
    }

    /// The verdict on a notification: its own signature, then the nested signed transaction, renewal
    /// info and (RESCIND_CONSENT) app transaction. The app checked is the one `data`, `summary`,
    /// `externalPurchaseToken` or `appData` names.
    public func verify(_ notification: ServerNotification) -> Verdict {
        let outer = verifyJWS(notification.jws, environment: notification.environment, signedDate: notification.signedDate,
                              bundleId: notification.bundleId, what: "notification")
        guard outer.status == .valid else { return outer }
        if let name = notification.nestedNotJWS.first {
            return Verdict(.invalid, "\(name) is present but is not a compact JWS: nothing signed vouches for it",
                           chain: outer.chain, validationTime: outer.validationTime, extraAnchor: outer.extraAnchor)
        }
        let nested: [(String, Verdict)] = [
            notification.transaction.map { t in
                ("data.signedTransactionInfo", verifyJWS(t.jws, environment: t.environment, signedDate: t.signedDate, bundleId: t.bundleId, what: "transaction"))
            },
            notification.renewalInfo.map { r in
                ("data.signedRenewalInfo", verifyJWS(r.jws, environment: r.environment, signedDate: r.signedDate, bundleId: nil, what: "renewal info"))
            },
            notification.appData?.appTransaction.map { a in
                ("appData.signedAppTransactionInfo", verifyJWS(a.jws, environment: a.environment, signedDate: a.validationDate,
                                                               bundleId: a.bundleId, what: "app transaction"))
            },
        ].compactMap { $0 }
        if let (name, verdict) = nested.first(where: { $0.1.status != .valid }) {
            return Verdict(.invalid, "\(name): \(verdict.reason)", chain: verdict.chain, validationTime: verdict.validationTime,
                           extraAnchor: verdict.extraAnchor)
        }
        return outer
    }

    /// The verdict on a StoreKit 2 JWS given its decoded facts.
    func verifyJWS(_ jws: CompactJWS?, environment: EnvironmentReading, signedDate: Date?, bundleId: String?, what: String) -> Verdict {
        guard let jws else {
            return Verdict(.unsigned, "a decoded \(what) payload without its JWS carries no signature")
        }
        if environment.environment == .xcode || environment.environment == .localTesting {
            let verdict = localTestingVerdict(jws, environment: environment, signedDate: signedDate, what: what)
            return what == "renewal info" ? verdict : checkBundle(verdict, bundleId)
        }
        // A header naming Xcode's key on an artefact that claims Apple's environments is a claim
        // like any other: it must verify as Apple's.
        let kidNote = jws.keyId == LocalTesting.xcodeKeyId
            ? "; the \(what) claims \(environment.environment.rawValue) but names Xcode's key id (\(LocalTesting.xcodeKeyId)), a claim nothing Apple signed backs" : ""
        guard jws.algorithm == "ES256" else {
            return Verdict(.invalid, "JWS algorithm \(jws.algorithm ?? "(none)") is not ES256\(kidNote)")
        }
        guard let x5c = jws.x5c else {
            return Verdict(.invalid, "invalid JWS format: the header has no x5c certificate chain\(kidNote)")
        }
        guard x5c.count == 3 else {
            return Verdict(.invalid, "invalid JWS format: x5c holds \(x5c.count) certificates, Apple's chain has 3\(kidNote)")
        }
        guard let signedDate else {
            if what != "renewal info", let mismatch = bundleMismatch(bundleId) {
                return Verdict(.invalid, "\(mismatch); the \(what) has no signedDate to validate the chain at either")
            }
            return Verdict(.invalid, "the \(what) has no signedDate to validate the chain at")
        }
        // x5c[2] is never trusted (nor even read): the chain must end in one of our own anchors.
        // x5c[0] and x5c[1] are decoded only when the chain cache does not know their text.
        let checked: Result<VerifiedChain, ChainFailure>
        do {
            checked = try ChainVerifier.verify(encodedLeaf: x5c[0], encodedIntermediates: [x5c[1]], at: signedDate,
                                               policy: .appStore, store: trust) { encoded in
                try Base64.decode(encoded, "JWS header x5c[\(encoded == x5c[0] ? 0 : 1)]")
            }
        } catch {
            return Verdict(.invalid, "invalid JWS format: \(error)")
        }
        switch checked {
        case .failure(let failure):
            return Verdict(.invalid, failure.reason, chain: failure.names, validationTime: signedDate)
        case .success(let chain):
            let extra = chain.anchor.isBundledApple ? nil : chain.anchor.certificate.commonName
            let signed = jws.signingInputParts
            guard chain.leafVerifier.verifyES256(rawSignature: jws.signature, prefix: signed.header, rest: signed.payload) else {
                return Verdict(.invalid, "ES256 signature does not verify with \(chain.names[0]): the \(what) was changed after signing\(kidNote)",
                               chain: chain.names, validationTime: signedDate, extraAnchor: extra)
            }
            // Renewal infos name no app; everything else must name ours. Checked once the
            // signature holds, so the verdict can say what did verify.
            if what != "renewal info", let mismatch = bundleMismatch(bundleId) {
                return Verdict(.invalid, "\(Self.genuine("ES256 signature and chain", extra)); \(mismatch)",
                               chain: chain.names, validationTime: signedDate, extraAnchor: extra)
            }
            let anchorNote = extra.map { ", trusted through the extra anchor \"\($0)\"" } ?? ""
            return Verdict(.valid, "ES256 signature and chain valid at \(RFC3339.format(signedDate))\(anchorNote)",
                           chain: chain.names, validationTime: signedDate, extraAnchor: extra)
        }
    }

    private func bundleMismatch(_ bundleId: String?) -> String? {
        guard !expectedBundleIds.isEmpty else { return nil }
        guard let bundleId, expectedBundleIds.contains(bundleId) else {
            return "invalid app identifier: bundle id \(bundleId ?? "(none)") is not this app's (\(expectedBundleIds.sorted().joined(separator: " or ")))"
        }
        return nil
    }

    /// "Apple's ES256 signature and chain valid" (or "… valid, through the extra anchor X"):
    /// what did verify, before the reason an artefact is still refused.
    static func genuine(_ what: String, _ extraAnchor: String?) -> String {
        extraAnchor.map { "\(what) valid, through the extra anchor \"\($0)\"" } ?? "Apple's \(what) valid"
    }

    /// A valid Production verdict becomes invalid when the artefact names another app than the
    /// configured `appAppleId` (or none).
    private func checkAppAppleId(_ verdict: Verdict, _ appAppleId: Int64?, _ environment: Environment, field: String) -> Verdict {
        guard verdict.status == .valid, environment == .production, let expected = expectedAppAppleId,
              appAppleId != expected else { return verdict }
        return Verdict(.invalid, "\(Self.genuine("signature and chain", verdict.extraAnchor)); invalid app identifier: \(field) is \(appAppleId.map(String.init) ?? "absent"), the configured appAppleId is \(expected)",
                       chain: verdict.chain, validationTime: verdict.validationTime, extraAnchor: verdict.extraAnchor)
    }

    func checkBundle(_ verdict: Verdict, _ bundleId: String?) -> Verdict {
        guard verdict.status == .valid, let mismatch = bundleMismatch(bundleId) else { return verdict }
        return Verdict(.invalid, "\(Self.genuine("signature and chain", verdict.extraAnchor)); \(mismatch)", chain: verdict.chain,
                       validationTime: verdict.validationTime, extraAnchor: verdict.extraAnchor)
    }
}

extension UUID {
    /// The 16 bytes of the UUID, as the device hash uses them.
    var bytes: [UInt8] {
        withUnsafeBytes(of: uuid) { Array($0) }
    }
}
